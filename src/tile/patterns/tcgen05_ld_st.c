/*
 * tcgen05_ld_st.c - TMEM loads and stores between tensor memory and
 * registers: tcgen05.ld / tcgen05.st .sync.aligned
 * {.32x32b,.16x64b,.16x128b,.16x256b,.16x32bx2}.xN{.pack::16b,
 * .unpack::16b}.b32 (reference "TMEM loads and stores").
 *
 * Operands: ld (registers, tmem), st (tmem, registers); the split shape
 * 16x32bx2 takes two TMEM regions, ld (registers, tmem_lo, tmem_hi) and
 * st (tmem_lo, tmem_hi, registers), plus the static imm_half_splitoff.
 * The instruction is warp-collective: the lane is inside the atom, the
 * group prefix is empty (warp scope, one statically selected warp) or
 * holds the warp (warpgroup/cta/cluster).  Atoms, for .xN:
 *   registers  b32 words (row, column): 32x32b (32, N), 16x64b (16, 2N),
 *              16x128b (16, 4N), 16x256b (16, 8N); 16x32bx2 (2, 16, N);
 *              lane l holds register r at the shape's coordinate (table
 *              `shapes` below, the reference's "Native images");
 *   tmem       (row, column) of 32-bit cells: rows consecutive lanes,
 *              columns consecutive cells; pack/unpack: (row, column,
 *              half) of 16-bit elements at TCol units 4*column + 2*half
 *              from a cell's low half.
 * Rows start at a multiple of the atom row count, inside the executing
 * warp's slab: warp w reaches lanes 32*(w%4) .. 32*(w%4)+31 (ptx_facts
 * §3.1).  The split halves share one allocation and their encoded
 * addresses differ by imm_half_splitoff.  No keyword but the immediate.
 *
 * Output: one instruction per repeat (row-major) whose TMEM address is
 * allocated_addr + (lane << 16) + column of the atom origin (the first
 * half's for 16x32bx2, the immediate added by the hardware); nothing
 * else: tcgen05.wait and fences are the caller's.
 */
#include <string.h>

#include "tile/tile.h"

typedef struct Shape {
	PtxQual qual;
	int rows;     /* TMEM lanes of one (half-)access */
	int cols;     /* b32 columns per .x1 of one (half-)access */
	int regs;     /* registers per lane per .x1 */
	bool split;   /* 16x32bx2: two 16-lane accesses */
	TileLaneMap map;
} Shape;

/* Register r of lane l holds atom coordinate (row, column); the
 * reference's "Native images" table. */
static void
map_32x32b(const void *arg, int l, int r, int64_t *x)
{
	(void)arg;
	x[0] = l;
	x[1] = r;
}

static void
map_16x64b(const void *arg, int l, int r, int64_t *x)
{
	(void)arg;
	x[0] = l / 4 + 8 * (l % 2);
	x[1] = l / 2 % 2 + 2 * r;
}

static void
map_16x128b(const void *arg, int l, int r, int64_t *x)
{
	(void)arg;
	x[0] = l / 4 + 8 * (r % 2);
	x[1] = l % 4 + 4 * (r / 2);
}

static void
map_16x256b(const void *arg, int l, int r, int64_t *x)
{
	(void)arg;
	x[0] = l / 4 + 8 * (r / 2 % 2);
	x[1] = r % 2 + 2 * (l % 4) + 8 * (r / 4);
}

/* (access, row, column) = (l // 16, l % 16, r) */
static void
map_16x32bx2(const void *arg, int l, int r, int64_t *x)
{
	(void)arg;
	x[0] = l / 16;
	x[1] = l % 16;
	x[2] = r;
}

static const Shape shapes[] = {
	{PQ_S16X32BX2, 16, 1, 1, true, map_16x32bx2},
	{PQ_S32X32B, 32, 1, 1, false, map_32x32b},
	{PQ_S16X64B, 16, 2, 1, false, map_16x64b},
	{PQ_S16X128B, 16, 4, 2, false, map_16x128b},
	{PQ_S16X256B, 16, 8, 4, false, map_16x256b},
};

