/*
 * tcgen05_mma.c - Tensor Core MMA, tcgen05.mma{.ws}.cta_group::{1,2}
 * .kind::{f16,tf32,f8f6f4,i8} and the block-scaled
 * .kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale forms, with D in TMEM, A
 * in shared memory (a descriptor) or in TMEM, B in shared memory
 * (reference "Tensor Core matrix multiply-accumulate").
 *
 * Operands after an optional batch prefix (scope="thread": one thread
 * issues; g = the CTA group, M/N the group's totals):
 *   D   (M_rep, N_rep, M/g, N)          TMEM, one accumulator per cell
 *   A   (M_rep, K_rep, M/g, K)          shared, or TMEM
 *       (M_rep, K_rep, banks, M/g, K)   TMEM A of a banked datapath
 *   B   (N_rep, K_rep, N/g, K)          shared
 *   SFA (M_rep, K_rep, M/g, scale_vec)  TMEM, block-scaled only
 *   SFB (N_rep, K_rep, N, scale_vec)    TMEM, full N in each CTA
 * Datapath of D (PTX "Data path layout organization"; per CTA):
 *   M/g 128 (Layouts A, D): lane m, column n;
 *   M=64 one CTA, not .ws (Layout F): lane 32*(m/16) + m%16 from lane
 *   0 or 16, column n;
 *   M/g 64 of a CTA pair or .ws (Layouts B, E) and .ws M=32 (Layout G):
 *   N folds into banks of 128/banks lanes: lane m + (128/banks)*bank,
 *   column n % (N/banks), bank = n / (N/banks), banks = 128/(M/g).
 * TMEM A follows the same lanes (its banks are explicit copies), its
 * columns packed by the input format (k * bits).  Scale factor row r,
 * vector element s: lane r%32 (four replicas 32 lanes apart, stated in
 * the layout), byte 4*(r/32)+s from the origin; the origin's byte in its
 * cell is the scale-factor ID (a multiple of scale_vec) that the
 * instruction descriptor carries.
 * Output (lower hook): a mov of each shared storage address, then batch,
 * M_rep, N_rep, K_rep in that order, one MMA each with enable-input-d =
 * accum (False when absent) on K repeat 0 and true after.  No election,
 * commit, wait, fence, allocation or scale-factor copy is inserted.
 */
#include <string.h>

#include "tile/tile.h"
#include "tile/descriptors.h"

enum { OP_D, OP_A, OP_B, OP_SFA, OP_SFB, NOPS };

static const char *const op_names[] = {"D", "A", "B", "SFA", "SFB"};

static const struct {
	PtxQual qual;
	UmmaKind kind;
	int bits;          /* A/B storage bits */
} kinds[] = {
	{PQ_KIND_F16, UMMA_F16, 16},
	{PQ_KIND_TF32, UMMA_TF32, 32},
	{PQ_KIND_F8F6F4, UMMA_F8F6F4, 8},
	{PQ_KIND_I8, UMMA_I8, 8},
	{PQ_KIND_MXF8F6F4, UMMA_MXF8F6F4, 8},
	{PQ_KIND_MXF4, UMMA_MXF4, 4},
	{PQ_KIND_MXF4NVF4, UMMA_MXF4NVF4, 4},
};

typedef struct MmaCall {
	int kind;             /* row of kinds[] */
	bool ws, bs, a_tmem;
	int g;                /* CTA group */
	int sv;               /* scale factors per row per instruction K */
	int m, n, k;
	int mloc;             /* M rows per CTA */
	int banks;            /* lane banks of D (and TMEM A) */
	bool layout_f;        /* M=64, one CTA, not .ws */
	bool a_mn, b_mn;
	Idesc id;             /* scale-factor IDs filled per issue */
	int nbatch;
	int64_t nb, mr, nr, kr;
	int64_t d_lane0;      /* D's origin lane (Layout F: 0 or 16) */
	int64_t *d_lane;      /* per (batch, m_rep, n_rep) */
	Expr **d_col;
	int64_t *a_lane;      /* TMEM A, per (batch, m_rep, k_rep) */
	Expr **a_col;
	Expr **sf_col[2];     /* SFA per A repeat, SFB per B repeat */
	int *sf_id[2];
	TileDesc a, b;
} MmaCall;

static bool
static_bool(const TileCall *tc, int id)
{
	int64_t v = 0;
	return tc->param[id] && ir_const_int(tc->param[id], &v) && v;
}

/* Scale factors per row and instruction K (PTX Table 56): mxf8f6f4
 * 1X (block32), mxf4 2X (block32), mxf4nvf4 2X/block32 or
 * 4X/block16; the form table already rejects other spellings. */
