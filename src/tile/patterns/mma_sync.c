/*
 * mma_sync.c - warp matrix multiply-accumulate, mma.sync.aligned
 * .m16n8k{8,16}.row.col.f32.{f16,bf16}.{f16,bf16}.f32 (reference "Warp
 * matrix multiply-accumulate").
 *
 * Operands D, A, B, C, all local registers; after the group prefix
 * (the warp at wider scopes; the lane is inside the atom) and optional
 * batch axes:
 *   D, tensor C  (M_rep, N_rep, 16, 8)    float32
 *   A            (M_rep, K_rep, 16, k/2)  32-bit containers (two values)
 *   B            (N_rep, K_rep, 8, k/2)   the same
 * C may instead be a scalar expression broadcast to every accumulator.
 * Register r of lane l holds atom coordinate
 *   A (l/4 + 8*(r%2), l%4 + 4*(r/2)), B (l/4, l%4 + 4*r),
 *   D/C (l/4 + 8*(r/2), 2*(l%4) + r%2);
 * the layout must place it in that lane, at one slot for every lane.
 * Output: batch, M, N, K expanded in that order, one mma.sync each; the
 * first K issue reads C, later ones read D (the K recurrence).
 */
#include <string.h>

#include "tile/tile.h"

enum { OP_D, OP_A, OP_B, OP_C };

static const char *const op_names[] = {"D", "A", "B", "C"};

static void
map_a(const void *arg, int l, int r, int64_t *x)
{
	(void)arg;
	x[0] = l / 4 + 8 * (r % 2);
	x[1] = l % 4 + 4 * (r / 2);
}

static void
map_b(const void *arg, int l, int r, int64_t *x)
{
	(void)arg;
	x[0] = l / 4;
	x[1] = l % 4 + 4 * r;
}

static void
map_d(const void *arg, int l, int r, int64_t *x)
{
	(void)arg;
	x[0] = l / 4 + 8 * (r / 2);
	x[1] = 2 * (l % 4) + r % 2;
}

static bool
check_form(TileEnv *e, TileCall *tc, int *k)
{
	/* the pattern's forms: m16n8k8/k16 with f32 accumulators and f16
	 * or bf16 inputs, read from the selection (the table spells each
	 * as one literal row, so no other row has this shape and types) */
	const PtxInst *in = &tc->inst;
	if (in->shape_m == 16 && in->shape_n == 8 &&
	    (in->shape_k == 8 || in->shape_k == 16) &&
	    (ptx_has(in, PQ_MMA_F32_F16) || ptx_has(in, PQ_MMA_F32_BF16)))
		*k = in->shape_k;
	if (!*k)
		return diag_error(e->c, PT_E_MMA_FORM, tc->span,
				  "the mma.sync tile pattern supports "
				  "mma.sync.aligned.m16n8k{8,16}.row.col.f32."
				  "{f16,bf16}.{f16,bf16}.f32 only, found %s; "
				  "call other forms as raw T.ptx",
				  tc->inst.spelling);
	if (tc->nops != 4)
		return diag_error(e->c, PT_E_TILE_OPERAND_COUNT, tc->span,
				  "%s takes 4 tile operands (D, A, B, C), "
				  "found %d", tc->inst.spelling, tc->nops);
	return true;
}

/* Atom extents and element type of operand i. */
static bool
check_atom(TileEnv *e, TileCall *tc, TileOperand *op, int i, int k)
{
	Ctx *c = e->c;
	static const int rows[] = {16, 16, 8, 16};
	int cols = i == OP_A || i == OP_B ? k / 2 : 8;
	const int64_t *x = op->ext + op->rank - 2;
	if (op->rank < tc->ngroup + 4 || x[0] != rows[i] || x[1] != cols)
		return diag_error(c, PT_E_MMA_ATOM_SHAPE, op->span,
				  "operand %s (%s) has shape %s: %s needs "
				  "(%s, %d, %d) after %d group and any batch "
				  "axes", op_names[i], op->root->name,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  tc->inst.spelling,
				  i == OP_A ? "M_repeat, K_repeat"
				  : i == OP_B ? "N_repeat, K_repeat"
					      : "M_repeat, N_repeat",
				  rows[i], cols, tc->ngroup);
	bool acc = i == OP_D || i == OP_C;
	/* A/B registers must be .b32 containers: a 32-bit float dtype
	 * (float32, tf32) would declare .f32 registers, which ptxas
	 * refuses for the packed 16-bit operands */
	if (acc ? op->dtype != DT_FLOAT32
		: op->bits != 32 || dtype_kind(op->dtype) == DK_FLOAT)
		return diag_error(c, PT_E_MMA_DTYPE, op->span,
				  "operand %s (%s) is %s: %s",
				  op_names[i], op->root->name,
				  dtype_name(op->dtype),
				  acc ? "the accumulator is float32"
				      : "A/B are 32-bit containers of two "
					"16-bit values (use a uint32 view)");
	return true;
}