/* What one call needs besides the TileCall. */
typedef struct LdSt {
	const Shape *sh;
	int n;          /* .xN */
	bool pack;      /* .pack::16b / .unpack::16b */
	bool is_ld;
	int ngroups;    /* static group coordinates (warps) */
	int64_t nrep;
} LdSt;

static const char *
order_text(const LdSt *s)
{
	if (s->sh->split)
		return s->is_ld ? "(registers, tmem_lo, tmem_hi)"
				: "(tmem_lo, tmem_hi, registers)";
	return s->is_ld ? "(registers, tmem)" : "(tmem, registers)";
}

static const char *
storage_text(Arena *a, const TileOperand *op)
{
	if (op->scalar)
		return "a scalar expression";
	return arena_printf(a, "%s (%s memory)", op->root->name,
			    memscope_name(op->root->scope));
}

/* Registers are local and TMEM operands are tmem, in the form's order. */
static bool
check_order(TileEnv *e, TileCall *tc, const LdSt *s, TileOperand *reg,
	    TileOperand **mem, int nmem)
{
	Ctx *c = e->c;
	bool ok = !reg->scalar && reg->root->scope == MS_LOCAL;
	for (int i = 0; i < nmem; i++)
		ok = ok && !mem[i]->scalar && mem[i]->root->scope == MS_TMEM;
	if (ok)
		return true;
	StrBuf b;
	sb_init(&b, &c->arena);
	for (int i = 0; i < tc->nops; i++)
		sb_printf(&b, "%soperand %d is %s", i ? ", " : "", i,
			  storage_text(&c->arena, &tc->ops[i]));
	return diag_error(c, PT_E_T5LS_ORDER, tc->span,
			  "%s takes %s: local registers and tensor memory "
			  "(T.decl_buffer(..., scope=\"tmem\")); %s",
			  tc->inst.spelling, order_text(s), sb_cstr(&b));
}

/* The operand's last `n` extents equal want[0..n). */
static bool
suffix_is(const TileCall *tc, const TileOperand *op, const int64_t *want,
	  int n)
{
	if (op->rank < tc->ngroup + n)
		return false;
	return memcmp(op->ext + op->rank - n, want, sizeof(int64_t) * n) == 0;
}

static bool
check_registers(TileEnv *e, TileCall *tc, const LdSt *s, TileOperand *reg)
{
	Ctx *c = e->c;
	int64_t want[3];
	int n;
	if (s->sh->split) {
		want[0] = 2;
		want[1] = 16;
		want[2] = s->n;
		n = 3;
	} else {
		want[0] = s->sh->rows;
		want[1] = (int64_t)s->sh->cols * s->n;
		n = 2;
	}
	if (reg->bits != 32)
		return diag_error(c, PT_E_T5LS_REG_DTYPE, reg->span,
				  "operand %d (%s) has %d-bit elements (%s): "
				  "%s moves b32 register words; pack 16-bit "
				  "values into a uint32 view", reg->index,
				  reg->root->name, reg->bits,
				  dtype_name(reg->dtype), tc->inst.spelling);
	if (!suffix_is(tc, reg, want, n))
		return diag_error(c, PT_E_T5LS_REG_ATOM, reg->span,
				  "operand %d (%s) has shape %s: the registers "
				  "of %s end in the atom %s%s, after %d group "
				  "axes", reg->index, reg->root->name,
				  tile_coord_str(&c->arena, reg->ext, reg->rank),
				  tc->inst.spelling,
				  tile_coord_str(&c->arena, want, n),
				  s->sh->split ? " (access, row, column)"
					       : " (row, column)",
				  tc->ngroup);
	reg->atom_axes = n;
	reg->natom = s->sh->regs * s->n;
	return tile_shape_operand(e, tc, reg);
}

