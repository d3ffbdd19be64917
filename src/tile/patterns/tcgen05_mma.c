/*
 * tcgen05_mma.c - Tensor Core MMA, tcgen05.mma.cta_group::1.kind::{f16,
 * tf32,f8f6f4,i8} with D in TMEM and A, B as shared matrix descriptors
 * (reference "Tensor Core matrix multiply-accumulate").
 *
 * Operands D, A, B after an optional batch prefix (scope="thread": one
 * thread issues):
 *   D (M_rep, N_rep, M, N)  TMEM, one accumulator per 32-bit cell
 *   A (M_rep, K_rep, M, K)  shared
 *   B (N_rep, K_rep, N, K)  shared
 * instruction_shape=(M, N, K) is required; a_major/b_major ("k"/"mn"),
 * a_format/b_format (default: the tensor dtype; "tf32" explicitly over
 * float32), neg_a/neg_b/sat_d go into the 32-bit instruction descriptor
 * (descriptors.c).  D's lanes follow the M128 (lane = m) or M64 (lane =
 * 32*(m/16) + m%16, origin lane 0 or 16) datapath, its columns are
 * consecutive cells.  A/B must be shared descriptor images (K-major:
 * rows enumerate M/N; MN-major: rows enumerate K; 32-bit MN-major uses
 * mode 4 only).
 * Output (lower hook): a mov of each shared storage address, then batch,
 * M_rep, N_rep, K_rep in that order, one MMA each with enable-input-d =
 * accum (False when absent) on K repeat 0 and true after.  No election,
 * commit, wait or fence is inserted.  Not yet: cta_group::2, A in TMEM,
 * .ws (no form row), .block_scale kinds (E8159).
 */
#include <string.h>

#include "tile/tile.h"
#include "tile/descriptors.h"

enum { OP_D, OP_A, OP_B };

static const char *const op_names[] = {"D", "A", "B"};

static const struct {
	const char *qual;
	UmmaKind kind;
	int bits;          /* A/B storage bits */
} kinds[] = {
	{".kind::f16", UMMA_F16, 16},
	{".kind::tf32", UMMA_TF32, 32},
	{".kind::f8f6f4", UMMA_F8F6F4, 8},
	{".kind::i8", UMMA_I8, 8},
};

typedef struct MmaCall {
	int kind;             /* row of kinds[] */
	int m, n, k;
	bool a_mn, b_mn;
	uint32_t idesc;
	int nbatch;
	int64_t nb, mr, nr, kr;
	int64_t *d_lane;      /* per (batch, m_rep, n_rep) */
	Expr **d_col;
	TileDesc a, b;
} MmaCall;

static bool
static_bool(const TileCall *tc, int id)
{
	int64_t v = 0;
	return tc->param[id] && ir_const_int(tc->param[id], &v) && v;
}

static bool
check_form(TileEnv *e, TileCall *tc, MmaCall *mc)
{
	Ctx *c = e->c;
	if (tc->scope != ES_THREAD)
		return diag_error(c, PT_E_TC05_SCOPE, tc->span,
				  "%s is issued by one thread: call it with "
				  "scope=\"thread\" under your own election, "
				  "found scope=\"%s\"", tc->inst.spelling,
				  execscope_name(tc->scope));
	mc->kind = -1;
	for (size_t i = 0; i < countof(kinds); i++)
		if (ptx_inst_has(&tc->inst, kinds[i].qual))
			mc->kind = (int)i;
	if (mc->kind < 0 || ptx_inst_has(&tc->inst, ".block_scale"))
		return diag_error(c, PT_E_MMA_UNSUPPORTED, tc->span,
				  "%s: block-scaled kinds are not supported by "
				  "the tile pattern yet (dense .kind::f16, tf32, "
				  "f8f6f4, i8 are)", tc->inst.spelling);
	if (ptx_inst_has(&tc->inst, ".cta_group::2"))
		return diag_error(c, PT_E_MMA_UNSUPPORTED, tc->span,
				  "%s: .cta_group::2 is not supported by the "
				  "tile pattern yet (use .cta_group::1)",
				  tc->inst.spelling);
	if (tc->nops != 3)
		return diag_error(c, PT_E_MMA_OPERANDS, tc->span,
				  "%s takes 3 tile operands (D, A, B), found "
				  "%d", tc->inst.spelling, tc->nops);
	return ptx_check_target(c, &tc->inst, tc->span);
}

