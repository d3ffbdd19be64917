/*
 * wgmma.c - warpgroup MMA, wgmma.mma_async.sync.aligned.m64nNkK on
 * sm_90a (PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-
 * Accumulate"; the Hopper sibling of tcgen05_mma.c).
 *
 * scope="warpgroup": the 4 warps x 32 lanes of a warpgroup issue each
 * instruction together.  Operands (the leading 4 is the warp in the
 * warpgroup, the group axis the register fragments keep):
 *   D  (4, M_rep, N_rep, 16, N)    float32 / int32 accumulators, or
 *      (4, M_rep, N_rep, 16, N/2)  32-bit containers of two float16
 *   A  (M_rep, K_rep, 64, K)       shared: a matrix descriptor, or
 *      (4, M_rep, K_rep, 16, 8)    32-bit registers (the A fragment)
 *   B  (N_rep, K_rep, N, K)        shared: a matrix descriptor
 * Warp w holds rows 16w..16w+15 of the 64-row tile.  In its slab lane
 * l's 32-bit accumulator r is (l/4 + 8((r/2)%2), 8(r/4) + 2(l%4) + r%2);
 * a 32-bit container r (register A, float16 D) is (l/4 + 8(r%2),
 * l%4 + 4(r/2)) in container columns.  The layout must place each in
 * that warp and lane, at one slot for all threads.
 * Shared operands: the descriptor is extracted from the view by
 * descriptors.c (modes none/32B/64B/128B), encoded for sm_90.  The
 * major order is read from the layout: K-major when K neighbours are
 * adjacent elements, MN-major when M/N neighbours are; MN-major sets
 * imm-trans and is legal for 16-bit inputs only.
 * Params: accum (scale-d of the first K repeat, a runtime predicate;
 * default False), negate_a / negate_b (imm-scale -1; float forms only).
 * Output (lower hook): a mov of each shared storage address, then
 * M_rep, N_rep, K_rep in that order, one wgmma each; K repeats after
 * the first always accumulate.  Nothing else is inserted: the kernel
 * writes wgmma.fence / commit_group / wait_group itself.
 */
#include <string.h>

#include "tile/tile.h"
#include "tile/descriptors.h"

enum { OP_D, OP_A, OP_B };

static const char *const op_names[] = {"D", "A", "B"};

static const struct {
	const char *ptx;
	DType dt, alt;      /* shared element types accepted */
	int bits;
	bool integer;
} in_types[] = {
	{"f16", DT_FLOAT16, DT_FLOAT16, 16, false},
	{"bf16", DT_BFLOAT16, DT_BFLOAT16, 16, false},
	{"tf32", DT_TF32, DT_FLOAT32, 32, false},
	{"e4m3", DT_E4M3, DT_E4M3, 8, false},
	{"e5m2", DT_E5M2, DT_E5M2, 8, false},
	{"s8", DT_INT8, DT_INT8, 8, true},
	{"u8", DT_UINT8, DT_UINT8, 8, true},
};

enum { ACC_F32, ACC_F16, ACC_S32 };

typedef struct WgCall {
	int n, k;
	int acc;
	int ta, tb;         /* rows of in_types */
	bool a_reg, a_mn, b_mn;
	int64_t mr, nr, kr;
	int nd;             /* D registers per repeat */
	TileDesc a, b;
} WgCall;

static const char *const mode_names[] = {"none", "32B", "64B", "128B"};

/* D, 32-bit accumulators: (l/4 + 8((r/2)%2), 8(r/4) + 2(l%4) + r%2). */
static void
map_acc(const void *arg, int l, int r, int64_t *x)
{
	(void)arg;
	x[0] = l / 4 + 8 * ((r / 2) % 2);
	x[1] = 8 * (r / 4) + 2 * (l % 4) + r % 2;
}

/* 32-bit containers (register A, float16 D pairs). */
static void
map_pair(const void *arg, int l, int r, int64_t *x)
{
	(void)arg;
	x[0] = l / 4 + 8 * (r % 2);
	x[1] = l % 4 + 4 * (r / 2);
}

static int
in_type(const char *s, size_t n)
{
	for (size_t i = 0; i < countof(in_types); i++)
		if (strlen(in_types[i].ptx) == n &&
		    strncmp(in_types[i].ptx, s, n) == 0)
			return (int)i;
	return -1;
}

/* The last qualifiers of the spelling: .dtype.atype.btype; the shape
 * .m64nNkK comes from the selection.  The form table accepted the
 * spelling, so they exist. */