static bool
check_tmem_shape(TileEnv *e, TileCall *tc, const LdSt *s, TileOperand *op)
{
	Ctx *c = e->c;
	int64_t want[3] = {s->sh->rows, (int64_t)s->sh->cols * s->n, 2};
	int n = s->pack ? 3 : 2;
	int bits = s->pack ? 16 : 32;
	if (op->bits != bits)
		return diag_error(c, PT_E_T5LS_TMEM_DTYPE, op->span,
				  "operand %d (%s) has %d-bit elements (%s): "
				  "%s addresses %s", op->index, op->root->name,
				  op->bits, dtype_name(op->dtype),
				  tc->inst.spelling,
				  s->pack ? "16-bit halves of TMEM cells "
					    "(pack/unpack: a 16-bit dtype)"
					  : "32-bit TMEM cells (a 32-bit "
					    "dtype; pack/unpack forms use "
					    "16-bit elements)");
	if (!suffix_is(tc, op, want, n))
		return diag_error(c, PT_E_T5LS_TMEM_ATOM, op->span,
				  "operand %d (%s) has shape %s: the TMEM "
				  "operand of %s ends in the atom %s%s, after "
				  "%d group axes", op->index, op->root->name,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  tc->inst.spelling,
				  tile_coord_str(&c->arena, want, n),
				  s->pack ? " (row, column, half)"
					  : " (row, column)", tc->ngroup);
	AxisMask axes = layout_axes(op->view->layout);
	AxisMask tmem = AXIS_BIT(AX_TLANE) | AXIS_BIT(AX_TCOL);
	if (!op->view->layout || (axes & ~tmem))
		return diag_error(c, PT_E_T5LS_TMEM_LAYOUT, op->span,
				  "operand %d (%s): a TMEM tensor's layout "
				  "maps onto TLane and TCol only (e.g. "
				  "S[(128, 32):(1@TLane, 1@TCol)]), found %s",
				  op->index, op->root->name,
				  op->view->layout
					  ? layout_str(&c->arena,
						       op->view->layout)
					  : "the default layout (storage "
					    "axis m)");
	if (!op->root->allocated_addr)
		return diag_error(c, PT_E_T5LS_TMEM_LAYOUT, op->span,
				  "operand %d (%s): a TMEM tensor needs "
				  "allocated_addr=", op->index,
				  op->root->name);
	op->atom_axes = n;
	op->natom = (int)(want[0] * want[1] * (s->pack ? 2 : 1));
	return tile_shape_operand(e, tc, op);
}

/* The warp's lane quarter (w % 4) at static group coordinate g. */
static int64_t
quarter(const TileEnv *e, const TileCall *tc, const int64_t *g)
{
	for (int i = 0; i < tc->ngroup; i++)
		if (tc->group[i].kind == GK_WARP ||
		    tc->group[i].kind == GK_WARP_IN_WG)
			return (tc->group[i].lo + g[i]) % 4;
	return e->warp_lo % 4;
}

/* Per static group and repeat: the atom origin (constant lane, column
 * in TCol units) of one TMEM operand. */
typedef struct Origin {
	int64_t lane;
	Lin col;
} Origin;

static bool
check_image_at(TileEnv *e, TileCall *tc, const LdSt *s, TileOperand *op,
	       int64_t *x, Origin *o)
{
	Ctx *c = e->c;
	int ng = tc->ngroup, nr = tc->nrepeat;
	int na = op->atom_axes;
	int64_t *a = x + ng + nr;
	const int64_t *aext = op->ext + op->rank - na;
	int ustep = s->pack ? 4 : 1;
	Lin ax[AX_COUNT];
	memset(a, 0, sizeof(int64_t) * na);
	view_phys_lin(&e->st, op->view, x, 0, ax);
	if (!lin_is_const(ax[AX_TLANE]))
		return diag_error(c, PT_E_T5LS_LANE_STATIC, op->span,
				  "%s: the TMEM lane of operand %d (%s) at %s "
				  "is %s; it must be static for each warp",
				  tc->inst.spelling, op->index, op->root->name,
				  tile_coord_str(&c->arena, x, op->rank),
				  lin_str(&e->st, ax[AX_TLANE]));
	o->lane = ax[AX_TLANE].c0;
	o->col = ax[AX_TCOL];
	do {
		view_phys_lin(&e->st, op->view, x, 0, ax);
		Lin dl = lin_sub(&e->st, ax[AX_TLANE], lin_const(o->lane));
		Lin dc = lin_sub(&e->st, ax[AX_TCOL], o->col);
		int64_t wl = a[0];
		int64_t wc = a[1] * ustep + (s->pack ? 2 * a[2] : 0);
		if (!lin_is_const(dl) || !lin_is_const(dc) || dl.c0 != wl ||
		    dc.c0 != wc)
			return diag_error(
				c, PT_E_T5LS_TMEM_IMAGE, op->span,
				"%s: element %s of operand %d (%s) lies at TMEM "
				"lane +%s, column +%s from the atom origin, but "
				"the instruction reads lane +%lld, column "
				"+%lld%s", tc->inst.spelling,
				tile_coord_str(&c->arena, x, op->rank),
				op->index, op->root->name,
				lin_str(&e->st, dl), lin_str(&e->st, dc),
				(long long)wl, (long long)wc,
				s->pack ? " (16-bit units: column stride "
					  "4@TCol, half stride 2@TCol)"
					: " (rows are consecutive lanes, "
					  "columns consecutive cells)");
	} while (tile_next_coord(a, aext, na));
	memset(a, 0, sizeof(int64_t) * na);
	return true;
}