static int
scale_vec(const PtxInst *in, UmmaKind k)
{
	if (k == UMMA_MXF8F6F4)
		return 1;
	if (k == UMMA_MXF4NVF4 && (ptx_has(in, PQ_SCALE_VEC_4X) ||
				   ptx_has(in, PQ_BLOCK16)))
		return 4;
	return 2;
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
		if (ptx_has(&tc->inst, kinds[i].qual))
			mc->kind = (int)i;
	if (mc->kind < 0)
		return diag_error(c, PT_E_MMA_UNSUPPORTED, tc->span,
				  "%s: the tile pattern knows no such kind",
				  tc->inst.spelling);
	mc->ws = ptx_has(&tc->inst, PQ_WS);
	mc->bs = ptx_has(&tc->inst, PQ_BLOCK_SCALE);
	mc->g = ptx_has(&tc->inst, PQ_CTA_GROUP_2) ? 2 : 1;
	mc->sv = mc->bs ? scale_vec(&tc->inst, kinds[mc->kind].kind) : 0;
	int want = mc->bs ? 5 : 3;
	if (tc->nops != want)
		return diag_error(c, PT_E_MMA_OPERANDS, tc->span,
				  "%s takes %d tile operands (%s), found %d",
				  tc->inst.spelling, want,
				  mc->bs ? "D, A, B, SFA, SFB" : "D, A, B",
				  tc->nops);
	return ptx_check_target(c, &tc->inst, tc->span) &&
	       tile_tc05_group(e, tc);
}

/* A CTA pair is two CTAs of one cluster whose ranks differ in bit 0:
 * the launch needs clusters of an even size. */
static bool
check_pair_launch(TileEnv *e, TileCall *tc)
{
	const Launch *l = &e->f->launch;
	int64_t n = 1;
	for (int i = 0; i < l->ncluster; i++)
		n *= l->cluster[i];
	if (l->ncluster > 0 && n % 2 == 0)
		return true;
	return diag_error(e->c, PT_E_MMA_CTA_PAIR, tc->span,
			  "%s runs on a CTA pair (peer CTAs ranks 2i, 2i+1 "
			  "of a cluster), but the kernel is launched %s",
			  tc->inst.spelling,
			  l->ncluster == 0
				  ? "without clusters (declare cluster=2 or "
				    "another even cluster size)"
				  : arena_printf(&e->c->arena,
						 "in clusters of %lld CTAs",
						 (long long)n));
}

static bool
check_instr_shape(TileEnv *e, TileCall *tc, MmaCall *mc)
{
	Ctx *c = e->c;
	const Expr *s = tc->param[TP_INSTRUCTION_SHAPE];
	int64_t v[3] = {0, 0, 0};
	if (!s || s->u.tuple.n != 3)
		return diag_error(c, PT_E_MMA_INSTR_SHAPE, tc->span,
				  "%s needs instruction_shape=(M, N, K)",
				  tc->inst.spelling);
	for (int i = 0; i < 3; i++)
		ir_const_int(s->u.tuple.v[i], &v[i]);
	UmmaKind k = kinds[mc->kind].kind;
	int want_k = desc_umma_k(k);
	bool ok = v[0] > 0 && v[0] <= 256 && v[1] > 0 && v[1] <= 256 &&
		  v[2] == want_k &&
		  (mc->ws ? desc_umma_ws_shape_ok(k, (int)v[0], (int)v[1])
			  : desc_umma_shape_ok(k, mc->g, (int)v[0],
					       (int)v[1]));
	const char *rule =
		mc->ws ? "M 32, 64 or 128; N 64, 128 or 256"
		: mc->g == 2 ? (k == UMMA_I8
			? "M 128 or 256; N a multiple of 32 up to 256"
			: "M 128 or 256; N a multiple of 16 up to 256")
		: mc->bs ? "M 128; N a multiple of 16 up to 256"
		: k == UMMA_I8
			? "M=64: N 8, 16, 24, 32 or a multiple of 16 up to "
			  "256; M=128: N a multiple of 16 up to 256"
			: "M=64: N a multiple of 8 up to 256; M=128: N a "
			  "multiple of 16 up to 256";
	if (!ok)
		return diag_error(c, PT_E_MMA_SHAPE, s->span.file ? s->span
								  : tc->span,
				  "instruction_shape (%lld, %lld, %lld) is not "
				  "a legal %s.cta_group::%d %s shape (%s; K %d; "
				  "PTX Table 39)", (long long)v[0],
				  (long long)v[1], (long long)v[2],
				  mc->ws ? ".ws " : "", mc->g,
				  ptx_qual_text(kinds[mc->kind].qual) + 1, rule, want_k);
	mc->m = (int)v[0];
	mc->n = (int)v[1];
	mc->k = (int)v[2];
	mc->mloc = mc->m / mc->g;
	mc->layout_f = mc->mloc == 64 && mc->g == 1 && !mc->ws;
	mc->banks = mc->layout_f ? 1 : 128 / mc->mloc;
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
				  ptx_qual_text(kinds[mc->kind].qual) + 1,
				  k == UMMA_TF32 && !x
					  ? " (pass a_format/b_format=\"tf32\" "
					    "for float32 storage)"
					  : "");
	if (op->bits != kinds[mc->kind].bits)
		return diag_error(c, PT_E_MMA_FORMAT, op->span,
				  "operand %s (%s) has %d-bit storage; %s "
				  "reads %d-bit elements", op_names[i],
				  op->root->name, op->bits,
				  ptx_qual_text(kinds[mc->kind].qual) + 1,
				  kinds[mc->kind].bits);
	bool mn = i == OP_A ? mc->a_mn : mc->b_mn;
	bool narrow = (k == UMMA_F8F6F4 || k == UMMA_MXF8F6F4) && *code >= 3;
	if (mn && (narrow || k == UMMA_MXF4 || k == UMMA_MXF4NVF4))
		return diag_error(c, PT_E_MMA_MAJOR, op->span,
				  "operand %s: %s %s must be K-major",
				  op_names[i], ptx_qual_text(kinds[mc->kind].qual) + 1, name);
	return true;
}

