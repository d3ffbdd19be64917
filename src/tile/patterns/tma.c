/*
 * tma.c - tensor memory accelerator transfers: cp.async.bulk.tensor
 * loads and stores and cp.reduce.async.bulk.tensor reductions (reference
 * "Tensor memory accelerator transfers").
 *
 * Operands: a load takes (shared, global); a store or reduction takes
 * (global, shared).  The global side is a whole T.Tensor parameter (its
 * tensor map is recorded as a tensor-map slot (TileProgram.tma_slots,
 * then its kernel's Func.tmaps once lowered) that the runtime
 * encodes at launch from the actual argument) or a T.TensorMap()
 * parameter encoded by the caller (its fields are the caller's contract;
 * nothing is inspected).  The shared side has shape (*group, *repeat,
 * *image) with the image ceil(box / element_strides) per dimension (the
 * reference's variants for gather4/scatter4, interleave and packed FP4
 * below), compact in the unswizzled storage, its origin 128-byte aligned,
 * a swizzled allocation aligned to the swizzle period.
 *
 * Output: one native instruction per group/repeat coordinate, row-major:
 * coordinates = coords + sum over group/repeat axes of index *
 * coord_steps[axis], reversed (innermost first) for PTX; the shared
 * address is the image origin's *unswizzled* address (the hardware
 * applies the swizzle phase once).  The call elects no thread and adds
 * no fence, commit, wait, expect_tx or prefetch: that is caller code.
 *
 * Variants: gather4/scatter4 (2d, box (1, width), image (4, width), the
 * row coordinate replaced by the four gather4 rows); interleave 1/2
 * (global axes (N, C_slices, *spatial, Ci), image with a single C slice
 * and the Ci axis, interleave 2 with swizzle 1); format float4_e2m1fn
 * (16U4_ALIGN16B, loads only, inner box 128, each 16 nibbles in the low 8
 * bytes of a 16-byte block: the image's inner extent is 128 bytes, the
 * payload half of that).
 */
#include <string.h>

#include "tile/tile.h"

#define TMA_MAX_RANK 5

typedef enum TmaDir { TMA_LOAD, TMA_STORE, TMA_REDUCE } TmaDir;

/* The decisions of one call, for the lowering. */
typedef struct TmaCall {
	TmaDir dir;
	int rank;               /* descriptor dims (the opcode's .Nd) */
	bool gather4;           /* .tile::gather4 / .tile::scatter4 */
	int nsteps;             /* group + repeat axes */
	int64_t (*steps)[TMA_MAX_RANK];
	Expr *coords[TMA_MAX_RANK];
	Expr *rows[4];          /* gather4 row coordinates */
	Expr *map;              /* T.TensorMap variable, or NULL: slot */
	TmapSlot *slot;
	int smem;               /* index of the shared operand */
	int64_t payload;        /* bytes each issue transfers */
} TmaCall;

/* Static descriptor fields of a call. */
typedef struct TmaFields {
	int64_t box[TMA_MAX_RANK], es[TMA_MAX_RANK];
	int swizzle, interleave, l2, oob;
	/* a region of the global tensor: origin/extent per dim (extent 0:
	 * to the end), outermost first */
	bool region;
	int64_t origin[TMA_MAX_RANK], extent[TMA_MAX_RANK];
	DType format;           /* element representation */
	bool fp4;               /* 16U4_ALIGN16B */
	bool tf32;              /* tf32 over float32 storage */
} TmaFields;

/* ---- parameters ---- */

static int64_t
int_param(const TileCall *tc, int id, int64_t dflt)
{
	int64_t v;
	return tc->param[id] && ir_const_int(tc->param[id], &v) ? v : dflt;
}

static const ExprVec *
tuple_param(const TileCall *tc, int id)
{
	return tc->param[id] ? &tc->param[id]->u.tuple : NULL;
}

/* A static integer tuple of length rank with entries in [lo, hi]. */
static bool
static_ints(TileEnv *e, const TileCall *tc, int id, int rank, int64_t lo,
	    int64_t hi, int code, int64_t *out)
{
	const ExprVec *t = tuple_param(tc, id);
	const char *name = id == TP_BOX ? "box" : "element_strides";
	if (!t)
		return true;
	if ((int)t->n != rank)
		return diag_error(e->c, code, tc->param[id]->span,
				  "%s has %d entries, but %s is a %dd "
				  "transfer: one entry per dimension, outer to "
				  "inner", name, (int)t->n, tc->inst.spelling,
				  rank);
	for (int i = 0; i < rank; i++) {
		if (!ir_const_int(t->v[i], &out[i]) || out[i] < lo ||
		    out[i] > hi)
			return diag_error(e->c, code, tc->param[id]->span,
					  "%s[%d] = %lld is outside %lld..%lld",
					  name, i, (long long)out[i],
					  (long long)lo, (long long)hi);
	}
	return true;
}

static bool
field_range(TileEnv *e, const TileCall *tc, int id, const char *name,
	    int64_t hi, int *out)
{
	int64_t v = int_param(tc, id, 0);
	if (v < 0 || v > hi)
		return diag_error(e->c, PT_E_TMA_FIELD, tc->param[id]->span,
				  "%s = %lld is outside 0..%lld", name,
				  (long long)v, (long long)hi);
	*out = (int)v;
	return true;
}

static bool
is_float_format(DType t)
{
	return t == DT_FLOAT16 || t == DT_BFLOAT16 || t == DT_FLOAT32 ||
	       t == DT_FLOAT64 || t == DT_TF32;
}

/* format: the storage dtype itself, tf32 over float32, or float4_e2m1fn
 * (the packed 16U4_ALIGN16B load format) over float4_e2m1fn storage.
 * Anything else would reinterpret the data and is rejected. */
static bool
check_format(TileEnv *e, const TileCall *tc, DType storage, TmaFields *f)
{
	const Expr *p = tc->param[TP_FORMAT];
	DType want = storage;
	if (p && !dtype_parse(p->u.str, &want))
		return diag_error(e->c, PT_E_TMA_FORMAT, p->span,
				  "format \"%s\" is not a dtype name", p->u.str);
	f->format = want;
	f->tf32 = want == DT_TF32 && storage == DT_FLOAT32;
	f->fp4 = want == DT_E2M1 && storage == DT_E2M1;
	if (want != storage && !f->tf32)
		return diag_error(e->c, PT_E_TMA_FORMAT, p->span,
				  "format %s over %s storage would reinterpret "
				  "the data; use the storage dtype (or tf32 "
				  "over float32)", dtype_name(want),
				  dtype_name(storage));
	if (dtype_bits(want) % 8 != 0 && !f->fp4)
		return diag_error(e->c, PT_E_TMA_FORMAT,
				  p ? p->span : tc->span,
				  "%s has no TMA format (sub-byte data needs "
				  "format=\"float4_e2m1fn\" over float4_e2m1fn)",
				  dtype_name(want));
	return true;
}

