/*
 * tcgen05_cp.c - shared-to-TMEM copies, tcgen05.cp.cta_group::{1,2}
 * .{128x256b,128x128b,4x256b,64x128b.warpx2::02_13|01_23,32x128b.warpx4}
 * [.b8x16.b6x16_p32|.b8x16.b4x16_p64] (reference "Shared-to-TMEM copies").
 *
 * Operands dst_tmem, src_shared, both 32-bit, both (*repeat, rows,
 * words) with the shape's atom; issued by one thread (scope="thread").
 * The destination layout states the multicast replicas: every logical
 * (row, word) must sit exactly at the lanes the shape names, at column
 * col0 + word (col0 a multiple of 4 cells), inside 128 x 512.  The source
 * is a K-walk shared descriptor image (descriptors.c, modes 0..3).
 * Output (lower hook): one mov of the shared storage address, then per
 * row-major repeat one tcgen05.cp [tmem addr], descriptor.  Allocation,
 * fences, election, commit and wait are caller code.
 */
#include <string.h>

#include "tile/tile.h"
#include "tile/descriptors.h"

enum { CP_DST, CP_SRC };

typedef struct CpShape {
	PtxQual qual;
	int rows, words;
	int nrep;          /* lane replicas of each row */
} CpShape;

static const CpShape shapes[] = {
	{PQ_S128X256B, 128, 8, 1},
	{PQ_S128X128B, 128, 4, 1},
	{PQ_S4X256B, 4, 8, 1},
	{PQ_S64X128B_02_13, 64, 4, 2},
	{PQ_S64X128B_01_23, 64, 4, 2},
	{PQ_S32X128B_WARPX4, 32, 4, 4},
};

/* Lane of row r, replica k, relative to the origin lane. */
static int64_t
cp_lane(const CpShape *s, int64_t r, int k)
{
	switch (s - shapes) {
	case 2: return 32 * r;
	case 3: return r + 64 * k;
	case 4: return 64 * (r / 32) + r % 32 + 32 * k;
	case 5: return r + 32 * k;
	default: return r;
	}
}

typedef struct CpCall {
	const CpShape *shape;
	TileDesc src;
	int64_t *lane;  /* per repeat: origin lane */
	Expr **col;     /* per repeat: origin column expression */
} CpCall;

static bool
check_shape(TileEnv *e, TileCall *tc, TileOperand *op, const CpShape *s)
{
	Ctx *c = e->c;
	if (op->scalar)
		return diag_error(c, PT_E_CP_OPERANDS, op->span,
				  "operand %d of %s must be a tensor, found a "
				  "scalar", op->index, tc->inst.spelling);
	if (op->bits != 32)
		return diag_error(c, PT_E_CP_DTYPE, op->span,
				  "operand %d (%s) has %d-bit elements; "
				  "tcgen05.cp operands are 32-bit storage "
				  "words (view it as uint32)", op->index,
				  op->root->name, op->bits);
	if (op->rank < 2 || op->ext[op->rank - 2] != s->rows ||
	    op->ext[op->rank - 1] != s->words)
		return diag_error(c, PT_E_CP_SHAPE, op->span,
				  "operand %d (%s) has shape %s; %s needs it "
				  "to end in (rows, b32 words) = (%d, %d)",
				  op->index, op->root->name,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  tc->inst.spelling, s->rows, s->words);
	op->atom_axes = 2;
	op->natom = s->rows * s->words;
	return tile_shape_operand(e, tc, op);
}