/* Accumulator format: F16=0, F32=1, S32=2; block-scaled kinds have no
 * field (float32 only). */
static bool
d_format(TileEnv *e, TileCall *tc, MmaCall *mc, Idesc *d)
{
	const TileOperand *dd = &tc->ops[OP_D];
	DType t = dd->dtype;
	d->d_fmt = -1;
	switch (d->kind) {
	case UMMA_F16:
		if (t == DT_FLOAT32)
			d->d_fmt = 1;
		else if (t == DT_FLOAT16 && d->a_fmt == 0 && d->b_fmt == 0)
			d->d_fmt = 0;
		break;
	case UMMA_F8F6F4:
		d->d_fmt = t == DT_FLOAT32 ? 1 : t == DT_FLOAT16 ? 0 : -1;
		break;
	case UMMA_I8:
		d->d_fmt = t == DT_INT32 ? 2 : -1;
		break;
	default: /* tf32 and the block-scaled kinds */
		d->d_fmt = t == DT_FLOAT32 ? 1 : -1;
		break;
	}
	if (d->d_fmt >= 0)
		return true;
	return diag_error(e->c, PT_E_MMA_D_DTYPE, dd->span,
			  "operand D (%s) is %s; %s accumulates in %s",
			  dd->root->name, dtype_name(t),
			  ptx_qual_text(kinds[mc->kind].qual) + 1,
			  d->kind == UMMA_I8 ? "int32"
			  : d->kind == UMMA_F16 || d->kind == UMMA_F8F6F4
				  ? "float32 (or float16 with float16 inputs)"
				  : "float32");
}

/* Parameters that exist for some forms only. */
static bool
check_form_params(TileEnv *e, TileCall *tc, MmaCall *mc, Idesc *d)
{
	Ctx *c = e->c;
	d->neg_a = static_bool(tc, TP_NEG_A);
	d->neg_b = static_bool(tc, TP_NEG_B);
	d->sat = static_bool(tc, TP_SAT_D);
	if (d->kind == UMMA_I8 && (d->neg_a || d->neg_b))
		return diag_error(c, PT_E_MMA_FLAGS, tc->span,
				  "neg_a/neg_b are not valid for .kind::i8");
	if (d->kind != UMMA_I8 && d->sat)
		return diag_error(c, PT_E_MMA_FLAGS, tc->span,
				  "sat_d is valid only for .kind::i8");
	const Expr *mask = tc->param[TP_DISABLE_OUTPUT_LANE];
	const Expr *zcm = tc->param[TP_ZERO_COLUMN_MASK];
	if (mask && (mc->ws || mc->bs))
		return diag_error(c, PT_E_MMA_PARAM_FORM, mask->span.file
							 ? mask->span
							 : tc->span,
				  "disable_output_lane belongs to dense non-.ws "
				  "forms; %s has no mask operand%s",
				  tc->inst.spelling,
				  mc->ws ? " (use zero_column_mask)" : "");
	if (zcm && !mc->ws)
		return diag_error(c, PT_E_MMA_PARAM_FORM, zcm->span.file
							 ? zcm->span
							 : tc->span,
				  "zero_column_mask belongs to .ws forms; %s is "
				  "not weight-stationary", tc->inst.spelling);
	if (mask && mask->u.tuple.n != (size_t)(4 * mc->g))
		return diag_error(c, PT_E_MMA_DISABLE_LANE, mask->span.file
							 ? mask->span
							 : tc->span,
				  "disable_output_lane holds four mask words "
				  "per CTA (%d for .cta_group::%d), found %zu",
				  4 * mc->g, mc->g, mask->u.tuple.n);
	return true;
}

static bool
check_idesc(TileEnv *e, TileCall *tc, MmaCall *mc)
{
	if (!major_of(e, tc, TP_A_MAJOR, "a_major", &mc->a_mn) ||
	    !major_of(e, tc, TP_B_MAJOR, "b_major", &mc->b_mn))
		return false;
	Idesc *d = &mc->id;
	memset(d, 0, sizeof(*d));
	d->kind = kinds[mc->kind].kind;
	if (!format_of(e, tc, mc, OP_A, &d->a_fmt) ||
	    !format_of(e, tc, mc, OP_B, &d->b_fmt) ||
	    !d_format(e, tc, mc, d) || !check_form_params(e, tc, mc, d))
		return false;
	d->a_mn = mc->a_mn;
	d->b_mn = mc->b_mn;
	d->m = mc->m;
	d->n = mc->n;
	return true;
}

/* ---- operand shapes ---- */

/* Atom extents of operand i; the count of atom axes. */
static int
atom_of(const MmaCall *mc, int i, int64_t *a)
{
	switch (i) {
	case OP_D: a[0] = mc->mloc; a[1] = mc->n; return 2;
	case OP_A:
		if (mc->a_tmem && mc->banks > 1) {
			a[0] = mc->banks;
			a[1] = mc->mloc;
			a[2] = mc->k;
			return 3;
		}
		a[0] = mc->mloc; a[1] = mc->k; return 2;
	case OP_B: a[0] = mc->n / mc->g; a[1] = mc->k; return 2;
	case OP_SFA: a[0] = mc->mloc; a[1] = mc->sv; return 2;
	default: a[0] = mc->n; a[1] = mc->sv; return 2;
	}
}