static void
parse_spelling(const PtxInst *in, WgCall *w)
{
	const char *s = in->spelling;
	const char *q[3] = {NULL, NULL, NULL};
	size_t len[3] = {0, 0, 0};
	const char *end = s + strlen(s);
	for (int i = 2; i >= 0; i--) {
		const char *p = end;
		while (p > s && p[-1] != '.')
			p--;
		q[i] = p;
		len[i] = (size_t)(end - p);
		end = p > s ? p - 1 : p;
	}
	w->acc = strncmp(q[0], "f32", 3) == 0   ? ACC_F32
		 : strncmp(q[0], "f16", 3) == 0 ? ACC_F16
						: ACC_S32;
	w->ta = in_type(q[1], len[1]);
	w->tb = in_type(q[2], len[2]);
	w->n = in->shape_m == 64 ? in->shape_n : 0;
	w->k = in->shape_m == 64 ? in->shape_k : 0;
}

static bool
check_form(TileEnv *e, TileCall *tc, WgCall *w)
{
	Ctx *c = e->c;
	if (tc->scope != ES_WARPGROUP)
		return diag_error(c, PT_E_WGMMA_SCOPE, tc->span,
				  "%s is issued by a whole warpgroup: call it "
				  "with scope=\"warpgroup\", found scope=\"%s\"",
				  tc->inst.spelling, execscope_name(tc->scope));
	if (tc->nops != 3)
		return diag_error(c, PT_E_WGMMA_OPERANDS, tc->span,
				  "%s takes 3 tile operands (D, A, B), found "
				  "%d", tc->inst.spelling, tc->nops);
	for (int i = 0; i < 3; i++)
		if (tc->ops[i].scalar)
			return diag_error(c, PT_E_WGMMA_OPERANDS,
					  tc->ops[i].span,
					  "operand %s of %s must be a tensor, "
					  "found a scalar", op_names[i],
					  tc->inst.spelling);
	parse_spelling(&tc->inst, w);
	PT_ASSERT(w->ta >= 0 && w->tb >= 0 && w->n > 0);
	w->nd = w->acc == ACC_F16 ? w->n / 4 : w->n / 2;
	if (!tile_warp_collective(e, tc))
		return false;
	const GroupAxis *g = &tc->group[0];
	if (tc->ngroup != 1 || g->kind != GK_WARP_IN_WG || g->lo != 0 ||
	    g->ext != 4)
		return diag_error(c, PT_E_WGMMA_SCOPE, tc->span,
				  "%s needs all 4 warps of the warpgroup, but "
				  "only warps %lld..%lld are active here",
				  tc->inst.spelling, (long long)g->lo,
				  (long long)(g->lo + g->ext - 1));
	/* .aligned: all warps of each issuing warpgroup.  A warp range
	 * across a warpgroup boundary (warps 3..4) gives the group the
	 * hull 0..3 of its warp-in-group ids, yet leaves both warpgroups
	 * partial. */
	if (e->warp_lo % 4 != 0 || (e->warp_hi + 1) % 4 != 0)
		return diag_error(c, PT_E_WGMMA_SCOPE, tc->span,
				  "%s needs all 4 warps of each warpgroup that "
				  "issues it, but warps %lld..%lld are active "
				  "here (a warpgroup is warps 4k..4k+3)",
				  tc->inst.spelling, (long long)e->warp_lo,
				  (long long)e->warp_hi);
	if (in_types[w->ta].integer &&
	    (tc->param[TP_NEGATE_A] || tc->param[TP_NEGATE_B]))
		return diag_error(c, PT_E_WGMMA_NEGATE, tc->span,
				  "%s: integer wgmma has no imm-scale; "
				  "negate_a/negate_b apply to float inputs only",
				  tc->inst.spelling);
	return true;
}

static bool
check_d(TileEnv *e, TileCall *tc, WgCall *w)
{
	Ctx *c = e->c;
	TileOperand *op = &tc->ops[OP_D];
	if (op->root->scope != MS_LOCAL)
		return diag_error(c, PT_E_TILE_NOT_REGISTER, op->span,
				  "operand D (%s) must be local registers, "
				  "found %s memory", op->root->name,
				  memscope_name(op->root->scope));
	static const char *const want[] = {
		"float32", "uint32 containers of two float16", "int32"};
	bool ok = w->acc == ACC_F32   ? op->dtype == DT_FLOAT32
		  : w->acc == ACC_S32 ? op->dtype == DT_INT32
				      : op->bits == 32 &&
						dtype_kind(op->dtype) != DK_FLOAT;
	if (!ok)
		return diag_error(c, PT_E_WGMMA_D_DTYPE, op->span,
				  "operand D (%s) is %s; %s accumulates in %s",
				  op->root->name, dtype_name(op->dtype),
				  tc->inst.spelling, want[w->acc]);
	int64_t cols = w->acc == ACC_F16 ? w->n / 2 : w->n;
	if (op->rank != 5 || op->ext[3] != 16 || op->ext[4] != cols)
		return diag_error(c, PT_E_WGMMA_D_SHAPE, op->span,
				  "operand D (%s) has shape %s; %s needs (4, "
				  "M_rep, N_rep, 16, %lld): warp w of the "
				  "warpgroup holds rows 16w..16w+15",
				  op->root->name,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  tc->inst.spelling, (long long)cols);
	w->mr = op->ext[1];
	w->nr = op->ext[2];
	return tile_collective_slots(e, tc, op, 2, w->nd,
				     w->acc == ACC_F16 ? map_pair : map_acc,
				     NULL, PT_E_WGMMA_D_OWNER);
}