static bool
check_fields(TileEnv *e, const TileCall *tc, int rank, TmaFields *f)
{
	for (int i = 0; i < rank; i++)
		f->es[i] = 1;
	if (!tc->param[TP_BOX])
		return diag_error(e->c, PT_E_TILE_PARAM_REQUIRED, tc->span,
				  "%s needs box=(...): one extent per "
				  "dimension, outer to inner", tc->inst.spelling);
	return static_ints(e, tc, TP_BOX, rank, 1, 256, PT_E_TMA_BOX,
			   f->box) &&
	       static_ints(e, tc, TP_ELEMENT_STRIDES, rank, 1, 8,
			   PT_E_TMA_ELEMENT_STRIDES, f->es) &&
	       field_range(e, tc, TP_SWIZZLE, "swizzle", 3, &f->swizzle) &&
	       field_range(e, tc, TP_INTERLEAVE, "interleave", 2,
			   &f->interleave) &&
	       field_range(e, tc, TP_L2_PROMOTION, "l2_promotion", 3, &f->l2) &&
	       field_range(e, tc, TP_OOB_FILL, "oob_fill", 1, &f->oob);
}

/* ---- direction and operand order ---- */

static TmaDir
direction(const PtxInst *in)
{
	if (in->family == PTXF_TMA_REDUCE)
		return TMA_REDUCE;
	return in->ops[0].kind == PTXOP_TENSOR ? TMA_STORE : TMA_LOAD;
}

static const char *const dir_names[] = {"load", "store", "reduction"};

static bool
is_tensormap(const TileEnv *e, const Expr *x)
{
	if (x->kind != EX_VAR)
		return false;
	for (size_t i = 0; i < e->f->params.n; i++)
		if (e->f->params.v[i].kind == PK_TENSORMAP &&
		    e->f->params.v[i].var == x->u.var)
			return true;
	return false;
}

static bool
is_global(const TileEnv *e, const Expr *x)
{
	if (x->type == ET_SCALAR)
		return is_tensormap(e, x);
	Buffer *b = x->type == ET_TENSOR ? tile_root_buffer(x) : NULL;
	return b && b->scope == MS_GLOBAL;
}

static bool
check_order(TileEnv *e, TileCall *tc, TmaDir dir)
{
	int gi = dir == TMA_LOAD ? 1 : 0;
	const TileOperand *g = &tc->ops[gi], *s = &tc->ops[1 - gi];
	if (is_global(e, g->expr) && !is_global(e, s->expr))
		return true;
	return diag_error(e->c, PT_E_TMA_ORDER, tc->span,
			  "a TMA %s takes %s; operand %d must be the %s "
			  "operand (a global T.Tensor or a T.TensorMap)",
			  dir_names[dir],
			  dir == TMA_LOAD ? "(shared, global)"
					  : "(global, shared)",
			  gi, "global");
}

/* ---- the global operand ---- */

/* True when region x covers its base completely (x[:, :], x[0:n]). */
static bool
full_region(const Expr *x, const Buffer *b)
{
	if (x->kind == EX_BUF)
		return x->u.buf == b;
	if (x->kind != EX_REGION || x->u.region.base->kind != EX_BUF ||
	    x->u.region.base->u.buf != b || x->u.region.ndims != b->ndim)
		return false;
	for (int i = 0; i < b->ndim; i++) {
		const Slice *s = &x->u.region.dims[i];
		int64_t v;
		if (!s->is_slice)
			return false;
		if (s->begin && (!ir_const_int(s->begin, &v) || v != 0))
			return false;
		if (s->end && !ir_expr_equal(s->end, b->shape[i]))
			return false;
	}
	return true;
}

/* A rectangular region b[o0:e0, o1:e1, ...] with constant bounds
 * (an end equal to the dim's size reads "to the end", extent 0): the
 * runtime encodes the map at the region's origin with the region's
 * dims.  False when x is no such region of b. */
static bool
region_of(const Expr *x, const Buffer *b, TmaFields *f)
{
	if (x->kind != EX_REGION || x->u.region.base->kind != EX_BUF ||
	    x->u.region.base->u.buf != b || x->u.region.ndims != b->ndim ||
	    b->ndim > TMA_MAX_RANK)
		return false;
	for (int i = 0; i < b->ndim; i++) {
		const Slice *s = &x->u.region.dims[i];
		int64_t o = 0, end = 0, dim = 0;
		if (!s->is_slice || (s->begin && !ir_const_int(s->begin, &o)) ||
		    o < 0)
			return false;
		bool to_end = !s->end || ir_expr_equal(s->end, b->shape[i]);
		if (!to_end && !ir_const_int(s->end, &end))
			return false;
		if (!to_end && end <= o)
			return false;
		if (to_end && ir_const_int(b->shape[i], &dim)) {
			to_end = false;
			end = dim;
		}
		f->origin[i] = o;
		f->extent[i] = to_end ? 0 : end - o;
	}
	f->region = true;
	return true;
}

/* Innermost stride of a global tensor's layout: 1 for the default. */
static bool
unit_inner_stride(const Buffer *b)
{
	if (!b->layout)
		return true;
	int64_t shape[VIEW_MAX_DIMS], x[VIEW_MAX_DIMS] = {0};
	for (int i = 0; i < b->ndim; i++)
		if (!ir_const_int(b->shape[i], &shape[i]))
			return false;
	if (shape[b->ndim - 1] < 2)
		return true;
	PhysCoord p0, p1;
	layout_eval(b->layout, shape, b->ndim, x, &p0);
	x[b->ndim - 1] = 1;
	layout_eval(b->layout, shape, b->ndim, x, &p1);
	return p1.v[AX_M] - p0.v[AX_M] == 1 &&
	       layout_tile(b->layout) == b->layout;
}