/* The repeat pair of operand i: 0 M_rep, 1 N_rep, 2 K_rep. */
static void
reps_of(int i, int *r)
{
	static const int rr[NOPS][2] = {{0, 1}, {0, 2}, {1, 2}, {0, 2},
					{1, 2}};
	r[0] = rr[i][0];
	r[1] = rr[i][1];
}

static bool
check_shapes(TileEnv *e, TileCall *tc, MmaCall *mc)
{
	Ctx *c = e->c;
	static const char *const rn[] = {"M_rep", "N_rep", "K_rep"};
	int nops = mc->bs ? 5 : 3;
	const TileOperand *d = &tc->ops[OP_D];
	for (int i = 0; i < nops; i++) {
		TileOperand *op = &tc->ops[i];
		int64_t a[3];
		int na = atom_of(mc, i, a), r[2];
		reps_of(i, r);
		if (op->scalar)
			return diag_error(c, PT_E_MMA_OPERANDS, op->span,
					  "operand %s must be a tensor, found a "
					  "scalar", op_names[i]);
		bool ok = op->rank >= na + 2;
		for (int j = 0; ok && j < na; j++)
			ok = op->ext[op->rank - na + j] == a[j];
		if (!ok)
			return diag_error(
				c, PT_E_MMA_OPERAND_SHAPE, op->span,
				"operand %s (%s) has shape %s; it must end in "
				"(%s, %s) %s after any batch axes",
				op_names[i], op->root->name,
				tile_coord_str(&c->arena, op->ext, op->rank),
				rn[r[0]], rn[r[1]],
				tile_coord_str(&c->arena, a, na));
	}
	mc->nbatch = d->rank - 4;
	mc->nb = 1;
	for (int i = 0; i < mc->nbatch; i++)
		mc->nb *= d->ext[i];
	int64_t rep[3] = {d->ext[mc->nbatch], d->ext[mc->nbatch + 1],
			  tc->ops[OP_A].ext[mc->nbatch + 1]};
	for (int i = 1; i < nops; i++) {
		const TileOperand *op = &tc->ops[i];
		int64_t a[3];
		int na = atom_of(mc, i, a), r[2];
		reps_of(i, r);
		if (op->rank - na - 2 != mc->nbatch ||
		    memcmp(op->ext, d->ext, sizeof(int64_t) * mc->nbatch))
			return diag_error(c, PT_E_MMA_OPERAND_SHAPE, op->span,
					  "operand %s (%s) has shape %s, but D "
					  "has %s: batch axes must agree",
					  op_names[i], op->root->name,
					  tile_coord_str(&c->arena, op->ext,
							 op->rank),
					  tile_coord_str(&c->arena, d->ext,
							 d->rank));
		for (int j = 0; j < 2; j++)
			if (op->ext[mc->nbatch + j] != rep[r[j]])
				return diag_error(
					c, PT_E_MMA_OPERAND_SHAPE, op->span,
					"operand %s (%s): %s is %lld, but the "
					"call's (M_rep, N_rep, K_rep) is (%lld, "
					"%lld, %lld)", op_names[i],
					op->root->name, rn[r[j]],
					(long long)op->ext[mc->nbatch + j],
					(long long)rep[0], (long long)rep[1],
					(long long)rep[2]);
	}
	mc->mr = rep[0];
	mc->nr = rep[1];
	mc->kr = rep[2];
	int nb = mc->nbatch;
	tc->nrepeat = nb + 3;
	tc->repeat = NEWN(&c->arena, int64_t, nb + 4);
	memcpy(tc->repeat, d->ext, sizeof(int64_t) * nb);
	tc->repeat[nb] = mc->mr;
	tc->repeat[nb + 1] = mc->nr;
	tc->repeat[nb + 2] = mc->kr;
	return true;
}

/* ---- TMEM operands ---- */

/* Lane and bit of atom element a (replica q) relative to the origin. */
typedef void PlaceFn(const MmaCall *mc, const TileOperand *op,
		     const int64_t *a, int q, int64_t *lane, int64_t *bit);

static int64_t
row_lane(const MmaCall *mc, int64_t m)
{
	return mc->layout_f ? 32 * (m / 16) + m % 16 : m;
}

static void
place_d(const MmaCall *mc, const TileOperand *op, const int64_t *a, int q,
	int64_t *lane, int64_t *bit)
{
	(void)op;
	(void)q;
	int64_t w = mc->n / mc->banks;
	*lane = row_lane(mc, a[0]) + (128 / mc->banks) * (a[1] / w);
	*bit = 32 * (a[1] % w);
}

static void
place_a(const MmaCall *mc, const TileOperand *op, const int64_t *a, int q,
	int64_t *lane, int64_t *bit)
{
	(void)q;
	int b = mc->banks > 1;
	*lane = row_lane(mc, a[b]) + (b ? (128 / mc->banks) * a[0] : 0);
	*bit = a[b + 1] * op->bits;
}

static void
place_sf(const MmaCall *mc, const TileOperand *op, const int64_t *a, int q,
	 int64_t *lane, int64_t *bit)
{
	(void)mc;
	(void)op;
	*lane = a[0] % 32 + 32 * q;
	*bit = 8 * (4 * (a[0] / 32) + a[1]);
}