/* K-major when K neighbours are adjacent elements, MN-major when M/N
 * neighbours are (the walk check then reports anything else). */
static bool
is_mn_major(TileEnv *e, const TileOperand *op)
{
	int nr = op->rank - 2;
	int64_t *x = NEWN(&e->c->arena, int64_t, op->rank + 1);
	Lin ax[AX_COUNT];
	view_phys_lin(&e->st, op->view, x, 0, ax);
	Lin m00 = ax[AX_M];
	x[nr + 1] = 1;
	view_phys_lin(&e->st, op->view, x, 0, ax);
	Lin dk = lin_sub(&e->st, ax[AX_M], m00);
	x[nr + 1] = 0;
	x[nr] = 1;
	view_phys_lin(&e->st, op->view, x, 0, ax);
	Lin dm = lin_sub(&e->st, ax[AX_M], m00);
	bool k_adj = lin_is_const(dk) && dk.c0 == 1;
	return !k_adj && lin_is_const(dm) && dm.c0 == 1;
}

static bool
check_shared(TileEnv *e, TileCall *tc, WgCall *w, int i)
{
	Ctx *c = e->c;
	static const DescMode modes[] = {DESC_NONE, DESC_SW32, DESC_SW64,
					 DESC_SW128};
	TileOperand *op = &tc->ops[i];
	int t = i == OP_A ? w->ta : w->tb;
	int64_t rows = i == OP_A ? 64 : w->n;
	if (op->rank != 4 || op->ext[2] != rows || op->ext[3] != w->k)
		return diag_error(c, PT_E_WGMMA_AB_SHAPE, op->span,
				  "operand %s (%s) has shape %s; %s reads it "
				  "from shared memory as (%s, %lld, %d)",
				  op_names[i], op->root->name,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  tc->inst.spelling,
				  i == OP_A ? "M_rep, K_rep" : "N_rep, K_rep",
				  (long long)rows, w->k);
	/* the descriptor walk visits every element of every repeat */
	int64_t n = 0;
	if (__builtin_mul_overflow(op->ext[0], op->ext[1], &n) ||
	    __builtin_mul_overflow(n, rows * w->k, &n) ||
	    n > TILE_MAX_COORDS)
		return diag_error(c, PT_E_TILE_TOO_LARGE, op->span,
				  "operand %s (%s) has shape %s: more than %d "
				  "elements to check", op_names[i],
				  op->root->name,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  TILE_MAX_COORDS);
	if (op->dtype != in_types[t].dt && op->dtype != in_types[t].alt)
		return diag_error(c, PT_E_WGMMA_AB_DTYPE, op->span,
				  "operand %s (%s) is %s; %s reads .%s "
				  "elements (%s)", op_names[i], op->root->name,
				  dtype_name(op->dtype), tc->inst.spelling,
				  in_types[t].ptx, dtype_name(in_types[t].dt));
	bool mn = is_mn_major(e, op);
	if (mn && in_types[t].bits != 16)
		return diag_error(c, PT_E_WGMMA_MAJOR, op->span,
				  "operand %s (%s) is MN-major (its M/N "
				  "neighbours are adjacent); %s transposes only "
				  "16-bit inputs, .%s must be K-major",
				  op_names[i], op->root->name,
				  tc->inst.spelling, in_types[t].ptx);
	TileDesc *d = i == OP_A ? &w->a : &w->b;
	if (!tile_desc_operand(e, op, mn ? DESC_WALK_MN : DESC_WALK_K, mn,
			       modes, 4, d))
		return false;
	tile_desc_to_sm90(d);
	if (i == OP_A)
		w->a_mn = mn;
	else
		w->b_mn = mn;
	op->role = ROLE_MEM;
	op->atom_axes = 2;
	op->no_group = true;
	return true;
}