static bool
check_global_tensor(TileEnv *e, TileCall *tc, const TileOperand *op,
		    int rank, TmaFields *f, Buffer **out)
{
	Ctx *c = e->c;
	Buffer *b = tile_root_buffer(op->expr);
	if (!b || b->kind != BK_PARAM ||
	    (!full_region(op->expr, b) && !region_of(op->expr, b, f)))
		return diag_error(c, PT_E_TMA_GLOBAL_VIEW, op->span,
				  "operand %d: the tensor map describes a "
				  "T.Tensor parameter or a rectangular region "
				  "of one with constant bounds and every axis "
				  "kept (or pass a T.TensorMap)", op->index);
	/* the region's start is the map's global address: 16-byte (32 for
	 * 32B interleave and packed 16B formats) aligned given an aligned
	 * tensor, so its inner offset must be */
	int64_t al = f->interleave == 2 || f->fp4 ? 32 : 16;
	int64_t inner = f->region ? f->origin[b->ndim - 1] *
				    dtype_bits(b->dtype) / 8 : 0;
	if (f->region && (inner % al != 0 || b->align % al != 0))
		return diag_error(c, PT_E_TMA_GLOBAL_VIEW, op->span,
				  "operand %d (%s): the region starts %lld "
				  "bytes into its rows%s; the tensor map's "
				  "address must be %lld-byte aligned", op->index,
				  b->name, (long long)inner,
				  b->align % al ? " of a tensor not declared "
						  "that aligned"
						: "", (long long)al);
	int want = rank + (f->interleave ? 1 : 0);
	if (b->ndim != want)
		return diag_error(c, PT_E_TMA_RANK, op->span,
				  "operand %d (%s) has %d axes, but %s needs "
				  "%d%s", op->index, b->name, b->ndim,
				  tc->inst.spelling, want,
				  f->interleave ? " ((N, C_slices, *spatial, "
						  "Ci) for interleave)" : "");
	if (!unit_inner_stride(b))
		return diag_error(c, PT_E_TMA_GLOBAL_STRIDE, op->span,
				  "operand %d (%s): TMA needs a unit innermost "
				  "stride (a dense innermost axis), but its "
				  "layout %s has another", op->index, b->name,
				  layout_str(&c->arena, b->layout));
	*out = b;
	return true;
}

/* ---- the shared image ---- */

static int
image_dims(const TmaCall *k, const TmaFields *f, int bits, int64_t *img)
{
	if (k->gather4) {
		img[0] = 4;
		img[1] = f->box[1];
		return 2;
	}
	for (int i = 0; i < k->rank; i++)
		img[i] = (f->box[i] + f->es[i] - 1) / f->es[i];
	if (f->fp4) {
		img[k->rank - 1] = 128 * 8 / bits; /* 128 bytes per row */
		return k->rank;
	}
	if (!f->interleave)
		return k->rank;
	img[1] = 1; /* one channel slice per issue */
	img[k->rank] = (f->interleave == 1 ? 16 : 32) * 8 / bits;
	return k->rank + 1;
}

static int64_t
swizzle_period(int swizzle)
{
	return swizzle ? (int64_t)128 << swizzle : 128;
}

static bool
check_swizzle(TileEnv *e, TileCall *tc, const TileOperand *op,
	      const TmaFields *f)
{
	Ctx *c = e->c;
	static const char *const names[] = {"none", "32B", "64B", "128B"};
	SwizzleMode m = layout_swizzle_mode(op->view->layout, op->bits);
	int have = m <= SWZ_128B ? (int)m : -1;
	if (have != f->swizzle)
		return diag_error(c, PT_E_TMA_SWIZZLE_MISMATCH, op->span,
				  "swizzle=%d (%s) but the shared layout of "
				  "operand %d (%s) %s", f->swizzle,
				  names[f->swizzle], op->index, op->root->name,
				  have < 0 ? "is a swizzle that is no TMA mode"
				  : arena_printf(&c->arena, "implements %s",
						 names[have]));
	int64_t period = swizzle_period(f->swizzle);
	int64_t el = (op->bits + 7) / 8;
	int64_t align = op->root->align > el ? op->root->align : el;
	if (f->swizzle && align % period != 0)
		return diag_error(c, PT_E_TMA_SWIZZLE_PERIOD, op->span,
				  "operand %d (%s): the %s swizzle repeats every "
				  "%lld bytes, so the allocation must be aligned "
				  "to them (declare align=%lld), but it is "
				  "aligned to %lld", op->index, op->root->name,
				  names[f->swizzle], (long long)period,
				  (long long)period, (long long)align);
	if (align % 128 != 0)
		return diag_error(c, PT_E_TMA_SMEM_ALIGN, op->span,
				  "operand %d (%s): TMA images start on 128-byte "
				  "boundaries; declare align=128 (found %lld)",
				  op->index, op->root->name, (long long)align);
	return true;
}

/* The inner box in bytes: a multiple of 16, within the swizzle span. */
static bool
check_inner_box(TileEnv *e, TileCall *tc, const TmaCall *k,
		const TmaFields *f)
{
	if (f->interleave)
		return true;
	int64_t bits = f->fp4 ? 4 : dtype_bits(f->format);
	int64_t bytes = f->box[k->rank - 1] * bits / 8;
	int64_t span = f->swizzle ? (int64_t)16 << f->swizzle : 0;
	if ((f->box[k->rank - 1] * bits) % 128 != 0)
		return diag_error(e->c, PT_E_TMA_INNER_BOX, tc->span,
				  "the inner box is %lld %s elements, not a "
				  "multiple of 16 bytes",
				  (long long)f->box[k->rank - 1],
				  dtype_name(f->format));
	if (span && bytes > span)
		return diag_error(e->c, PT_E_TMA_INNER_BOX, tc->span,
				  "the inner box is %lld bytes, wider than the "
				  "%lld-byte span of swizzle=%d", (long long)bytes,
				  (long long)span, f->swizzle);
	return true;
}

/* The shared operand without its group axes (the executing thread's
 * part), seen through the unswizzled layout. */
static View *
unswizzled_view(TileEnv *e, TileCall *tc, TileOperand *op)
{
	Ctx *c = e->c;
	View *v = tile_thread_view(e, tc, op);
	if (!v)
		return NULL;
	View *u = NEW(&c->arena, View);
	*u = *v;
	u->layout = layout_tile(v->layout);
	return u;
}