/* The destination at repeat r: lanes and columns of every replica. */
static bool
check_dst_repeat(TileEnv *e, TileCall *tc, TileOperand *op, CpCall *cp,
		 int64_t r, int64_t *x)
{
	Ctx *c = e->c;
	const CpShape *s = cp->shape;
	int nr = tc->nrepeat;
	int64_t nrepl = layout_nreplicas(op->view->layout);
	const char *rep = tile_coord_str(&c->arena, x, nr);
	if (nrepl != s->nrep)
		return diag_error(c, PT_E_CP_REPLICA, op->span,
				  "operand 0 (%s): %s writes each row to %d "
				  "lane%s, but the layout states %lld "
				  "replica%s (state the multicast with R[...] "
				  "on TLane)", op->root->name,
				  tc->inst.spelling, s->nrep,
				  s->nrep > 1 ? "s" : "", (long long)nrepl,
				  nrepl > 1 ? "s" : "");
	Lin ax[AX_COUNT], col0 = {0};
	int64_t lane0 = 0;
	for (int64_t row = 0; row < s->rows; row++)
		for (int w = 0; w < s->words; w++)
			for (int k = 0; k < s->nrep; k++) {
				x[nr] = row;
				x[nr + 1] = w;
				view_phys_lin(&e->st, op->view, x, k, ax);
				if (!lin_is_const(ax[AX_TLANE]))
					return diag_error(
						c, PT_E_TMEM_LANES, op->span,
						"operand 0 (%s): TMEM lane %s "
						"is symbolic; lanes must be "
						"static", op->root->name,
						lin_str(&e->st, ax[AX_TLANE]));
				if (row == 0 && w == 0 && k == 0) {
					lane0 = ax[AX_TLANE].c0;
					col0 = ax[AX_TCOL];
				}
				int64_t want = lane0 + cp_lane(s, row, k);
				Lin dc = lin_sub(&e->st, ax[AX_TCOL], col0);
				if (ax[AX_TLANE].c0 != want)
					return diag_error(
						c, k ? PT_E_CP_REPLICA
						     : PT_E_TMEM_LANES, op->span,
						"operand 0 (%s) at repeat %s: "
						"row %lld%s is at TMEM lane "
						"%lld, %s puts it at lane %lld",
						op->root->name, rep,
						(long long)row,
						k ? arena_printf(&c->arena,
								 " replica %d", k)
						  : "",
						(long long)ax[AX_TLANE].c0,
						tc->inst.spelling,
						(long long)want);
				if (!lin_is_const(dc) || dc.c0 != w)
					return diag_error(
						c, PT_E_TMEM_COLS, op->span,
						"operand 0 (%s) at repeat %s: "
						"word %d of row %lld is at "
						"column offset %s, expected "
						"consecutive 32-bit cells "
						"(offset %d)", op->root->name,
						rep, w, (long long)row,
						lin_str(&e->st, dc), w);
			}
	int64_t lane_hi = lane0 + cp_lane(s, s->rows - 1, s->nrep - 1);
	if (!lin_is_const(col0) &&
	    !view_prove_bounds(c, op->span, &e->st, col0, 0, 512 - s->words,
			       "the TMEM column origin"))
		return false;
	if (lane0 < 0 || lane_hi > 127 ||
	    (lin_is_const(col0) &&
	     (col0.c0 < 0 || col0.c0 + s->words > 512)))
		return diag_error(c, PT_E_TMEM_BOUNDS, op->span,
				  "operand 0 (%s) at repeat %s: lanes %lld.."
				  "%lld and columns from %s leave the 128-lane, "
				  "512-column TMEM", op->root->name, rep,
				  (long long)lane0, (long long)lane_hi,
				  lin_str(&e->st, col0));
	const char *why = NULL;
	if (!prove_multiple_of(&e->st, col0, 4, &why))
		return diag_error(c, PT_E_TMEM_COLS, op->span,
				  "operand 0 (%s) at repeat %s: column origin "
				  "%s is not 128-bit aligned (a multiple of 4 "
				  "cells)", op->root->name, rep,
				  lin_str(&e->st, col0));
	cp->lane[r] = lane0;
	cp->col[r] = tile_lin_expr(e, col0, op->span);
	return true;
}

static bool
check_dst(TileEnv *e, TileCall *tc, TileOperand *op, CpCall *cp)
{
	Ctx *c = e->c;
	if (op->root->scope != MS_TMEM || !op->root->allocated_addr)
		return diag_error(c, PT_E_TMEM_SPACE, op->span,
				  "operand 0 (%s) must be tensor memory "
				  "(T.decl_buffer(..., scope=\"tmem\", "
				  "allocated_addr=...)), found %s memory",
				  op->root->name,
				  memscope_name(op->root->scope));
	int64_t n = tile_repeat_count(tc);
	cp->lane = NEWN(&c->arena, int64_t, n + 1);
	cp->col = NEWN(&c->arena, Expr *, n + 1);
	int64_t *x = NEWN(&c->arena, int64_t, op->rank + 1);
	for (int64_t r = 0; r < n; r++) {
		int64_t q = r;
		for (int i = tc->nrepeat - 1; i >= 0; i--) {
			x[i] = q % tc->repeat[i];
			q /= tc->repeat[i];
		}
		if (!check_dst_repeat(e, tc, op, cp, r, x))
			return false;
	}
	return true;
}

/* A shape of fewer than eight rows (4x256b) still reads through the
 * descriptor's eight-row organization: rows 0..7 of every repeat must
 * lie in the source allocation (reference "Shared descriptor address
 * walk").  Row r starts at (r%8) * 16 << swizzle; an unswizzled 32-byte
 * row spans its LDO chunk too; a swizzle stays inside its row span. */