/* Every element of op's atom at repeat coordinate x[0..nlead) (and
 * every replica) against place(); the origin's lane and bit out. */
static bool
tmem_walk(TileEnv *e, TileOperand *op, const MmaCall *mc, int i,
	  int64_t *x, int nlead, int nrepl, PlaceFn *place, int lane_code,
	  int64_t *lane0, Lin *bit0)
{
	Ctx *c = e->c;
	int64_t a[3], at[3] = {0, 0, 0};
	int na = atom_of(mc, i, a);
	int64_t total = 1;
	for (int j = 0; j < na; j++)
		total *= a[j];
	const char *rep = tile_coord_str(&c->arena, x, nlead);
	Lin ax[AX_COUNT];
	for (int64_t t = 0; t < total; t++) {
		int64_t q = t;
		for (int j = na - 1; j >= 0; j--) {
			at[j] = q % a[j];
			q /= a[j];
			x[nlead + j] = at[j];
		}
		for (int r = 0; r < nrepl; r++) {
			view_phys_lin(&e->st, op->view, x, r, ax);
			if (!lin_is_const(ax[AX_TLANE]))
				return diag_error(c, lane_code, op->span,
						  "operand %s (%s): TMEM lane "
						  "%s is symbolic; lanes must "
						  "be static", op_names[i],
						  op->root->name,
						  lin_str(&e->st,
							  ax[AX_TLANE]));
			Lin bit = lin_scale(&e->st, ax[AX_TCOL], op->bits);
			if (t == 0 && r == 0) {
				*lane0 = ax[AX_TLANE].c0;
				*bit0 = bit;
			}
			int64_t wl, wb;
			place(mc, op, at, r, &wl, &wb);
			if (ax[AX_TLANE].c0 != *lane0 + wl)
				return diag_error(
					c, lane_code, op->span,
					"operand %s (%s) at repeat %s: element "
					"%s%s is at TMEM lane %lld, the "
					"datapath puts it at lane %lld",
					op_names[i], op->root->name, rep,
					tile_coord_str(&c->arena, at, na),
					r ? arena_printf(&c->arena,
							 " replica %d", r)
					  : "",
					(long long)ax[AX_TLANE].c0,
					(long long)(*lane0 + wl));
			Lin db = lin_sub(&e->st, bit, *bit0);
			if (!lin_is_const(db) || db.c0 != wb)
				return diag_error(
					c, i == OP_D ? PT_E_TMEM_COLS
						     : lane_code, op->span,
					"operand %s (%s) at repeat %s: element "
					"%s is %s bits from the origin, the "
					"datapath puts it %lld bits (column "
					"%lld, bit %lld)%s", op_names[i],
					op->root->name, rep,
					tile_coord_str(&c->arena, at, na),
					lin_str(&e->st, db), (long long)wb,
					(long long)(wb / 32),
					(long long)(wb % 32),
					i == OP_D && op->bits == 16
						? "; float16 needs TCol stride 2"
						: "");
		}
	}
	return true;
}

/* The column origin (bit0 / 32) as an expression, inside 512 - ncols. */
static Expr *
tmem_cols(TileEnv *e, TileOperand *op, int i, const char *rep, Lin bit0,
	  int64_t ncols)
{
	Ctx *c = e->c;
	Lin col0 = lin_floordiv(&e->st, bit0, 32);
	if (!lin_is_const(col0) &&
	    !view_prove_bounds(c, op->span, &e->st, col0, 0, 512 - ncols,
			       "the TMEM column origin"))
		return NULL;
	if (lin_is_const(col0) && (col0.c0 < 0 || col0.c0 + ncols > 512)) {
		diag_error(c, PT_E_TMEM_BOUNDS, op->span,
			   "operand %s (%s) at repeat %s: columns %lld..%lld "
			   "leave the 512-column TMEM", op_names[i],
			   op->root->name, rep, (long long)col0.c0,
			   (long long)(col0.c0 + ncols - 1));
		return NULL;
	}
	return tile_lin_expr(e, col0, op->span);
}

/* tmem_cols of an origin that must be a whole 32-bit cell. */
static Expr *
cell_cols(TileEnv *e, TileOperand *op, int i, const char *rep, Lin bit0,
	  int64_t ncols, int code)
{
	const char *why = NULL;
	if (!prove_multiple_of(&e->st, bit0, 32, &why)) {
		diag_error(e->c, code, op->span,
			   "operand %s (%s) at repeat %s: column origin (%s "
			   "bits) is not a whole 32-bit cell", op_names[i],
			   op->root->name, rep, lin_str(&e->st, bit0));
		return NULL;
	}
	return tmem_cols(e, op, i, rep, bit0, ncols);
}

static bool
need_tmem(TileEnv *e, const TileOperand *op, int i)
{
	if (op->root->scope == MS_TMEM && op->root->allocated_addr)
		return true;
	return diag_error(e->c, PT_E_TMEM_SPACE, op->span,
			  "operand %s (%s) must be tensor memory "
			  "(T.decl_buffer(..., scope=\"tmem\", "
			  "allocated_addr=...)), found %s memory", op_names[i],
			  op->root->name, memscope_name(op->root->scope));
}

/* Repeat r of operand i (batch, rep0, rep1) into x. */
static void
rep_coord(const TileOperand *op, int64_t r, int nlead, int64_t *x)
{
	for (int j = nlead - 1; j >= 0; j--) {
		x[j] = r % op->ext[j];
		r /= op->ext[j];
	}
}