/* Image axis k at repeat x steps by the row-major stride of the image:
 * each element of the axis is checked against the origin. */
static bool
check_compact(TileEnv *e, TileCall *tc, const TileOperand *op, View *u,
	      int64_t *x, int nimg, Lin m0)
{
	int nr = tc->nrepeat;
	const int64_t *img = op->ext + tc->ngroup + nr;
	int64_t stride = 1;
	for (int k = nimg - 1; k >= 0; k--) {
		for (int64_t j = 1; j < img[k]; j++) {
			Lin ax[AX_COUNT];
			x[nr + k] = j;
			view_phys_lin(&e->st, u, x, 0, ax);
			x[nr + k] = 0;
			Lin d = lin_sub(&e->st, ax[AX_M], m0);
			if (lin_is_const(d) && d.c0 == j * stride)
				continue;
			return diag_error(
				e->c, PT_E_TMA_IMAGE, op->span,
				"the shared image of operand %d (%s) at repeat "
				"%s is not compact before swizzling: element %lld "
				"of image axis %d is at offset %s from the "
				"origin, expected %lld", op->index,
				op->root->name,
				tile_coord_str(&e->c->arena, x, nr),
				(long long)j, k, lin_str(&e->st, d),
				(long long)(j * stride));
		}
		stride *= img[k];
	}
	return true;
}

/* The shared storage as a flat vector of the operand's elements:
 * `buf.view(N)[.view(dtype)]`, addressed at the unswizzled offset. */
static Expr *
flat_storage(Ctx *c, const TileOperand *op, int64_t n, Span sp)
{
	Buffer *b = op->root;
	Expr *x = ir_new_expr(c, EX_BUF, ET_TENSOR, b->dtype, sp);
	x->u.buf = b;
	Expr *r = ir_new_expr(c, EX_VIEW_RESHAPE, ET_TENSOR, b->dtype, sp);
	r->u.view.base = x;
	vec_push(&c->arena, &r->u.view.shape, tile_int(c, n, sp));
	/* sub-byte images (packed FP4) are addressed in bytes */
	DType t = op->bits % 8 ? DT_UINT8 : op->dtype;
	if (t == b->dtype)
		return r;
	Expr *v = ir_new_expr(c, EX_VIEW_DTYPE, ET_TENSOR, t, sp);
	v->u.view.base = r;
	return v;
}

static int64_t
storage_elems(const Buffer *b)
{
	int64_t shape[VIEW_MAX_DIMS];
	for (int d = 0; d < b->ndim && d < VIEW_MAX_DIMS; d++)
		if (!ir_const_int(b->shape[d], &shape[d]))
			return 0;
	return layout_alloc_elems(b->layout, shape, b->ndim);
}

/* Origin of the image at every repeat: compact, 128-byte aligned; the
 * pointer of each issue (ptr_x) at the unswizzled origin. */
static bool
check_origins(TileEnv *e, TileCall *tc, TileOperand *op, int nimg)
{
	Ctx *c = e->c;
	View *u = unswizzled_view(e, tc, op);
	if (!u)
		return false;
	int nr = tc->nrepeat;
	int64_t nrep = tile_repeat_count(tc);
	int64_t *x = NEWN(&c->arena, int64_t, nr + nimg + 1);
	int64_t elems = storage_elems(op->root);
	int64_t n = elems * dtype_bits(op->root->dtype) / op->bits;
	Expr *flat = flat_storage(c, op, n > 0 ? n : 1, op->span);
	op->ptr_x = NEWN(&c->arena, Expr *, nrep + 1);
	for (int64_t r = 0; r < nrep; r++) {
		Lin ax[AX_COUNT];
		const char *why = NULL;
		view_phys_lin(&e->st, u, x, 0, ax);
		Lin m0 = ax[AX_M];
		if (!check_compact(e, tc, op, u, x, nimg, m0))
			return false;
		Lin bits = lin_scale(&e->st, m0, op->bits);
		if (lin_is_const(bits) && bits.c0 % 1024 != 0)
			return diag_error(
				c, PT_E_TMA_SMEM_ALIGN, op->span,
				"the shared image of operand %d (%s) at repeat %s "
				"starts at byte %lld (unswizzled), not on a "
				"128-byte boundary", op->index, op->root->name,
				tile_coord_str(&c->arena, x, nr),
				(long long)(bits.c0 / 8));
		if (!lin_is_const(bits) &&
		    !prove_multiple_of(&e->st, bits, 1024, &why))
			return diag_error(
				c, PT_E_TILE_ALIGN_UNPROVEN, op->span,
				"cannot prove the shared image of operand %d (%s) "
				"at repeat %s 128-byte aligned: bit offset %s; %s",
				op->index, op->root->name,
				tile_coord_str(&c->arena, x, nr),
				lin_str(&e->st, bits), why ? why : "unknown");
		/* 128-byte aligned, so a whole byte offset for sub-byte
		 * elements */
		Expr *idx = tile_lin_expr(e, op->bits % 8
			? lin_floordiv(&e->st, bits, 8) : m0, op->span);
		if (!idx) { /* internal limit; see tile_memory_atoms */
			ctx_fail(c, PT_E_INTERNAL,
				 "the image origin of operand %d (%s), element "
				 "offset %s, cannot be written back as IR",
				 op->index, op->root->name, lin_str(&e->st, m0));
			return false;
		}
		Expr *p = ir_new_expr(c, EX_PTR_TO, ET_SCALAR, DT_UINT64,
				      op->span);
		p->u.access.base = flat;
		vec_push(&c->arena, &p->u.access.indices, idx);
		op->ptr_x[r] = p;
		if (nr > 0)
			tile_next_coord(x, tc->repeat, nr);
	}
	return true;
}