static bool
check_backing(TileEnv *e, TileCall *tc, TileOperand *op, const CpCall *cp)
{
	Ctx *c = e->c;
	const CpShape *s = cp->shape;
	if (s->rows % 8 == 0)
		return true;
	const Buffer *b = op->root;
	int64_t shape[VIEW_MAX_DIMS];
	for (int d = 0; d < b->ndim && d < VIEW_MAX_DIMS; d++)
		if (!ir_const_int(b->shape[d], &shape[d]))
			return true; /* no static shape: nothing to compare */
	int64_t have = layout_alloc_elems(b->layout, shape, b->ndim) *
		       dtype_bits(b->dtype) / 8;
	int64_t row = s->words * 4;
	for (int64_t r = 0; r < cp->src.nrep; r++) {
		uint64_t hi = cp->src.hi[r];
		int code = (int)(hi >> 61);
		int64_t lbo = (int64_t)((hi >> 16) & 0x3FFF) << 4;
		int64_t span = code == 2 ? 128 : code == 4 ? 64
			     : code == 6 ? 32 : 16;
		int64_t end = span == 16
			? 7 * 16 + (row > 16 ? lbo : 0) + 16
			: 7 * span + (row + span - 1) / span * span;
		end += cp->src.start[r];
		if (cp->src.sym_hi < 0 || end + cp->src.sym_hi > have)
			return diag_error(
				c, PT_E_CP_BACKING, op->span,
				"operand 1 (%s): %s reads %d rows through the "
				"descriptor's 8-row organization, which reaches "
				"byte %lld%s of the allocation at repeat %lld, "
				"but %s holds %lld bytes", b->name,
				tc->inst.spelling, s->rows,
				(long long)(end - 1),
				cp->src.sym_hi > 0 ? " plus the origin" : "",
				(long long)r, b->name, (long long)have);
	}
	return true;
}

static void
lower_cp(Ctx *c, const TileCall *tc, Block *out)
{
	const CpCall *cp = tc->fam_data;
	Expr *base = tile_desc_base(c, tc, &tc->ops[CP_SRC], out);
	Expr *over[PTX_MAX_OPS] = {0};
	int64_t n = tile_repeat_count(tc);
	for (int64_t r = 0; r < n; r++) {
		over[0] = tile_tmem_addr(c, &tc->ops[CP_DST], cp->lane[r],
					 cp->col[r]);
		over[1] = tile_desc_value(c, &cp->src, r, base);
		Stmt *s = ir_new_stmt(c, ST_EVAL, tc->span);
		s->u.value = tile_lower_issue(c, tc, r, over);
		vec_push(&c->arena, out, s);
	}
}

bool
tile_check_tcgen05_cp(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	if (tc->scope != ES_THREAD)
		return diag_error(c, PT_E_TC05_SCOPE, tc->span,
				  "%s is issued by one thread: call it with "
				  "scope=\"thread\" under your own election, "
				  "found scope=\"%s\"", tc->inst.spelling,
				  execscope_name(tc->scope));
	if (tc->nops != 2)
		return diag_error(c, PT_E_CP_OPERANDS, tc->span,
				  "%s takes 2 tile operands (dst_tmem, "
				  "src_shared), found %d", tc->inst.spelling,
				  tc->nops);
	CpCall *cp = NEW(&c->arena, CpCall);
	for (size_t i = 0; i < countof(shapes); i++)
		if (ptx_has(&tc->inst, shapes[i].qual))
			cp->shape = &shapes[i];
	PT_ASSERT(cp->shape);
	if (!ptx_check_target(c, &tc->inst, tc->span) ||
	    !tile_tc05_group(e, tc))
		return false;
	TileOperand *dst = &tc->ops[CP_DST], *src = &tc->ops[CP_SRC];
	dst->role = src->role = ROLE_MEM;
	dst->out = true;
	dst->ptx_op = 0;
	src->ptx_op = 1;
	if (!dst->scalar && dst->root->scope != MS_TMEM &&
	    !src->scalar && src->root->scope == MS_TMEM)
		return diag_error(c, PT_E_CP_OPERANDS, tc->span,
				  "%s operands are (dst_tmem, src_shared); "
				  "these are swapped", tc->inst.spelling);
	if (!check_shape(e, tc, dst, cp->shape) ||
	    !check_shape(e, tc, src, cp->shape) ||
	    !check_dst(e, tc, dst, cp))
		return false;
	static const DescMode modes[] = {DESC_NONE, DESC_SW32, DESC_SW64,
					 DESC_SW128};
	if (!tile_desc_operand(e, src, DESC_WALK_K, false, modes, 4,
			       &cp->src) ||
	    !check_backing(e, tc, src, cp))
		return false;
	tc->fam_data = cp;
	tc->count = tile_repeat_count(tc);
	tc->lower = lower_cp;
	return true;
}