static bool
check_instr_shape(TileEnv *e, TileCall *tc, MmaCall *mc)
{
	Ctx *c = e->c;
	const Expr *s = tc->param[TP_INSTRUCTION_SHAPE];
	int64_t v[3];
	if (!s || s->u.tuple.n != 3)
		return diag_error(c, PT_E_MMA_INSTR_SHAPE, tc->span,
				  "%s needs instruction_shape=(M, N, K)",
				  tc->inst.spelling);
	for (int i = 0; i < 3; i++)
		ir_const_int(s->u.tuple.v[i], &v[i]);
	UmmaKind k = kinds[mc->kind].kind;
	int want_k = desc_umma_k(k);
	if (v[0] > 256 || v[1] > 256 || v[2] != want_k ||
	    !desc_umma_shape_ok(k, 1, (int)v[0], (int)v[1]))
		return diag_error(c, PT_E_MMA_SHAPE, s->span.file ? s->span
								  : tc->span,
				  "instruction_shape (%lld, %lld, %lld) is not "
				  "a legal dense .cta_group::1 %s shape (M 64 "
				  "or 128, N a multiple of %s up to 256, K %d; "
				  "PTX Table 39)", (long long)v[0],
				  (long long)v[1], (long long)v[2],
				  kinds[mc->kind].qual + 1,
				  k == UMMA_I8 ? "8 up to 32, then of 16"
					       : "8 from 8", want_k);
	mc->m = (int)v[0];
	mc->n = (int)v[1];
	mc->k = (int)v[2];
	return true;
}

static bool
major_of(TileEnv *e, TileCall *tc, int id, const char *what, bool *mn)
{
	const Expr *x = tc->param[id];
	*mn = false;
	if (!x || strcmp(x->u.str, "k") == 0)
		return true;
	if (strcmp(x->u.str, "mn") == 0) {
		*mn = true;
		return true;
	}
	return diag_error(e->c, PT_E_MMA_MAJOR, x->span.file ? x->span
							      : tc->span,
			  "%s must be \"k\" or \"mn\", found \"%s\"", what,
			  x->u.str);
}

/* Format code of operand i (A or B); storage width and major checked. */
static bool
format_of(TileEnv *e, TileCall *tc, MmaCall *mc, int i, int *code)
{
	Ctx *c = e->c;
	TileOperand *op = &tc->ops[i];
	const Expr *x = tc->param[i == OP_A ? TP_A_FORMAT : TP_B_FORMAT];
	const char *name = x ? x->u.str : dtype_name(op->dtype);
	UmmaKind k = kinds[mc->kind].kind;
	*code = desc_umma_format(k, name);
	if (*code < 0)
		return diag_error(c, PT_E_MMA_FORMAT, op->span,
				  "operand %s: format %s is not an input "
				  "format of %s%s", op_names[i], name,
				  kinds[mc->kind].qual + 1,
				  k == UMMA_TF32 && !x
					  ? " (pass a_format/b_format=\"tf32\" "
					    "for float32 storage)"
					  : "");
	if (op->bits != kinds[mc->kind].bits)
		return diag_error(c, PT_E_MMA_FORMAT, op->span,
				  "operand %s (%s) has %d-bit storage; %s "
				  "reads %d-bit elements from shared memory",
				  op_names[i], op->root->name, op->bits,
				  kinds[mc->kind].qual + 1,
				  kinds[mc->kind].bits);
	bool mn = i == OP_A ? mc->a_mn : mc->b_mn;
	if (mn && k == UMMA_F8F6F4 && *code >= 3)
		return diag_error(c, PT_E_MMA_MAJOR, op->span,
				  "operand %s: %s (FP6/FP4) must be K-major",
				  op_names[i], name);
	return true;
}