static bool
check_shared(TileEnv *e, TileCall *tc, TmaCall *k, TileOperand *op,
	     const TmaFields *f, DType storage)
{
	Ctx *c = e->c;
	if (!tile_resolve_operand(e, op))
		return false;
	if (op->scalar || (op->root->scope != MS_SHARED &&
			   op->root->scope != MS_SHARED_DYN))
		return diag_error(c, PT_E_TILE_SPACE, op->span,
				  "operand %d of a TMA %s must be shared memory",
				  op->index, dir_names[k->dir]);
	int want_bits = f->fp4 ? op->bits : dtype_bits(storage);
	if (op->bits != want_bits || (f->fp4 && op->bits % 4 != 0))
		return diag_error(c, PT_E_TILE_DTYPE, op->span,
				  "operand %d (%s) has %d-bit elements, but the "
				  "transfer moves %s", op->index, op->root->name,
				  op->bits, dtype_name(storage));
	int64_t img[TMA_MAX_RANK + 1];
	int nimg = image_dims(k, f, op->bits, img);
	op->role = ROLE_MEM;
	op->out = k->dir == TMA_LOAD;
	op->atom_axes = nimg;
	op->natom = 1;
	for (int i = 0; i < nimg; i++)
		op->natom *= (int)img[i];
	if (!tile_shape_operand(e, tc, op))
		return false;
	const int64_t *have = op->ext + op->rank - nimg;
	if (memcmp(have, img, sizeof(int64_t) * nimg) != 0)
		return diag_error(c, PT_E_TMA_IMAGE, op->span,
				  "operand %d (%s) has shape %s: its last %d axes "
				  "must be the box image %s (%s)", op->index,
				  op->root->name,
				  tile_coord_str(&c->arena, op->ext, op->rank),
				  nimg, tile_coord_str(&c->arena, img, nimg),
				  k->gather4 ? "(4, box[1]) for gather4/scatter4"
				  : f->fp4 ? "ceil(box/element_strides), inner "
					     "128 bytes for packed FP4"
				  : f->interleave ? "one C slice plus the Ci axis"
				  : "ceil(box/element_strides)");
	int64_t payload_bits = (int64_t)op->natom * op->bits;
	k->payload = f->fp4 ? payload_bits / 16 : payload_bits / 8;
	return check_swizzle(e, tc, op, f) && check_origins(e, tc, op, nimg);
}

/* TMA coordinates are .s32: a step outside int32 would be truncated
 * (2^32 repeats the same box), and the constant offset of the last
 * repeat, sum (repeat - 1) * |step| over the repeat axes, must fit too. */
static bool
check_step_range(Ctx *c, const TileCall *tc, const TmaCall *k, Span sp)
{
	for (int a = 0; a < k->nsteps; a++)
		for (int i = 0; i < k->rank; i++)
			if (k->steps[a][i] < INT32_MIN || k->steps[a][i] > INT32_MAX)
				return diag_error(c, PT_E_TMA_STEP_RANGE, sp,
						  "coord_steps[%d][%d] is %lld; "
						  "TMA coordinates are int32", a,
						  i, (long long)k->steps[a][i]);
	for (int i = 0; i < k->rank; i++) {
		int64_t total = 0, t;
		for (int r = 0; r < tc->nrepeat; r++) {
			int64_t st = k->steps[tc->ngroup + r][i];
			if (ckd_mul64(&t, tc->repeat[r] - 1, st < 0 ? -st : st) ||
			    ckd_add64(&total, total, t) || total > INT32_MAX)
				return diag_error(c, PT_E_TMA_STEP_RANGE, sp,
						  "the repeats of coord_steps "
						  "move coordinate %d past int32",
						  i);
		}
	}
	return true;
}

/* ---- runtime parameters ---- */

static bool
check_runtime(TileEnv *e, TileCall *tc, TmaCall *k)
{
	Ctx *c = e->c;
	bool mc = ptx_has(&tc->inst, PQ_MULTICAST_CLUSTER);
	bool hint = ptx_has(&tc->inst, PQ_L2_CACHE_HINT);
	const Expr *mbar = tc->param[TP_MBAR];
	if (k->dir == TMA_LOAD && !mbar)
		return diag_error(c, PT_E_TMA_MBAR_MISSING, tc->span,
				  "a TMA load completes on an mbarrier: pass "
				  "mbar=<barrier>.ptr_to([...])");
	if (k->dir != TMA_LOAD && mbar)
		return diag_error(c, PT_E_TMA_MBAR_STORE, mbar->span,
				  "a TMA %s completes through commit_group / "
				  "wait_group and takes no mbar",
				  dir_names[k->dir]);
	if (mc != (tc->param[TP_CTA_MASK] != NULL))
		return diag_error(c, PT_E_TMA_CTA_MASK, tc->span,
				  mc ? "%s multicasts: pass cta_mask=<mask>"
				     : "cta_mask is given, but %s has no "
				       ".multicast::cluster qualifier",
				  tc->inst.spelling);
	if (hint != (tc->cache_policy != NULL))
		return diag_error(c, PT_E_TMA_CACHE_POLICY, tc->span,
				  hint ? "%s has a cache-policy operand: pass "
					 "cache_policy=<uint64>"
				       : "cache_policy is given, but %s has no "
					 ".L2::cache_hint qualifier",
				  tc->inst.spelling);
	const ExprVec *g4 = tuple_param(tc, TP_GATHER4);
	if (k->gather4 != (g4 != NULL))
		return diag_error(c, PT_E_TMA_GATHER4, tc->span,
				  k->gather4 ? "%s needs gather4=(r0, r1, r2, r3)"
					     : "gather4 is given, but %s is not a "
					       "gather4/scatter4 form",
				  tc->inst.spelling);
	if (g4 && g4->n != 4)
		return diag_error(c, PT_E_TMA_GATHER4, tc->param[TP_GATHER4]->span,
				  "gather4 takes four row coordinates, found "
				  "%d", (int)g4->n);
	for (int i = 0; g4 && i < 4; i++)
		k->rows[i] = g4->v[i];
	return true;
}