/* Repeat axes of operand i: (batch..., P, Q). */
static const int64_t *
repeats(const TileCall *tc, const TileOperand *op)
{
	return op->ext + tc->ngroup;
}

static bool
check_repeats(TileEnv *e, TileCall *tc, int nbatch)
{
	Ctx *c = e->c;
	const TileOperand *d = &tc->ops[OP_D];
	const int64_t *rd = repeats(tc, d), *ra = NULL, *rb = NULL;
	for (int i = OP_A; i <= OP_C; i++) {
		const TileOperand *op = &tc->ops[i];
		if (op->scalar)
			continue;
		const int64_t *r = repeats(tc, op);
		int nb = op->rank - tc->ngroup - 4;
		bool ok = nb == nbatch &&
			  memcmp(r, rd, sizeof(int64_t) * nbatch) == 0;
		if (!ok)
			return diag_error(c, PT_E_MMA_REPEAT, op->span,
					  "operand %s (%s) has batch axes %s, "
					  "but D has %s",
					  op_names[i], op->root->name,
					  tile_coord_str(&c->arena, r, nb < 0 ? 0
								       : nb),
					  tile_coord_str(&c->arena, rd,
							 nbatch));
		if (i == OP_A)
			ra = r + nbatch;
		else if (i == OP_B)
			rb = r + nbatch;
		else if (r[nbatch] != rd[nbatch] ||
			 r[nbatch + 1] != rd[nbatch + 1])
			return diag_error(c, PT_E_MMA_REPEAT, op->span,
					  "C (%s) has (M_repeat, N_repeat) = "
					  "(%lld, %lld), but D has (%lld, %lld)",
					  op->root->name,
					  (long long)r[nbatch],
					  (long long)r[nbatch + 1],
					  (long long)rd[nbatch],
					  (long long)rd[nbatch + 1]);
	}
	const char *what = NULL;
	if (ra[0] != rd[nbatch])
		what = arena_printf(&c->arena, "A has M_repeat %lld, D has "
				    "%lld", (long long)ra[0],
				    (long long)rd[nbatch]);
	else if (rb[0] != rd[nbatch + 1])
		what = arena_printf(&c->arena, "B has N_repeat %lld, D has "
				    "%lld", (long long)rb[0],
				    (long long)rd[nbatch + 1]);
	else if (ra[1] != rb[1])
		what = arena_printf(&c->arena, "A has K_repeat %lld, B has "
				    "%lld", (long long)ra[1], (long long)rb[1]);
	if (what)
		return diag_error(c, PT_E_MMA_REPEAT, tc->span,
				  "%s: mismatched repeats: %s",
				  tc->inst.spelling, what);
	tc->count = tile_repeat_count(tc) * ra[1];
	return true;
}

static bool
check_scalar_c(TileEnv *e, TileCall *tc)
{
	for (int i = OP_D; i <= OP_B; i++)
		if (tc->ops[i].scalar)
			return diag_error(e->c, PT_E_MMA_SCALAR,
					  tc->ops[i].span,
					  "operand %s of %s is a scalar "
					  "expression; only C may be a scalar "
					  "broadcast", op_names[i],
					  tc->inst.spelling);
	const TileOperand *cop = &tc->ops[OP_C];
	if (cop->scalar && dtype_kind(cop->dtype) != DK_FLOAT &&
	    cop->expr->kind != EX_INT)
		return diag_error(e->c, PT_E_MMA_DTYPE, cop->span,
				  "scalar C of %s is %s; the accumulator is "
				  "float32", tc->inst.spelling,
				  dtype_name(cop->dtype));
	return true;
}

/* Row-major index of coordinate (b, p, q) over extents (batch, P, Q). */
static int64_t
rep_index(const int64_t *ext, int nbatch, int64_t b, int64_t p, int64_t q)
{
	return (b * ext[nbatch] + p) * ext[nbatch + 1] + q;
}