static bool
check_d(TileEnv *e, TileCall *tc, MmaCall *mc)
{
	Ctx *c = e->c;
	TileOperand *op = &tc->ops[OP_D];
	if (!need_tmem(e, op, OP_D))
		return false;
	if (op->bits != 32 && op->bits != 16)
		return diag_error(c, PT_E_MMA_D_DTYPE, op->span,
				  "operand D (%s) has %d-bit elements",
				  op->root->name, op->bits);
	int64_t n = mc->nb * mc->mr * mc->nr;
	int nlead = op->rank - 2;
	mc->d_lane = NEWN(&c->arena, int64_t, n + 1);
	mc->d_col = NEWN(&c->arena, Expr *, n + 1);
	int64_t *x = NEWN(&c->arena, int64_t, op->rank + 1);
	for (int64_t r = 0; r < n; r++) {
		rep_coord(op, r, nlead, x);
		int64_t lane0;
		Lin bit0;
		if (!tmem_walk(e, op, mc, OP_D, x, nlead, 1, place_d,
			       PT_E_TMEM_LANES, &lane0, &bit0))
			return false;
		rep_coord(op, r, nlead, x);
		const char *rep = tile_coord_str(&c->arena, x, nlead);
		if (lane0 != 0 && !(mc->layout_f && lane0 == 16))
			return diag_error(c, PT_E_TMEM_LANES, op->span,
					  "operand D (%s) at repeat %s starts "
					  "at TMEM lane %lld; this datapath "
					  "starts at lane %s", op->root->name,
					  rep, (long long)lane0,
					  mc->layout_f ? "0 or 16" : "0");
		if (r > 0 && lane0 != mc->d_lane0)
			return diag_error(c, PT_E_TMEM_LANES, op->span,
					  "operand D (%s) at repeat %s starts "
					  "at lane %lld, repeat 0 at lane %lld",
					  op->root->name, rep, (long long)lane0,
					  (long long)mc->d_lane0);
		mc->d_lane0 = lane0;
		mc->d_lane[r] = lane0;
		mc->d_col[r] = cell_cols(e, op, OP_D, rep, bit0,
					 mc->n / mc->banks, PT_E_TMEM_COLS);
		if (!mc->d_col[r])
			return false;
	}
	return true;
}

static bool
check_a_tmem(TileEnv *e, TileCall *tc, MmaCall *mc)
{
	Ctx *c = e->c;
	TileOperand *op = &tc->ops[OP_A];
	if (mc->a_mn)
		return diag_error(c, PT_E_MMA_A_TMEM, op->span,
				  "operand A (%s) in tensor memory is K-major "
				  "only; drop a_major=\"mn\"", op->root->name);
	int64_t a[3];
	int na = atom_of(mc, OP_A, a);
	int nlead = op->rank - na;
	int64_t n = mc->nb * mc->mr * mc->kr;
	mc->a_lane = NEWN(&c->arena, int64_t, n + 1);
	mc->a_col = NEWN(&c->arena, Expr *, n + 1);
	int64_t *x = NEWN(&c->arena, int64_t, op->rank + 1);
	int64_t ncols = ((int64_t)mc->k * op->bits + 31) / 32;
	for (int64_t r = 0; r < n; r++) {
		rep_coord(op, r, nlead, x);
		int64_t lane0;
		Lin bit0;
		if (!tmem_walk(e, op, mc, OP_A, x, nlead, 1, place_a,
			       PT_E_MMA_A_TMEM, &lane0, &bit0))
			return false;
		rep_coord(op, r, nlead, x);
		const char *rep = tile_coord_str(&c->arena, x, nlead);
		if (lane0 != mc->d_lane0)
			return diag_error(c, PT_E_MMA_A_TMEM, op->span,
					  "operand A (%s) at repeat %s starts "
					  "at TMEM lane %lld; A uses D's "
					  "datapath lanes, from lane %lld",
					  op->root->name, rep, (long long)lane0,
					  (long long)mc->d_lane0);
		mc->a_lane[r] = lane0;
		mc->a_col[r] = cell_cols(e, op, OP_A, rep, bit0, ncols,
					 PT_E_MMA_A_TMEM);
		if (!mc->a_col[r])
			return false;
	}
	return true;
}

/* Scale type from the scale-factor dtype: UE8M0 (float8_e8m0fnu) = 1,
 * UE4M3 (float8_e4m3fn) = 0, the latter for mxf4nvf4 4X only. */