static bool
check_coords(TileEnv *e, TileCall *tc, TmaCall *k)
{
	Ctx *c = e->c;
	const ExprVec *co = tuple_param(tc, TP_COORDS);
	if (!co)
		return diag_error(c, PT_E_TILE_PARAM_REQUIRED, tc->span,
				  "%s needs coords=(...): the box start, outer "
				  "to inner", tc->inst.spelling);
	if ((int)co->n != k->rank)
		return diag_error(c, PT_E_TMA_COORDS, tc->param[TP_COORDS]->span,
				  "coords has %d entries for a %dd transfer",
				  (int)co->n, k->rank);
	for (int i = 0; i < k->rank; i++)
		k->coords[i] = co->v[i];
	k->nsteps = tc->ngroup + tc->nrepeat;
	const Expr *p = tc->param[TP_COORD_STEPS];
	if (k->nsteps == 0 && !p)
		return true;
	if (!p)
		return diag_error(c, PT_E_TMA_COORD_STEPS, tc->span,
				  "the call has %d group/repeat axes: pass "
				  "coord_steps with one %d-entry increment per "
				  "axis", k->nsteps, k->rank);
	const ExprVec *st = &p->u.tuple;
	if ((int)st->n != k->nsteps)
		return diag_error(c, PT_E_TMA_COORD_STEPS, p->span,
				  "coord_steps has %d vectors, but the call has "
				  "%d group/repeat axes", (int)st->n, k->nsteps);
	k->steps = arena_alloc(&c->arena,
			       sizeof(*k->steps) * (size_t)(k->nsteps + 1));
	for (int a = 0; a < k->nsteps; a++) {
		const ExprVec *v = &st->v[a]->u.tuple;
		if ((int)v->n != k->rank)
			return diag_error(c, PT_E_TMA_COORD_STEPS, p->span,
					  "coord_steps[%d] has %d entries; "
					  "each step vector has %d (the rank)",
					  a, (int)v->n, k->rank);
		for (int i = 0; i < k->rank; i++)
			ir_const_int(v->v[i], &k->steps[a][i]);
	}
	return check_step_range(c, tc, k, p->span);
}

/* ---- mode constraints ---- */

/* The reduction's element type is the map's format.  Floating-point
 * formats take .add, and .min/.max only in 16 bits: the non-tensor
 * cp.reduce.async.bulk lists min/max for .f16/.bf16 and no wider float,
 * and/or/xor for .b32/.b64, inc/dec for .u32; a float32 .min tensor
 * reduction stopped the H200 with an illegal instruction. */
static bool
check_reduce_format(TileEnv *e, TileCall *tc, const TmaFields *f)
{
	static const PtxQual int_only[] = {PQ_AND, PQ_OR, PQ_XOR, PQ_INC,
					   PQ_DEC};
	if (!is_float_format(f->format))
		return true;
	for (size_t i = 0; i < sizeof int_only / sizeof *int_only; i++)
		if (ptx_has(&tc->inst, int_only[i]))
			return diag_error(e->c, PT_E_TMA_FORMAT, tc->span,
					  "%s reduction of %s data: the bitwise "
					  "and inc/dec reductions take integer "
					  "formats", ptx_qual_text(int_only[i]) + 1,
					  dtype_name(f->format));
	bool minmax = ptx_has(&tc->inst, PQ_MIN) ||
		      ptx_has(&tc->inst, PQ_MAX);
	if (minmax && f->format != DT_FLOAT16 && f->format != DT_BFLOAT16)
		return diag_error(e->c, PT_E_TMA_FORMAT, tc->span,
				  "min/max reduction of %s data: floating-point "
				  "min/max reductions take float16 or bfloat16",
				  dtype_name(f->format));
	return true;
}

static bool
check_modes(TileEnv *e, TileCall *tc, const TmaCall *k, const TmaFields *f)
{
	Ctx *c = e->c;
	if (k->gather4 && f->interleave)
		return diag_error(c, PT_E_TMA_GATHER4, tc->span,
				  "gather4/scatter4 do not use interleave");
	if (k->gather4 && f->box[0] != 1)
		return diag_error(c, PT_E_TMA_GATHER4, tc->span,
				  "gather4/scatter4 use box=(1, width), found "
				  "box[0] = %lld", (long long)f->box[0]);
	/* the hardware ignores the innermost stride without interleave
	 * (measured on H200: a box (8, 32) with strides (1, 2) transfers
	 * whole 32-element rows), so the image would not be
	 * ceil(box / element_strides): rejected, not silently ignored */
	if (!f->interleave && !k->gather4 && f->es[k->rank - 1] != 1)
		return diag_error(c, PT_E_TMA_ELEMENT_STRIDES, tc->span,
				  "element_strides[%d] = %lld: without "
				  "interleave the innermost dimension is never "
				  "strided by the hardware; use 1",
				  k->rank - 1, (long long)f->es[k->rank - 1]);
	if (f->interleave && k->rank < 3)
		return diag_error(c, PT_E_TMA_INTERLEAVE, tc->span,
				  "interleave needs a 3d..5d opcode, found %dd",
				  k->rank);
	if (f->interleave == 2 && f->swizzle != 1)
		return diag_error(c, PT_E_TMA_INTERLEAVE, tc->span,
				  "interleave=2 (32B) requires swizzle=1 (32B), "
				  "found swizzle=%d", f->swizzle);
	if (f->fp4 && k->dir != TMA_LOAD)
		return diag_error(c, PT_E_TMA_FP4, tc->span,
				  "the packed FP4 format (16U4_ALIGN16B) is "
				  "load-only");
	if (f->fp4 && f->box[k->rank - 1] != 128)
		return diag_error(c, PT_E_TMA_FP4, tc->span,
				  "packed FP4 needs an inner box of 128, found "
				  "%lld", (long long)f->box[k->rank - 1]);
	if (f->fp4 && f->swizzle != 0 && f->swizzle != 3)
		return diag_error(c, PT_E_TMA_FP4, tc->span,
				  "packed FP4 uses swizzle 0 or 3, found %d",
				  f->swizzle);
	if (k->dir == TMA_REDUCE && !check_reduce_format(e, tc, f))
		return false;
	if (f->oob && !is_float_format(f->format))
		return diag_error(c, PT_E_TMA_FIELD, tc->param[TP_OOB_FILL]->span,
				  "oob_fill=1 (NaN) needs a floating-point "
				  "format, found %s", dtype_name(f->format));
	return check_inner_box(e, tc, k, f);
}

/* Interleaved global tensors: (N, C_slices, *spatial, Ci) with the Ci
 * axis one 16/32-byte slice, 32-byte aligned for 32B interleave. */
static bool
check_interleave_tensor(TileEnv *e, const TileOperand *op, const Buffer *b,
			const TmaFields *f)
{
	int64_t ci, want = (f->interleave == 1 ? 16 : 32) * 8 /
			   dtype_bits(b->dtype);
	if (!ir_const_int(b->shape[b->ndim - 1], &ci) || ci != want)
		return diag_error(e->c, PT_E_TMA_INTERLEAVE, op->span,
				  "the innermost axis of %s must be one %d-byte "
				  "channel slice (%lld elements)", b->name,
				  f->interleave == 1 ? 16 : 32, (long long)want);
	if (f->interleave == 2 && b->align % 32 != 0)
		return diag_error(e->c, PT_E_TMA_INTERLEAVE, op->span,
				  "interleave=2 needs a 32-byte aligned global "
				  "tensor: declare %s with align=32", b->name);
	/* the runtime encodes the map of the whole tensor: dims (N,
	 * C_slices, *spatial) innermost first, the Ci slice its unit */
	if (f->region)
		return diag_error(e->c, PT_E_TMA_INTERLEAVE_MAP, op->span,
				  "an interleaved tensor map describes a whole "
				  "T.Tensor; %s is a region of %s (express "
				  "the box through coords, or pass a "
				  "T.TensorMap)", b->name, b->name);
	return true;
}