static Expr *
scalar_f32(Ctx *c, Expr *x, Span sp)
{
	if (x->dtype == DT_FLOAT32)
		return x;
	Expr *v = ir_new_expr(c, EX_CAST, ET_SCALAR, DT_FLOAT32, sp);
	v->u.op.a = x;
	return v;
}

static void
push_regs(Ctx *c, ExprVec *args, const TileCall *tc, const TileOperand *op,
	  int64_t r, Span sp)
{
	for (int a = 0; a < op->natom; a++)
		vec_push(&c->arena, args, tile_reg_ref(c, tc, op, r, a, sp));
}

static void
lower_mma(Ctx *c, const TileCall *tc, Block *out)
{
	Span sp = tc->span;
	const TileOperand *d = &tc->ops[OP_D], *a = &tc->ops[OP_A];
	const TileOperand *b = &tc->ops[OP_B], *cc = &tc->ops[OP_C];
	int nbatch = tc->nrepeat - 2;
	const int64_t *rd = repeats(tc, d), *ra = repeats(tc, a);
	const int64_t *rb = repeats(tc, b);
	int64_t nb = 1;
	for (int i = 0; i < nbatch; i++)
		nb *= rd[i];
	int64_t M = rd[nbatch], N = rd[nbatch + 1], K = ra[nbatch + 1];
	for (int64_t bi = 0; bi < nb; bi++)
		for (int64_t m = 0; m < M; m++)
			for (int64_t n = 0; n < N; n++)
				for (int64_t k = 0; k < K; k++) {
					ExprVec argv = {0}, *args = &argv;
					int64_t rdi = rep_index(rd, nbatch, bi,
								m, n);
					push_regs(c, args, tc, d, rdi, sp);
					push_regs(c, args, tc, a,
						  rep_index(ra, nbatch, bi, m,
							    k), sp);
					push_regs(c, args, tc, b,
						  rep_index(rb, nbatch, bi, n,
							    k), sp);
					if (k > 0)
						push_regs(c, args, tc, d, rdi,
							  sp);
					else if (cc->scalar)
						for (int j = 0; j < 4; j++)
							vec_push(&c->arena, args,
								 scalar_f32(c,
									    cc->expr,
									    sp));
					else
						push_regs(c, args, tc, cc, rdi,
							  sp);
					/* mma.sync is issued unpredicated */
					Expr *p = ir_ptx_issue(c, &tc->inst,
							       argv, NULL, sp);
					Stmt *s = ir_new_stmt(c, ST_EVAL, sp);
					s->u.value = p;
					vec_push(&c->arena, out, s);
				}
}

bool
tile_check_mma_sync(TileEnv *e, TileCall *tc)
{
	int k = 0;
	if (!check_form(e, tc, &k) || !check_scalar_c(e, tc) ||
	    !tile_select_form(e, tc, 0) ||
	    !ptx_check_target(e->c, &tc->inst, tc->span) ||
	    !tile_warp_collective(e, tc))
		return false;
	static const TileLaneMap maps[] = {map_d, map_a, map_b, map_d};
	int regs[] = {4, k / 4, k / 8, 4};
	for (int i = 0; i < 4; i++) {
		TileOperand *op = &tc->ops[i];
		op->role = ROLE_REG;
		op->out = i == OP_D;
		op->ptx_op = i;
		if (op->scalar)
			continue;
		op->atom_axes = 2;
		if (op->root->scope != MS_LOCAL)
			return diag_error(e->c, PT_E_TILE_NOT_REGISTER,
					  op->span,
					  "operand %s (%s) must be local "
					  "registers, but %s is %s memory",
					  op_names[i], op->root->name,
					  op->root->name,
					  memscope_name(op->root->scope));
		if (!check_atom(e, tc, op, i, k))
			return false;
	}
	/* D sets the call's repeats (batch..., M, N) */
	TileOperand *d = &tc->ops[OP_D];
	d->natom = 4;
	if (!tile_shape_operand(e, tc, d) ||
	    !check_repeats(e, tc, tc->nrepeat - 2))
		return false;
	for (int i = 0; i < 4; i++)
		if (!tc->ops[i].scalar &&
		    !tile_collective_slots(e, tc, &tc->ops[i], 2, regs[i],
					   maps[i], NULL, PT_E_MMA_OWNER))
			return false;
	tc->lower = lower_mma;
	return tile_check_overlap(e, tc);
}