static bool
check_idesc(TileEnv *e, TileCall *tc, MmaCall *mc)
{
	Ctx *c = e->c;
	if (!major_of(e, tc, TP_A_MAJOR, "a_major", &mc->a_mn) ||
	    !major_of(e, tc, TP_B_MAJOR, "b_major", &mc->b_mn))
		return false;
	Idesc d = {0};
	d.kind = kinds[mc->kind].kind;
	if (!format_of(e, tc, mc, OP_A, &d.a_fmt) ||
	    !format_of(e, tc, mc, OP_B, &d.b_fmt))
		return false;
	const TileOperand *dd = &tc->ops[OP_D];
	DType t = dd->dtype;
	d.d_fmt = -1;
	switch (d.kind) {
	case UMMA_F16:
		if (t == DT_FLOAT32)
			d.d_fmt = 1;
		else if (t == DT_FLOAT16 && d.a_fmt == 0 && d.b_fmt == 0)
			d.d_fmt = 0;
		break;
	case UMMA_TF32:
		d.d_fmt = t == DT_FLOAT32 ? 1 : -1;
		break;
	case UMMA_F8F6F4:
		d.d_fmt = t == DT_FLOAT32 ? 1 : t == DT_FLOAT16 ? 0 : -1;
		break;
	default:
		d.d_fmt = t == DT_INT32 ? 2 : -1;
		break;
	}
	if (d.d_fmt < 0)
		return diag_error(c, PT_E_MMA_D_DTYPE, dd->span,
				  "operand D (%s) is %s; %s accumulates in "
				  "%s", dd->root->name, dtype_name(t),
				  kinds[mc->kind].qual + 1,
				  d.kind == UMMA_I8 ? "int32"
				  : d.kind == UMMA_TF32 ? "float32"
				  : "float32 (or float16 with float16 "
				    "inputs)");
	d.neg_a = static_bool(tc, TP_NEG_A);
	d.neg_b = static_bool(tc, TP_NEG_B);
	d.sat = static_bool(tc, TP_SAT_D);
	if (d.kind == UMMA_I8 && (d.neg_a || d.neg_b))
		return diag_error(c, PT_E_MMA_FLAGS, tc->span,
				  "neg_a/neg_b are not valid for .kind::i8");
	if (d.kind != UMMA_I8 && d.sat)
		return diag_error(c, PT_E_MMA_FLAGS, tc->span,
				  "sat_d is valid only for .kind::i8");
	const Expr *mask = tc->param[TP_DISABLE_OUTPUT_LANE];
	if (mask && mask->u.tuple.n != 4)
		return diag_error(c, PT_E_MMA_DISABLE_LANE, mask->span.file
							 ? mask->span
							 : tc->span,
				  "disable_output_lane holds four mask words "
				  "per CTA (.cta_group::1), found %zu",
				  mask->u.tuple.n);
	d.a_mn = mc->a_mn;
	d.b_mn = mc->b_mn;
	d.m = mc->m;
	d.n = mc->n;
	mc->idesc = desc_idesc(&d);
	return true;
}