/* ---- tensor-map slots ---- */

static const char *
slot_format(const TmaFields *f)
{
	return f->fp4 ? "16u4_align16b" : dtype_name(f->format);
}

static TmapSlot *
find_slot(TileEnv *e, const Buffer *b, int rank, const TmaFields *f)
{
	static const char *const il[] = {"none", "16B", "32B"};
	static const char *const sw[] = {"none", "32B", "64B", "128B"};
	static const char *const l2[] = {"none", "64B", "128B", "256B"};
	Ctx *c = e->c;
	TmapSlot want = {0};
	want.func = e->f;
	want.tensor = b;
	want.rank = rank;
	memcpy(want.box, f->box, sizeof(want.box));
	memcpy(want.elem_strides, f->es, sizeof(want.elem_strides));
	want.format = slot_format(f);
	want.interleave = il[f->interleave];
	want.swizzle = sw[f->swizzle];
	want.l2_promotion = l2[f->l2];
	want.oob_fill = f->oob ? "nan" : "zero";
	want.region = f->region;
	if (f->region) {
		memcpy(want.region_origin, f->origin, sizeof(want.region_origin));
		memcpy(want.region_extent, f->extent, sizeof(want.region_extent));
	}
	int same_tensor = 0;
	for (size_t i = 0; i < e->prog->tma_slots.n; i++) {
		TmapSlot *s = e->prog->tma_slots.v[i];
		if (s->func != e->f || s->tensor != b)
			continue;
		same_tensor++;
		if (!memcmp(s->box, want.box, sizeof(want.box)) &&
		    !memcmp(s->elem_strides, want.elem_strides,
			    sizeof(want.elem_strides)) &&
		    !strcmp(s->format, want.format) &&
		    s->interleave == want.interleave &&
		    s->swizzle == want.swizzle &&
		    s->l2_promotion == want.l2_promotion &&
		    s->oob_fill == want.oob_fill && s->region == want.region &&
		    !memcmp(s->region_origin, want.region_origin,
			    sizeof(want.region_origin)) &&
		    !memcmp(s->region_extent, want.region_extent,
			    sizeof(want.region_extent)))
			return s;
	}
	TmapSlot *s = NEW(&c->arena, TmapSlot);
	*s = want;
	s->name = same_tensor ? arena_printf(&c->arena, "%s_tmap%d", b->name,
					     same_tensor)
			      : arena_printf(&c->arena, "%s_tmap", b->name);
	vec_push(&c->arena, &e->prog->tma_slots, s);
	return s;
}

/* ---- lowering ---- */

static Expr *
as_int32(Ctx *c, Expr *x, Span sp)
{
	if (x->dtype == DT_INT32)
		return x;
	Expr *k = ir_new_expr(c, EX_CAST, ET_SCALAR, DT_INT32, sp);
	k->u.op.a = x;
	return k;
}

/* base + step * idx, folding constants. */
static Expr *
add_step(Ctx *c, Expr *base, Expr *idx, int64_t step, Span sp)
{
	int64_t b;
	if (step == 0)
		return base;
	Expr *t = step == 1 ? idx
		: tile_binop(c, BIN_MUL, idx, tile_int(c, step, sp), DT_INT32,
			     sp);
	if (ir_const_int(base, &b) && b == 0)
		return t;
	return tile_binop(c, BIN_ADD, base, t, DT_INT32, sp);
}

/* Coordinate i (outer-to-inner) of the issue at repeat r. */
static Expr *
coord_at(Ctx *c, const TileCall *tc, const TmaCall *k, Expr *base, int i,
	 int64_t r, Span sp)
{
	Expr *x = as_int32(c, base, sp);
	for (int g = 0; g < tc->ngroup; g++) {
		Expr *id = tc->group[g].hw;
		if (tc->group[g].lo)
			id = tile_binop(c, BIN_SUB, id,
					tile_int(c, tc->group[g].lo, sp),
					DT_INT32, sp);
		x = add_step(c, x, id, k->steps[g][i], sp);
	}
	int64_t rc[64];
	for (int a = tc->nrepeat - 1; a >= 0 && a < 64; a--) {
		rc[a] = r % tc->repeat[a];
		r /= tc->repeat[a];
	}
	int64_t cst = 0, b;
	for (int a = 0; a < tc->nrepeat && a < 64; a++)
		cst += rc[a] * k->steps[tc->ngroup + a][i];
	if (cst == 0)
		return x;
	if (ir_const_int(x, &b))
		return tile_int(c, b + cst, sp);
	return tile_binop(c, BIN_ADD, x, tile_int(c, cst, sp), DT_INT32, sp);
}

/* The PTX coordinate vector: innermost first; gather4 puts the column
 * and then the four rows. */
static Expr *
coord_tuple(Ctx *c, const TileCall *tc, const TmaCall *k, int64_t r,
	    Span sp)
{
	Expr *t = ir_new_expr(c, EX_TUPLE, ET_TUPLE, DT_INT32, sp);
	if (k->gather4) {
		vec_push(&c->arena, &t->u.tuple,
			 coord_at(c, tc, k, k->coords[1], 1, r, sp));
		for (int j = 0; j < 4; j++)
			vec_push(&c->arena, &t->u.tuple,
				 coord_at(c, tc, k, k->rows[j], 0, r, sp));
		return t;
	}
	for (int i = k->rank - 1; i >= 0; i--)
		vec_push(&c->arena, &t->u.tuple,
			 coord_at(c, tc, k, k->coords[i], i, r, sp));
	return t;
}