static bool
check_a_regs(TileEnv *e, TileCall *tc, WgCall *w)
{
	Ctx *c = e->c;
	TileOperand *op = &tc->ops[OP_A];
	if (op->rank != 5 || op->ext[3] != 16 || op->ext[4] != 8)
		return diag_error(c, PT_E_WGMMA_AB_SHAPE, op->span,
				  "operand A (%s) has shape %s; register A of "
				  "%s is (4, M_rep, K_rep, 16, 8) in 32-bit "
				  "containers", op->root->name,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  tc->inst.spelling);
	if (op->bits != 32)
		return diag_error(c, PT_E_WGMMA_AB_DTYPE, op->span,
				  "operand A (%s) is %s; register A holds "
				  "32-bit containers (use a uint32 view)",
				  op->root->name, dtype_name(op->dtype));
	w->a_reg = true;
	return tile_collective_slots(e, tc, op, 2, 4, map_pair, NULL,
				     PT_E_WGMMA_A_OWNER);
}

static bool
check_repeats(TileEnv *e, TileCall *tc, WgCall *w)
{
	const TileOperand *a = &tc->ops[OP_A], *b = &tc->ops[OP_B];
	int ra = w->a_reg ? 1 : 0;
	int64_t am = a->ext[ra], ak = a->ext[ra + 1];
	w->kr = ak;
	if (am == w->mr && b->ext[0] == w->nr && b->ext[1] == ak)
		return true;
	return diag_error(e->c, PT_E_WGMMA_REPEAT, tc->span,
			  "repeats disagree: D (M_rep, N_rep) = (%lld, %lld), "
			  "A (M_rep, K_rep) = (%lld, %lld), B (N_rep, K_rep) "
			  "= (%lld, %lld)", (long long)w->mr,
			  (long long)w->nr, (long long)am, (long long)ak,
			  (long long)b->ext[0], (long long)b->ext[1]);
}

static bool
select_row(TileEnv *e, TileCall *tc, const WgCall *w)
{
	PtxArg args[8];
	int n = 0;
	bool fp = !in_types[w->ta].integer, trans = in_types[w->ta].bits == 16;
	args[n++] = (PtxArg){.kind = PTXOP_VEC, .bits = 32, .vec = w->nd};
	args[n++] = w->a_reg
		? (PtxArg){.kind = PTXOP_VEC, .bits = 32, .vec = 4}
		: (PtxArg){.kind = PTXOP_REG, .bits = 64};
	args[n++] = (PtxArg){.kind = PTXOP_REG, .bits = 64};
	args[n++] = (PtxArg){.kind = PTXOP_PRED};
	for (int i = 0; fp && i < 2; i++)
		args[n++] = (PtxArg){.kind = PTXOP_IMM, .has_value = true,
				     .value = 1};
	if (trans && !w->a_reg)
		args[n++] = (PtxArg){.kind = PTXOP_IMM, .has_value = true,
				     .value = w->a_mn};
	if (trans)
		args[n++] = (PtxArg){.kind = PTXOP_IMM, .has_value = true,
				     .value = w->b_mn};
	return tile_select_form_args(e, tc, args, n);
}

static void
note_desc(StrBuf *b, const char *name, const TileDesc *d, bool mn)
{
	sb_printf(b, "  %s descriptor (sm_90): %s-major, swizzle %s, LBO %lld "
		  "B, SBO %lld B, base offset 0, layout type %llu; high bits "
		  "0x%016llx | (address >> 4)", name, mn ? "MN" : "K",
		  mode_names[d->mode], (long long)d->lbo, (long long)d->sbo,
		  (unsigned long long)(d->hi[0] >> 62),
		  (unsigned long long)d->hi[0]);
	sb_puts(b, "; repeat starts +");
	for (int64_t r = 0; r < d->nrep && r < 8; r++)
		sb_printf(b, r ? ", %lld" : "%lld", (long long)d->start[r]);
	sb_puts(b, d->nrep > 8 ? ", ... bytes\n" : " bytes\n");
}

static const char *
make_note(Ctx *c, const WgCall *w)
{
	StrBuf b;
	sb_init(&b, &c->arena);
	if (w->a_reg)
		sb_puts(&b, "  A: registers, 4 per thread per repeat\n");
	else
		note_desc(&b, "A", &w->a, w->a_mn);
	note_desc(&b, "B", &w->b, w->b_mn);
	sb_printf(&b, "  D: %d registers per thread per repeat; repeats "
		  "(M, N, K) = (%lld, %lld, %lld)\n", w->nd, (long long)w->mr,
		  (long long)w->nr, (long long)w->kr);
	return sb_cstr(&b);
}