/* Shapes (batch..., R0, R1, X, Y) of D, A, B and their agreement. */
static bool
check_shapes(TileEnv *e, TileCall *tc, MmaCall *mc)
{
	Ctx *c = e->c;
	const int64_t atom[3][2] = {
		{mc->m, mc->n}, {mc->m, mc->k}, {mc->n, mc->k}};
	const char *atoms[] = {"(M, N)", "(M, K)", "(N, K)"};
	const char *reps[] = {"(M_rep, N_rep)", "(M_rep, K_rep)",
			      "(N_rep, K_rep)"};
	for (int i = 0; i < 3; i++) {
		TileOperand *op = &tc->ops[i];
		if (op->scalar)
			return diag_error(c, PT_E_MMA_OPERANDS, op->span,
					  "operand %s must be a tensor, found a "
					  "scalar", op_names[i]);
		if (op->rank < 4 || op->ext[op->rank - 2] != atom[i][0] ||
		    op->ext[op->rank - 1] != atom[i][1])
			return diag_error(
				c, PT_E_MMA_OPERAND_SHAPE, op->span,
				"operand %s (%s) has shape %s; it must end in "
				"%s %s = (.., %lld, %lld) after any batch axes",
				op_names[i], op->root->name,
				tile_coord_str(&c->arena, op->ext, op->rank),
				reps[i], atoms[i], (long long)atom[i][0],
				(long long)atom[i][1]);
	}
	const TileOperand *d = &tc->ops[OP_D], *a = &tc->ops[OP_A],
			  *b = &tc->ops[OP_B];
	mc->nbatch = d->rank - 4;
	mc->nb = 1;
	for (int i = 0; i < mc->nbatch; i++)
		mc->nb *= d->ext[i];
	for (int i = 1; i < 3; i++) {
		const TileOperand *op = &tc->ops[i];
		if (op->rank != d->rank ||
		    memcmp(op->ext, d->ext, sizeof(int64_t) * mc->nbatch))
			return diag_error(c, PT_E_MMA_OPERAND_SHAPE, op->span,
					  "operand %s (%s) has shape %s, but D "
					  "has %s: batch axes must agree",
					  op_names[i], op->root->name,
					  tile_coord_str(&c->arena, op->ext,
							 op->rank),
					  tile_coord_str(&c->arena, d->ext,
							 d->rank));
	}
	int nb = mc->nbatch;
	mc->mr = d->ext[nb];
	mc->nr = d->ext[nb + 1];
	mc->kr = a->ext[nb + 1];
	if (a->ext[nb] != mc->mr || b->ext[nb] != mc->nr ||
	    b->ext[nb + 1] != mc->kr)
		return diag_error(c, PT_E_MMA_OPERAND_SHAPE, tc->span,
				  "repeats disagree: D (M_rep, N_rep) = (%lld, "
				  "%lld), A (M_rep, K_rep) = (%lld, %lld), B "
				  "(N_rep, K_rep) = (%lld, %lld)",
				  (long long)mc->mr, (long long)mc->nr,
				  (long long)a->ext[nb],
				  (long long)a->ext[nb + 1],
				  (long long)b->ext[nb],
				  (long long)b->ext[nb + 1]);
	tc->nrepeat = nb + 3;
	tc->repeat = NEWN(&c->arena, int64_t, nb + 4);
	memcpy(tc->repeat, d->ext, sizeof(int64_t) * nb);
	tc->repeat[nb] = mc->mr;
	tc->repeat[nb + 1] = mc->nr;
	tc->repeat[nb + 2] = mc->kr;
	return true;
}

/* Lane of accumulator row m relative to the origin lane. */
static int64_t
d_lane(const MmaCall *mc, int64_t m)
{
	return mc->m == 64 ? 32 * (m / 16) + m % 16 : m;
}

/* D at (batch, m_rep, n_rep) index r: the datapath lanes and
 * consecutive 32-bit cells. */