static Expr *
map_expr(Ctx *c, const TileCall *tc, TmaCall *k, Span sp)
{
	if (k->map)
		return k->map;
	TmapSlot *s = k->slot;
	if (!s->var) {
		Var *v = NEW(&c->arena, Var);
		v->id = (*tc->next_var)++;
		v->name = s->name;
		v->dtype = DT_UINT64;
		v->kind = VK_PARAM;
		v->span = sp;
		s->var = v;
		/* lowered: the slot is now a parameter of its kernel */
		vec_push(&c->arena, &s->func->tmaps, s);
	}
	Expr *x = ir_new_expr(c, EX_VAR, ET_SCALAR, DT_UINT64, sp);
	x->u.var = s->var;
	return x;
}

static void
tma_lower(Ctx *c, const TileCall *tc, Block *out)
{
	TmaCall *k = tc->fam_data;
	Span sp = tc->span;
	const TileOperand *sm = &tc->ops[k->smem];
	int64_t nrep = tile_repeat_count(tc);
	for (int64_t r = 0; r < nrep; r++) {
		ExprVec argv = {0}, *a = &argv;
		if (k->dir == TMA_LOAD)
			vec_push(&c->arena, a, sm->ptr_x[r]);
		vec_push(&c->arena, a, map_expr(c, tc, k, sp));
		vec_push(&c->arena, a, coord_tuple(c, tc, k, r, sp));
		if (k->dir == TMA_LOAD) {
			vec_push(&c->arena, a, tc->param[TP_MBAR]);
			if (tc->param[TP_CTA_MASK])
				vec_push(&c->arena, a, tc->param[TP_CTA_MASK]);
		} else {
			vec_push(&c->arena, a, sm->ptr_x[r]);
		}
		if (tc->cache_policy)
			vec_push(&c->arena, a, tc->cache_policy);
		Expr *p = ir_ptx_issue(c, &tc->inst, argv, tc->pred, sp);
		Stmt *s = ir_new_stmt(c, ST_EVAL, sp);
		s->u.value = p;
		vec_push(&c->arena, out, s);
	}
}

/* ---- the checker ---- */

/* The global operand as explain shows it: the map variable as a scalar,
 * or the tensor with the box as its per-issue atom. */
static void
describe_global(TileEnv *e, TileCall *tc, const TmaCall *k, TileOperand *g,
		const TmaFields *f)
{
	Ctx *c = e->c;
	g->out = k->dir != TMA_LOAD;
	g->dtype = g->expr->dtype;
	if (k->map) {
		g->scalar = true;
		return;
	}
	g->root = tile_root_buffer(g->expr);
	g->role = ROLE_MEM;
	g->bits = dtype_bits(g->dtype);
	g->atom_axes = k->rank;
	g->rank = tc->ngroup + k->rank;
	int64_t *ext = NEWN(&c->arena, int64_t, g->rank + 1);
	for (int i = 0; i < tc->ngroup; i++)
		ext[i] = tc->group[i].ext;
	memcpy(ext + tc->ngroup, f->box, sizeof(int64_t) * (size_t)k->rank);
	g->ext = ext;
}

static bool
check_global(TileEnv *e, TileCall *tc, TmaCall *k, TileOperand *g,
	     const TileOperand *s, TmaFields *f)
{
	Buffer *b = NULL;
	DType storage;
	if (g->expr->type == ET_SCALAR) {
		/* a caller-encoded map: the shared operand's dtype is the
		 * storage (bytes of the padded image for packed FP4) */
		const Expr *fp = tc->param[TP_FORMAT];
		k->map = g->expr;
		storage = fp && !strcmp(fp->u.str, "float4_e2m1fn")
				  ? DT_E2M1 : s->expr->dtype;
		return check_format(e, tc, storage, f);
	}
	if (!check_format(e, tc, g->expr->dtype, f) ||
	    !check_global_tensor(e, tc, g, k->rank, f, &b))
		return false;
	if (f->interleave && !check_interleave_tensor(e, g, b, f))
		return false;
	k->slot = find_slot(e, b, k->rank, f);
	return true;
}

bool
tile_check_tma(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	if (ptx_has(&tc->inst, PQ_IM2COL) ||
	    ptx_has(&tc->inst, PQ_IM2COL_NO_OFFS))
		return diag_error(c, PT_E_TILE_NO_FAMILY, tc->span,
				  "%s: im2col transfers have no tile contract; "
				  "call them as raw T.ptx", tc->inst.spelling);
	if (!ptx_check_target(c, &tc->inst, tc->span))
		return false;
	if (tc->nops != 2)
		return diag_error(c, PT_E_TILE_OPERAND_COUNT, tc->span,
				  "%s takes 2 tile operands, found %d",
				  tc->inst.spelling, tc->nops);
	TmaCall *k = NEW(&c->arena, TmaCall);
	TmaFields f = {0};
	k->dir = direction(&tc->inst);
	k->gather4 = ptx_has(&tc->inst, PQ_TILE_GATHER4) ||
		     ptx_has(&tc->inst, PQ_TILE_SCATTER4);
	k->rank = k->gather4 ? 2 : tc->inst.num;
	k->smem = k->dir == TMA_LOAD ? 0 : 1;
	TileOperand *sm = &tc->ops[k->smem], *gl = &tc->ops[1 - k->smem];
	if (!check_order(e, tc, k->dir) || !check_fields(e, tc, k->rank, &f) ||
	    !check_global(e, tc, k, gl, sm, &f) || !check_modes(e, tc, k, &f) ||
	    !check_shared(e, tc, k, sm, &f, f.fp4 ? DT_E2M1 : sm->expr->dtype))
		return false;
	if (!k->map && dtype_bits(gl->expr->dtype) != sm->bits && !f.fp4)
		return diag_error(c, PT_E_TILE_DTYPE, sm->span,
				  "operand %d has %d-bit elements, but the global "
				  "tensor holds %s", sm->index, sm->bits,
				  dtype_name(gl->expr->dtype));
	if (!check_coords(e, tc, k) || !check_runtime(e, tc, k))
		return false;
	describe_global(e, tc, k, gl, &f);
	gl->ptx_op = k->dir == TMA_LOAD ? 1 : 0;
	sm->ptx_op = k->dir == TMA_LOAD ? 0 : 1;
	tc->count = tile_repeat_count(tc);
	tc->form = arena_printf(&c->arena, "%s  %s; %lld payload bytes per "
				"issue", tc->inst.spelling,
				ptx_describe_operands(&c->arena, &tc->inst),
				(long long)k->payload);
	tc->fam_data = k;
	tc->lower = tma_lower;
	return true;
}