static void
push_regs(Ctx *c, ExprVec *args, const TileCall *tc, const TileOperand *op,
	  int64_t r, Span sp)
{
	for (int a = 0; a < op->natom; a++)
		vec_push(&c->arena, args, tile_reg_ref(c, tc, op, r, a, sp));
}

static bool
static_true(const TileCall *tc, int id)
{
	int64_t v = 0;
	return tc->param[id] && ir_const_int(tc->param[id], &v) && v;
}

static void
lower_wgmma(Ctx *c, const TileCall *tc, Block *out)
{
	const WgCall *w = tc->fam_data;
	Span sp = tc->span;
	Expr *base_a = w->a_reg ? NULL
				: tile_desc_base(c, tc, &tc->ops[OP_A], out);
	Expr *base_b = tile_desc_base(c, tc, &tc->ops[OP_B], out);
	Expr *first = tc->param[TP_ACCUM] ? tc->param[TP_ACCUM]
					  : ir_bool(c, false, sp);
	bool fp = !in_types[w->ta].integer, trans = in_types[w->ta].bits == 16;
	int sa = static_true(tc, TP_NEGATE_A) ? -1 : 1;
	int sb = static_true(tc, TP_NEGATE_B) ? -1 : 1;
	for (int64_t m = 0; m < w->mr; m++)
		for (int64_t n = 0; n < w->nr; n++)
			for (int64_t k = 0; k < w->kr; k++) {
				ExprVec argv = {0}, *args = &argv;
				push_regs(c, args, tc, &tc->ops[OP_D],
					  m * w->nr + n, sp);
				if (w->a_reg)
					push_regs(c, args, tc, &tc->ops[OP_A],
						  m * w->kr + k, sp);
				else
					vec_push(&c->arena, args,
						 tile_desc_value(c, &w->a,
								 m * w->kr + k,
								 base_a));
				vec_push(&c->arena, args,
					 tile_desc_value(c, &w->b,
							 n * w->kr + k, base_b));
				vec_push(&c->arena, args,
					 k == 0 ? first : ir_bool(c, true, sp));
				if (fp) {
					vec_push(&c->arena, args,
						 ir_int(c, sa, DT_INT32, sp));
					vec_push(&c->arena, args,
						 ir_int(c, sb, DT_INT32, sp));
				}
				if (trans && !w->a_reg)
					vec_push(&c->arena, args,
						 ir_int(c, w->a_mn, DT_INT32,
							sp));
				if (trans)
					vec_push(&c->arena, args,
						 ir_int(c, w->b_mn, DT_INT32,
							sp));
				/* the row of the call's A source (smem
				 * descriptor or registers), chosen by the
				 * checker (select_row) */
				Expr *p = ir_ptx_issue(c, &tc->inst, argv,
						       tc->pred, sp);
				Stmt *s = ir_new_stmt(c, ST_EVAL, sp);
				s->u.value = p;
				vec_push(&c->arena, out, s);
			}
}

bool
tile_check_wgmma(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	WgCall *w = NEW(&c->arena, WgCall);
	if (!check_form(e, tc, w) || !check_d(e, tc, w))
		return false;
	TileOperand *a = &tc->ops[OP_A];
	bool a_shared = a->root->scope == MS_SHARED ||
			a->root->scope == MS_SHARED_DYN;
	if (!a_shared && a->root->scope != MS_LOCAL)
		return diag_error(c, PT_E_WGMMA_A_SPACE, a->span,
				  "operand A (%s) is %s memory; %s reads A from "
				  "shared memory (a descriptor) or registers",
				  a->root->name, memscope_name(a->root->scope),
				  tc->inst.spelling);
	if (!(a_shared ? check_shared(e, tc, w, OP_A)
		       : check_a_regs(e, tc, w)) ||
	    !check_shared(e, tc, w, OP_B) || !check_repeats(e, tc, w) ||
	    !select_row(e, tc, w))
		return false;
	for (int i = 0; i < 3; i++)
		tc->ops[i].ptx_op = i;
	tc->ops[OP_D].role = ROLE_REG;
	tc->ops[OP_D].out = true;
	if (w->a_reg)
		a->role = ROLE_REG;
	tc->fam_data = w;
	tc->count = w->mr * w->nr * w->kr;
	tc->note = make_note(c, w);
	tc->lower = lower_wgmma;
	/* D, register A (4) or A's descriptor (2), B's descriptor (2) */
	int64_t regs = w->nd + (w->a_reg ? 4 : 2) + 2;
	return tile_check_register_budget(e, tc, regs) &&
	       tile_check_overlap(e, tc);
}