static bool
check_d_repeat(TileEnv *e, TileOperand *op, MmaCall *mc, int64_t r,
	       int64_t *x)
{
	Ctx *c = e->c;
	int nr = op->rank - 2;
	const char *rep = tile_coord_str(&c->arena, x, nr);
	Lin ax[AX_COUNT], bit0 = {0};
	int64_t lane0 = 0;
	for (int64_t m = 0; m < mc->m; m++)
		for (int64_t n = 0; n < mc->n; n++) {
			x[nr] = m;
			x[nr + 1] = n;
			view_phys_lin(&e->st, op->view, x, 0, ax);
			if (!lin_is_const(ax[AX_TLANE]))
				return diag_error(c, PT_E_TMEM_LANES, op->span,
						  "operand D (%s): TMEM lane %s "
						  "is symbolic; lanes must be "
						  "static", op->root->name,
						  lin_str(&e->st,
							  ax[AX_TLANE]));
			Lin bit = lin_scale(&e->st, ax[AX_TCOL], op->bits);
			if (m == 0 && n == 0) {
				lane0 = ax[AX_TLANE].c0;
				bit0 = bit;
			}
			int64_t want = lane0 + d_lane(mc, m);
			if (ax[AX_TLANE].c0 != want)
				return diag_error(
					c, PT_E_TMEM_LANES, op->span,
					"operand D (%s) at repeat %s: row %lld "
					"is at TMEM lane %lld, the M=%d "
					"datapath puts it at lane %lld",
					op->root->name, rep, (long long)m,
					(long long)ax[AX_TLANE].c0, mc->m,
					(long long)want);
			Lin db = lin_sub(&e->st, bit, bit0);
			if (!lin_is_const(db) || db.c0 != 32 * n)
				return diag_error(
					c, PT_E_TMEM_COLS, op->span,
					"operand D (%s) at repeat %s: column "
					"%lld of row %lld is %s bits from "
					"column 0, expected one 32-bit cell per "
					"accumulator (%lld bits%s)",
					op->root->name, rep, (long long)n,
					(long long)m, lin_str(&e->st, db),
					(long long)(32 * n),
					op->bits == 16 ? "; float16 needs "
							 "TCol stride 2"
						       : "");
		}
	if ((mc->m == 128 && lane0 != 0) ||
	    (mc->m == 64 && lane0 != 0 && lane0 != 16))
		return diag_error(c, PT_E_TMEM_LANES, op->span,
				  "operand D (%s) at repeat %s starts at TMEM "
				  "lane %lld; the M=%d datapath starts at lane "
				  "%s", op->root->name, rep, (long long)lane0,
				  mc->m, mc->m == 64 ? "0 or 16" : "0");
	const char *why = NULL;
	if (!prove_multiple_of(&e->st, bit0, 32, &why))
		return diag_error(c, PT_E_TMEM_COLS, op->span,
				  "operand D (%s) at repeat %s: column origin "
				  "(%s bits) is not a whole 32-bit cell",
				  op->root->name, rep, lin_str(&e->st, bit0));
	Lin col0 = lin_floordiv(&e->st, bit0, 32);
	if (!lin_is_const(col0) &&
	    !view_prove_bounds(c, op->span, &e->st, col0, 0, 512 - mc->n,
			       "the TMEM column origin"))
		return false;
	if (lin_is_const(col0) && (col0.c0 < 0 || col0.c0 + mc->n > 512))
		return diag_error(c, PT_E_TMEM_BOUNDS, op->span,
				  "operand D (%s) at repeat %s: columns %lld.."
				  "%lld leave the 512-column TMEM",
				  op->root->name, rep, (long long)col0.c0,
				  (long long)(col0.c0 + mc->n - 1));
	mc->d_lane[r] = lane0;
	mc->d_col[r] = tile_lin_expr(e, col0, op->span);
	return true;
}

static bool
check_d(TileEnv *e, TileCall *tc, MmaCall *mc)
{
	Ctx *c = e->c;
	TileOperand *op = &tc->ops[OP_D];
	if (op->root->scope != MS_TMEM || !op->root->allocated_addr)
		return diag_error(c, PT_E_TMEM_SPACE, op->span,
				  "operand D (%s) must be tensor memory "
				  "(T.decl_buffer(..., scope=\"tmem\", "
				  "allocated_addr=...)), found %s memory",
				  op->root->name,
				  memscope_name(op->root->scope));
	if (op->bits != 32 && op->bits != 16)
		return diag_error(c, PT_E_MMA_D_DTYPE, op->span,
				  "operand D (%s) has %d-bit elements",
				  op->root->name, op->bits);
	int64_t n = mc->nb * mc->mr * mc->nr;
	mc->d_lane = NEWN(&c->arena, int64_t, n + 1);
	mc->d_col = NEWN(&c->arena, Expr *, n + 1);
	int64_t *x = NEWN(&c->arena, int64_t, op->rank + 1);
	int nr = op->rank - 2;
	for (int64_t r = 0; r < n; r++) {
		int64_t q = r;
		for (int i = nr - 1; i >= 0; i--) {
			x[i] = q % op->ext[i];
			q /= op->ext[i];
		}
		if (!check_d_repeat(e, op, mc, r, x))
			return false;
	}
	return true;
}