static bool
check_scale_type(TileEnv *e, TileCall *tc, MmaCall *mc)
{
	Ctx *c = e->c;
	const TileOperand *sa = &tc->ops[OP_SFA], *sb = &tc->ops[OP_SFB];
	for (int i = OP_SFA; i <= OP_SFB; i++) {
		const TileOperand *op = &tc->ops[i];
		if (op->dtype != DT_E8M0 && op->dtype != DT_E4M3)
			return diag_error(c, PT_E_MMA_SCALE, op->span,
					  "operand %s (%s) is %s; scale factors "
					  "are float8_e8m0fnu (UE8M0) or, for "
					  ".kind::mxf4nvf4 with 4X scale "
					  "vectors, float8_e4m3fn (UE4M3)",
					  op_names[i], op->root->name,
					  dtype_name(op->dtype));
	}
	if (sa->dtype != sb->dtype)
		return diag_error(c, PT_E_MMA_SCALE, sb->span,
				  "operand SFB (%s) is %s but SFA (%s) is %s: "
				  "one scale type serves both",
				  sb->root->name, dtype_name(sb->dtype),
				  sa->root->name, dtype_name(sa->dtype));
	if (sa->dtype == DT_E4M3 &&
	    !(kinds[mc->kind].kind == UMMA_MXF4NVF4 && mc->sv == 4))
		return diag_error(c, PT_E_MMA_SCALE, sa->span,
				  "UE4M3 scale factors need .kind::mxf4nvf4 "
				  "with 4X scale vectors (.block16); %s takes "
				  "float8_e8m0fnu", tc->inst.spelling);
	mc->id.scale_type = sa->dtype == DT_E8M0;
	return true;
}

static bool
check_sf(TileEnv *e, TileCall *tc, MmaCall *mc, int i)
{
	Ctx *c = e->c;
	TileOperand *op = &tc->ops[i];
	if (!need_tmem(e, op, i))
		return false;
	if (layout_nreplicas(op->view->layout) != 4)
		return diag_error(c, PT_E_MMA_SCALE_LAYOUT, op->span,
				  "operand %s (%s): scale factors live in all "
				  "four lane quarters; state four replicas 32 "
				  "lanes apart (+ T.R[4:32@T.Axis.TLane]), found %lld",
				  op_names[i], op->root->name,
				  (long long)layout_nreplicas(op->view->layout));
	int nlead = op->rank - 2;
	int64_t n = mc->nb * op->ext[nlead - 2] * op->ext[nlead - 1];
	int s = i - OP_SFA;
	mc->sf_col[s] = NEWN(&c->arena, Expr *, n + 1);
	mc->sf_id[s] = NEWN(&c->arena, int, n + 1);
	int64_t *x = NEWN(&c->arena, int64_t, op->rank + 1);
	int64_t rows = op->ext[op->rank - 2];
	for (int64_t r = 0; r < n; r++) {
		rep_coord(op, r, nlead, x);
		int64_t lane0;
		Lin bit0;
		if (!tmem_walk(e, op, mc, i, x, nlead, 4, place_sf,
			       PT_E_MMA_SCALE_LAYOUT, &lane0, &bit0))
			return false;
		rep_coord(op, r, nlead, x);
		const char *rep = tile_coord_str(&c->arena, x, nlead);
		if (lane0 != 0)
			return diag_error(c, PT_E_MMA_SCALE_LAYOUT, op->span,
					  "operand %s (%s) at repeat %s starts "
					  "at lane %lld; scale rows start at "
					  "lane 0", op_names[i], op->root->name,
					  rep, (long long)lane0);
		/* the byte inside the cell is the scale-factor ID */
		int64_t id = ((bit0.c0 % 32) + 32) % 32 / 8;
		Lin whole = lin_add_const(&e->st, bit0, -8 * id);
		const char *why = NULL;
		if (!prove_multiple_of(&e->st, whole, 32, &why) ||
		    id % mc->sv != 0)
			return diag_error(
				c, PT_E_MMA_SCALE_LAYOUT, op->span,
				"operand %s (%s) at repeat %s: the origin is "
				"%s bits into TMEM; its byte in the cell (the "
				"scale-factor ID) must be %s for %d scale "
				"factor%s per row", op_names[i],
				op->root->name, rep, lin_str(&e->st, bit0),
				mc->sv == 1 ? "constant"
				: mc->sv == 2 ? "0 or 2" : "0",
				mc->sv, mc->sv > 1 ? "s" : "");
		mc->sf_id[s][r] = (int)id;
		mc->sf_col[s][r] = tmem_cols(e, op, i, rep, whole,
					     (rows + 31) / 32);
		if (!mc->sf_col[s][r])
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
		if (i == OP_A && mc->a_tmem)
			continue;
		bool mn = i == OP_A ? mc->a_mn : mc->b_mn;
		bool m4 = mn && op->bits == 32;
		if (!tile_desc_operand(e, op,
				       mn ? DESC_WALK_MN : DESC_WALK_K, mn,
				       m4 ? mode4 : modes03, m4 ? 1 : 4,
				       i == OP_A ? &mc->a : &mc->b))
			return false;
	}
	return true;
}

/* ---- lowering ---- */

static Stmt *
issue(Ctx *c, const TileCall *tc, Expr *const *args, int nargs)
{
	Span sp = tc->span;
	ExprVec a = {0};
	for (int i = 0; i < nargs; i++)
		vec_push(&c->arena, &a, args[i]);
	Expr *p = ir_ptx_issue(c, &tc->inst, a, tc->pred, sp);
	Stmt *s = ir_new_stmt(c, ST_EVAL, sp);
	s->u.value = p;
	return s;
}