static bool
check_origin(TileEnv *e, TileCall *tc, const LdSt *s, TileOperand *op,
	     const int64_t *x, const Origin *o, int64_t q)
{
	Ctx *c = e->c;
	int rows = s->sh->rows;
	const char *at = tile_coord_str(&c->arena, x, op->rank);
	if (o->lane % rows != 0)
		return diag_error(c, PT_E_T5LS_ROW_ALIGN, op->span,
				  "%s: operand %d (%s) at %s starts at TMEM "
				  "lane %lld, which is not a multiple of the "
				  "atom's %d rows", tc->inst.spelling,
				  op->index, op->root->name, at,
				  (long long)o->lane, rows);
	if (o->lane < 32 * q || o->lane + rows > 32 * q + 32)
		return diag_error(c, PT_E_T5LS_SLAB, op->span,
				  "%s: operand %d (%s) at %s covers TMEM lanes "
				  "%lld..%lld, but it is issued by a warp w "
				  "with w %% 4 == %lld, which reaches lanes "
				  "%lld..%lld only", tc->inst.spelling,
				  op->index, op->root->name, at,
				  (long long)o->lane,
				  (long long)(o->lane + rows - 1), (long long)q,
				  (long long)(32 * q), (long long)(32 * q + 31));
	const char *why = NULL;
	if (s->pack && (lin_is_const(o->col) ? o->col.c0 % 2 != 0
			: !prove_multiple_of(&e->st, o->col, 2, &why)))
		return diag_error(c, PT_E_T5LS_PACK_ORIGIN, op->span,
				  "%s: operand %d (%s) at %s starts at TCol "
				  "unit %s (16-bit units), which is %s the low "
				  "half of a TMEM cell%s%s", tc->inst.spelling,
				  op->index, op->root->name, at,
				  lin_str(&e->st, o->col),
				  why ? "not provably" : "not",
				  why ? ": " : "", why ? why : "");
	return true;
}

/* The image, row alignment and slab of one TMEM operand at every
 * static group and repeat; origins out (ngroups x nrep). */
static bool
check_tmem_image(TileEnv *e, TileCall *tc, const LdSt *s, TileOperand *op,
		 Origin *orig)
{
	Ctx *c = e->c;
	int ng = tc->ngroup, nr = tc->nrepeat;
	int64_t gext[TILE_MAX_GROUP];
	for (int i = 0; i < ng; i++)
		gext[i] = tc->group[i].ext;
	int64_t *x = NEWN(&c->arena, int64_t, op->rank + 1);
	int k = 0;
	do {
		for (int i = ng; i < op->rank; i++)
			x[i] = 0;
		int64_t q = quarter(e, tc, x);
		do {
			Origin *o = &orig[k++];
			if (!check_image_at(e, tc, s, op, x, o) ||
			    !check_origin(e, tc, s, op, x, o, q))
				return false;
		} while (tile_next_coord(x + ng, tc->repeat, nr));
	} while (tile_next_coord(x, gext, ng));
	return true;
}