static bool
check_ab(TileEnv *e, TileCall *tc, MmaCall *mc)
{
	static const DescMode modes03[] = {DESC_NONE, DESC_SW32, DESC_SW64,
					   DESC_SW128};
	static const DescMode mode4[] = {DESC_SW128_32B};
	for (int i = OP_A; i <= OP_B; i++) {
		TileOperand *op = &tc->ops[i];
		bool mn = i == OP_A ? mc->a_mn : mc->b_mn;
		if (i == OP_A && op->root->scope == MS_TMEM)
			return diag_error(e->c, PT_E_MMA_UNSUPPORTED, op->span,
					  "operand A (%s) in tensor memory is "
					  "not supported by the tile pattern "
					  "yet; pass A as a shared operand",
					  op->root->name);
		bool m4 = mn && op->bits == 32;
		if (!tile_desc_operand(e, op,
				       mn ? DESC_WALK_MN : DESC_WALK_K, mn,
				       m4 ? mode4 : modes03, m4 ? 1 : 4,
				       i == OP_A ? &mc->a : &mc->b))
			return false;
	}
	return true;
}

static Stmt *
issue(Ctx *c, const TileCall *tc, Expr *const *args, int nargs)
{
	Span sp = tc->span;
	Expr *p = ir_new_expr(c, EX_PTX, ET_VOID, DT_NONE, sp);
	p->u.ptx.spelling = tc->inst.spelling;
	p->u.ptx.pred = tc->pred;
	for (int i = 0; i < nargs; i++)
		vec_push(&c->arena, &p->u.ptx.args, args[i]);
	ir_select_ptx(c, p, &tc->inst, true);
	Stmt *s = ir_new_stmt(c, ST_EVAL, sp);
	s->u.value = p;
	return s;
}

static void
lower_mma(Ctx *c, const TileCall *tc, Block *out)
{
	const MmaCall *mc = tc->fam_data;
	Span sp = tc->span;
	Expr *base_a = tile_desc_base(c, tc, &tc->ops[OP_A], out);
	Expr *base_b = tile_desc_base(c, tc, &tc->ops[OP_B], out);
	Expr *idesc = ir_int(c, mc->idesc, DT_UINT32, sp);
	Expr *mask = tc->param[TP_DISABLE_OUTPUT_LANE];
	Expr *first = tc->param[TP_ACCUM] ? tc->param[TP_ACCUM]
					  : ir_bool(c, false, sp);
	for (int64_t b = 0; b < mc->nb; b++)
		for (int64_t m = 0; m < mc->mr; m++)
			for (int64_t n = 0; n < mc->nr; n++)
				for (int64_t k = 0; k < mc->kr; k++) {
					int64_t rd = (b * mc->mr + m) * mc->nr + n;
					int64_t ra = (b * mc->mr + m) * mc->kr + k;
					int64_t rb = (b * mc->nr + n) * mc->kr + k;
					Expr *args[6];
					int na = 0;
					args[na++] = tile_tmem_addr(
						c, &tc->ops[OP_D],
						mc->d_lane[rd], mc->d_col[rd]);
					args[na++] = tile_desc_value(
						c, &mc->a, ra, base_a);
					args[na++] = tile_desc_value(
						c, &mc->b, rb, base_b);
					args[na++] = idesc;
					if (mask)
						args[na++] = mask;
					args[na++] = k == 0
						? first : ir_bool(c, true, sp);
					vec_push(&c->arena, out,
						 issue(c, tc, args, na));
				}
}

bool
tile_check_tcgen05_mma(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	MmaCall *mc = NEW(&c->arena, MmaCall);
	if (!check_form(e, tc, mc) || !check_instr_shape(e, tc, mc) ||
	    !check_shapes(e, tc, mc) || !check_idesc(e, tc, mc) ||
	    !check_d(e, tc, mc) || !check_ab(e, tc, mc))
		return false;
	for (int i = 0; i < 3; i++) {
		tc->ops[i].role = ROLE_MEM;
		tc->ops[i].ptx_op = i;
		tc->ops[i].atom_axes = 2;
	}
	tc->ops[OP_D].out = true;
	tc->fam_data = mc;
	tc->count = tile_repeat_count(tc);
	tc->lower = lower_mma;
	return true;
}