static void
lower_mma(Ctx *c, const TileCall *tc, Block *out)
{
	const MmaCall *mc = tc->fam_data;
	Span sp = tc->span;
	Expr *base_a = mc->a_tmem ? NULL
				  : tile_desc_base(c, tc, &tc->ops[OP_A], out);
	Expr *base_b = tile_desc_base(c, tc, &tc->ops[OP_B], out);
	Expr *mask = tc->param[TP_DISABLE_OUTPUT_LANE];
	Expr *zcm = tc->param[TP_ZERO_COLUMN_MASK];
	Expr *first = tc->param[TP_ACCUM] ? tc->param[TP_ACCUM]
					  : ir_bool(c, false, sp);
	for (int64_t b = 0; b < mc->nb; b++)
		for (int64_t m = 0; m < mc->mr; m++)
			for (int64_t n = 0; n < mc->nr; n++)
				for (int64_t k = 0; k < mc->kr; k++) {
					int64_t rd = (b * mc->mr + m) * mc->nr + n;
					int64_t ra = (b * mc->mr + m) * mc->kr + k;
					int64_t rb = (b * mc->nr + n) * mc->kr + k;
					Idesc id = mc->id;
					if (mc->bs) {
						id.a_sf = mc->sf_id[0][ra];
						id.b_sf = mc->sf_id[1][rb];
					}
					Expr *args[8];
					int na = 0;
					args[na++] = tile_tmem_addr(
						c, &tc->ops[OP_D],
						mc->d_lane[rd], mc->d_col[rd]);
					args[na++] = mc->a_tmem
						? tile_tmem_addr(
							c, &tc->ops[OP_A],
							mc->a_lane[ra],
							mc->a_col[ra])
						: tile_desc_value(
							c, &mc->a, ra, base_a);
					args[na++] = tile_desc_value(
						c, &mc->b, rb, base_b);
					args[na++] = ir_int(c, desc_idesc(&id),
							    DT_UINT32, sp);
					if (mc->bs) {
						args[na++] = tile_tmem_addr(
							c, &tc->ops[OP_SFA], 0,
							mc->sf_col[0][ra]);
						args[na++] = tile_tmem_addr(
							c, &tc->ops[OP_SFB], 0,
							mc->sf_col[1][rb]);
					}
					if (mask)
						args[na++] = mask;
					args[na++] = k == 0
						? first : ir_bool(c, true, sp);
					if (zcm)
						args[na++] = zcm;
					vec_push(&c->arena, out,
						 issue(c, tc, args, na));
				}
}

/* The form row by the operands the lowering passes: A as [a-tmem] or a
 * descriptor, the mask, scale and zero-column operands when present. */
static bool
select_row(TileEnv *e, TileCall *tc, const MmaCall *mc)
{
	PtxArg args[10];
	int n = 0;
	memset(args, 0, sizeof(args));
	args[n++].kind = PTXOP_ADDR;
	if (mc->a_tmem) {
		args[n++].kind = PTXOP_ADDR;
	} else {
		args[n].kind = PTXOP_REG;
		args[n++].bits = 64;
	}
	args[n].kind = PTXOP_REG;
	args[n++].bits = 64;
	args[n].kind = PTXOP_REG;
	args[n++].bits = 32;
	if (mc->bs) {
		args[n++].kind = PTXOP_ADDR;
		args[n++].kind = PTXOP_ADDR;
	}
	if (tc->param[TP_DISABLE_OUTPUT_LANE]) {
		args[n].kind = PTXOP_VEC;
		args[n].bits = 32;
		args[n++].vec = 4 * mc->g;
	}
	args[n++].kind = PTXOP_PRED;
	if (tc->param[TP_ZERO_COLUMN_MASK]) {
		args[n].kind = PTXOP_REG;
		args[n++].bits = 64;
	}
	return tile_select_form_args(e, tc, args, n);
}

bool
tile_check_tcgen05_mma(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	MmaCall *mc = NEW(&c->arena, MmaCall);
	if (!check_form(e, tc, mc) || !check_instr_shape(e, tc, mc))
		return false;
	const TileOperand *a = &tc->ops[OP_A];
	mc->a_tmem = !a->scalar && a->root->scope == MS_TMEM;
	/* the reference states the banked TMEM A of M64 (.ws, CTA pair)
	 * only; Layout G's four-bank A is left out rather than guessed */
	if (mc->a_tmem && mc->banks == 4)
		return diag_error(c, PT_E_MMA_UNSUPPORTED, a->span,
				  "operand A (%s) in tensor memory with .ws "
				  "M=32 is not supported by the tile pattern "
				  "(its four-bank A layout is not part of the "
				  "reference); pass A in shared memory",
				  a->root->name);
	if ((mc->g == 2 && !check_pair_launch(e, tc)) ||
	    !check_shapes(e, tc, mc) || !check_idesc(e, tc, mc) ||
	    !check_d(e, tc, mc) ||
	    (mc->a_tmem && !check_a_tmem(e, tc, mc)) ||
	    (mc->bs && (!check_scale_type(e, tc, mc) ||
			!check_sf(e, tc, mc, OP_SFA) ||
			!check_sf(e, tc, mc, OP_SFB))) ||
	    !check_ab(e, tc, mc) || !select_row(e, tc, mc))
		return false;
	int nops = mc->bs ? 5 : 3;
	static const int ptx_ops[] = {0, 1, 2, 4, 5};
	for (int i = 0; i < nops; i++) {
		int64_t at[3];
		tc->ops[i].role = ROLE_MEM;
		tc->ops[i].ptx_op = ptx_ops[i];
		tc->ops[i].atom_axes = atom_of(mc, i, at);
	}
	tc->ops[OP_D].out = true;
	tc->fam_data = mc;
	tc->count = tile_repeat_count(tc);
	tc->lower = lower_mma;
	return true;
}