/* One backing allocation: one tensor, or tensors declared at the same
 * allocated_addr variable (their layouts then share one origin). */
static bool
same_allocation(const Buffer *a, const Buffer *b)
{
	const Expr *x = a->allocated_addr, *y = b->allocated_addr;
	if (a == b)
		return true;
	return x && y && x->kind == EX_VAR && y->kind == EX_VAR &&
	       x->u.var == y->u.var;
}

/* 16x32bx2: the second half lies imm_half_splitoff after the first in
 * the encoded address (lane << 16) + cell, in one allocation. */
static bool
check_split(TileEnv *e, TileCall *tc, const LdSt *s, TileOperand *lo,
	    TileOperand *hi, const Origin *olo, const Origin *ohi)
{
	Ctx *c = e->c;
	int64_t imm = 0;
	ir_const_int(tc->param[TP_IMM_HALF_SPLITOFF], &imm);
	if (!same_allocation(lo->root, hi->root))
		return diag_error(c, PT_E_T5LS_SPLIT_ALLOC, hi->span,
				  "%s: the two halves must share one TMEM "
				  "allocation, but operand %d is %s and "
				  "operand %d is %s, declared at different "
				  "allocated_addr values", tc->inst.spelling,
				  lo->index, lo->root->name, hi->index,
				  hi->root->name);
	int64_t n = (int64_t)s->ngroups * s->nrep;
	for (int64_t k = 0; k < n; k++) {
		Lin dc = lin_sub(&e->st, ohi[k].col, olo[k].col);
		int64_t dl = ohi[k].lane - olo[k].lane;
		bool ok = lin_is_const(dc) && (!s->pack || dc.c0 % 2 == 0);
		int64_t cells = ok ? (s->pack ? dc.c0 / 2 : dc.c0) : 0;
		uint32_t got = (uint32_t)(dl * 65536 + cells);
		if (ok && got == (uint32_t)imm)
			continue;
		return diag_error(c, PT_E_T5LS_SPLIT_OFFSET, hi->span,
				  "%s: at group/repeat %lld the second half "
				  "(operand %d) lies %lld lanes and %s %s from "
				  "the first, i.e. encoded offset %s, but "
				  "imm_half_splitoff is %lld (= (%lld << 16) + "
				  "%lld)", tc->inst.spelling, (long long)k,
				  hi->index, (long long)dl,
				  lin_str(&e->st, dc),
				  s->pack ? "TCol units" : "columns",
				  ok ? arena_printf(&c->arena, "%lld",
						    (long long)got)
				     : "not a constant",
				  (long long)imm, (long long)(imm >> 16),
				  (long long)(imm & 0xffff));
	}
	return true;
}

/* l / 2 when every coefficient is even (exact), else a floor quotient
 * the prover writes back. */
static Lin
halve(TileEnv *e, Lin l)
{
	bool even = l.c0 % 2 == 0;
	for (int i = 0; i < l.n; i++)
		even = even && l.t[i].coef % 2 == 0;
	if (!even)
		return lin_floordiv(&e->st, l, 2);
	Lin h = l;
	h.c0 /= 2;
	h.t = NEWN(&e->c->arena, LinTerm, l.n + 1);
	for (int i = 0; i < l.n; i++)
		h.t[i] = (LinTerm){l.t[i].coef / 2, l.t[i].sym};
	return h;
}

/* Per repeat: allocated_addr + (lane << 16) + cell of the atom origin,
 * with the group coordinates as the warp's hardware-id symbols. */
static bool
tmem_addresses(TileEnv *e, TileCall *tc, const LdSt *s, TileOperand *op)
{
	Ctx *c = e->c;
	Span sp = op->span;
	const View *v = op->view;
	int ng = tc->ngroup, nr = tc->nrepeat;
	if (ng > 0) {
		int n = v->nv;
		Lin *start = NEWN(&c->arena, Lin, n + 1);
		int64_t *ext = NEWN(&c->arena, int64_t, n + 1);
		bool *drop = NEWN(&c->arena, bool, n + 1);
		for (int i = 0; i < n; i++) {
			start[i] = lin_const(0);
			ext[i] = v->vext[i];
		}
		for (int i = 0; i < ng; i++) {
			start[i] = lin_add_const(
				&e->st, lin_sym(&e->st, tc->group[i].sym),
				-tc->group[i].lo);
			ext[i] = 1;
			drop[i] = true;
		}
		v = view_slice(c, sp, &e->st, v, start, ext, drop);
		if (!v)
			return false;
	}
	Expr *base = op->root->allocated_addr;
	if (dtype_bits(base->dtype) != 32) {
		Expr *k = ir_new_expr(c, EX_CAST, ET_SCALAR, DT_UINT32, sp);
		k->u.op.a = base;
		base = k;
	}
	int64_t *x = NEWN(&c->arena, int64_t, v->nv + 1);
	op->ptr_x = NEWN(&c->arena, Expr *, s->nrep + 1);
	Lin ax[AX_COUNT];
	for (int64_t r = 0; r < s->nrep; r++) {
		view_phys_lin(&e->st, v, x, 0, ax);
		Lin cell = s->pack ? halve(e, ax[AX_TCOL]) : ax[AX_TCOL];
		Lin a = lin_add(&e->st, lin_scale(&e->st, ax[AX_TLANE], 65536),
				cell);
		Expr *ax_x = NULL;
		if (!lin_is_const(a) || a.c0 != 0) {
			ax_x = tile_lin_expr(e, a, sp);
			if (!ax_x) {
				ctx_fail(c, PT_E_INTERNAL,
					 "the TMEM address of operand %d (%s) "
					 "at repeat %lld, %s, cannot be "
					 "written back as IR", op->index,
					 op->root->name, (long long)r,
					 lin_str(&e->st, a));
				return false;
			}
		}
		op->ptr_x[r] = ax_x ? tile_binop(c, BIN_ADD, base, ax_x,
						 DT_UINT32, sp)
				    : base;
		tile_next_coord(x, v->vext, nr);
	}
	return true;
}

/* The form: shape, .num, pack, and where the PTX operands go. */
static bool
parse_form(TileEnv *e, TileCall *tc, LdSt *s)
{
	Ctx *c = e->c;
	s->is_ld = tc->inst.family == PTXF_TCGEN05_LD;
	s->sh = NULL;
	for (size_t i = 0; i < countof(shapes) && !s->sh; i++)
		if (ptx_has(&tc->inst, shapes[i].qual))
			s->sh = &shapes[i];
	PT_ASSERT(s->sh); /* every table row names one shape */
	s->n = tc->inst.num;
	s->pack = ptx_has(&tc->inst, PQ_PACK_16B) ||
		  ptx_has(&tc->inst, PQ_UNPACK_16B);
	int want = s->sh->split ? 3 : 2;
	if (tc->nops != want)
		return diag_error(c, PT_E_TILE_OPERAND_COUNT, tc->span,
				  "%s takes %d tile operands %s, found %d",
				  tc->inst.spelling, want, order_text(s),
				  tc->nops);
	Expr *imm = tc->param[TP_IMM_HALF_SPLITOFF];
	if (s->sh->split && !imm)
		return diag_error(c, PT_E_TILE_PARAM_REQUIRED, tc->span,
				  "%s needs imm_half_splitoff=, the encoded "
				  "address offset (lanes << 16) + columns from "
				  "the first half to the second",
				  tc->inst.spelling);
	if (!s->sh->split && imm)
		return diag_error(c, PT_E_T5LS_SPLIT_PARAM, tc->span,
				  "imm_half_splitoff belongs to the "
				  "16x32bx2 split accesses; %s has one TMEM "
				  "access", tc->inst.spelling);
	return ptx_check_target(c, &tc->inst, tc->span);
}

/* PTX operand index of the first operand of `kind`, -1 if none. */
static int
ptx_index(const PtxInst *in, PtxOpKind kind)
{
	for (int j = 0; j < in->nops; j++)
		if (in->ops[j].kind == kind)
			return j;
	return -1;
}

static bool
check_imm(TileEnv *e, TileCall *tc, int j)
{
	int64_t v = 0;
	Expr *imm = tc->param[TP_IMM_HALF_SPLITOFF];
	ir_const_int(imm, &v);
	if (!ptx_imm_ok(&tc->inst.ops[j], v))
		return diag_error(e->c, PT_E_PTX_IMMEDIATE_RANGE, imm->span,
				  "imm_half_splitoff = %lld is outside the "
				  "immediate values of %s (%s)", (long long)v,
				  tc->inst.spelling, tc->inst.ops[j].imm);
	tc->fixed[j] = imm;
	return true;
}

bool
tile_check_tcgen05_ld_st(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	LdSt s;
	if (!parse_form(e, tc, &s) || !tile_warp_collective(e, tc))
		return false;
	if (tc->ngroup == 0 && e->warp_lo != e->warp_hi)
		return diag_error(c, PT_E_T5LS_WARP_STATIC, tc->span,
				  "%s at scope=\"warp\": warps %lld..%lld may "
				  "issue it, and each reaches its own 32-lane "
				  "TMEM slab; select one warp with a guard "
				  "(if warp == k:) or use scope=\"warpgroup\" "
				  "or \"cta\"", tc->inst.spelling,
				  (long long)e->warp_lo, (long long)e->warp_hi);
	tc->form = arena_printf(&c->arena, "%s  %s", tc->inst.spelling,
				ptx_describe_operands(&c->arena, &tc->inst));
	int nmem = s.sh->split ? 2 : 1;
	TileOperand *reg = &tc->ops[s.is_ld ? 0 : nmem];
	TileOperand *mem[2];
	for (int i = 0; i < nmem; i++)
		mem[i] = &tc->ops[s.is_ld ? 1 + i : i];
	if (!check_order(e, tc, &s, reg, mem, nmem))
		return false;
	reg->role = ROLE_REG;
	reg->out = s.is_ld;
	reg->ptx_op = ptx_index(&tc->inst, PTXOP_VEC);
	for (int i = 0; i < nmem; i++) {
		mem[i]->role = ROLE_MEM;
		mem[i]->out = !s.is_ld;
		mem[i]->ptx_op = i == 0 ? ptx_index(&tc->inst, PTXOP_ADDR)
				      : -1;
	}
	/* operands in call order set and then match the repeat shape */
	for (int i = 0; i < tc->nops; i++) {
		TileOperand *op = &tc->ops[i];
		if (!(op == reg ? check_registers(e, tc, &s, op)
				: check_tmem_shape(e, tc, &s, op)))
			return false;
	}
	s.nrep = tile_repeat_count(tc);
	s.ngroups = 1;
	for (int i = 0; i < tc->ngroup; i++)
		s.ngroups *= (int)tc->group[i].ext;
	int64_t atom = (int64_t)s.sh->rows * s.sh->cols * s.n * 2;
	if (s.ngroups * s.nrep * atom > TILE_MAX_COORDS)
		return diag_error(c, PT_E_TILE_TOO_LARGE, tc->span,
				  "%s: %lld TMEM coordinates; the limit is %d",
				  tc->inst.spelling,
				  (long long)(s.ngroups * s.nrep * atom),
				  TILE_MAX_COORDS);
	Origin *orig[2];
	for (int i = 0; i < nmem; i++) {
		orig[i] = NEWN(&c->arena, Origin, s.ngroups * s.nrep + 1);
		if (!check_tmem_image(e, tc, &s, mem[i], orig[i]))
			return false;
	}
	if (s.sh->split &&
	    (!check_split(e, tc, &s, mem[0], mem[1], orig[0], orig[1]) ||
	     !check_imm(e, tc, ptx_index(&tc->inst, PTXOP_IMM))))
		return false;
	if (!tile_collective_slots(e, tc, reg, reg->atom_axes,
				   s.sh->regs * s.n, s.sh->map, NULL,
				   PT_E_T5LS_REG_OWNER) ||
	    !tmem_addresses(e, tc, &s, mem[0]))
		return false;
	tc->count = s.nrep;
	return tile_check_overlap(e, tc);
}
