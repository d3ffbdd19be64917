/*
 * view.c - slices, dtype views, reshape+layout views and broadcast views
 * (view.h), and the physical coordinates of region coordinates.
 *
 * Input: a View and region coordinates; symbolic starts are prover forms.
 * Output: new Views (after checks) and physical coordinates, constant or
 * as linear forms.  Invariant: a View's layout is admitted by its space
 * shape, and its region lies inside the space (both checked when the
 * View is made), so evaluation needs no further checks.
 */
#include <string.h>

#include "layout/view.h"

/* Copies of n-element arrays (n may be 0). */
static int64_t *
dup_i64(Arena *a, const int64_t *p, int n)
{
	int64_t *r = NEWN(a, int64_t, n + 1);
	for (int i = 0; i < n; i++)
		r[i] = p[i];
	return r;
}

static Lin *
dup_lin(Arena *a, const Lin *p, int n)
{
	Lin *r = NEWN(a, Lin, n + 1);
	for (int i = 0; i < n; i++)
		r[i] = p[i];
	return r;
}

static View *
view_copy(Ctx *c, const View *v)
{
	View *n = NEW(&c->arena, View);
	*n = *v;
	return n;
}

static bool
region_is_whole(const View *v)
{
	if (v->nv != v->ndim)
		return false;
	for (int d = 0; d < v->ndim; d++)
		if (v->dim[d] != d || !lin_is_const(v->origin[d]) ||
		    v->origin[d].c0 != 0 || v->ext[d] != v->shape[d])
			return false;
	return true;
}

static bool
dims_are_space(const View *v)
{
	if (v->nv != v->ndim)
		return false;
	for (int d = 0; d < v->ndim; d++)
		if (v->dim[d] != d)
			return false;
	return true;
}

/* The identity region over a space (shape/layout already set). */
static void
set_whole_region(Arena *a, View *v)
{
	Lin *o = NEWN(a, Lin, v->ndim + 1);
	int *dim = NEWN(a, int, v->ndim + 1);
	for (int d = 0; d < v->ndim; d++) {
		o[d] = lin_const(0);
		dim[d] = d;
	}
	v->origin = o;
	v->ext = v->shape;
	v->nv = v->ndim;
	v->dim = dim;
	v->vext = v->shape;
}

static bool
has_zero_stride(const Layout *l)
{
	const Layout *t = layout_tile(l);
	if (!t)
		return false;
	for (int k = 0; k < t->nshard; k++)
		if (t->shard[k].stride == 0 && t->shard[k].extent > 1)
			return true;
	return false;
}

View *
view_tensor(Ctx *c, Span sp, int elem_bits, const int64_t *shape, int ndim,
	    const Layout *layout, int scope, int64_t alloc_elems)
{
	if (ndim < 0 || ndim > VIEW_MAX_DIMS) {
		diag_error(c, PT_E_VIEW_RANK, sp,
			   "a tensor of %d dims (at most %d)", ndim,
			   VIEW_MAX_DIMS);
		return NULL;
	}
	if (!layout_check(c, sp, layout, shape, ndim, 0))
		return NULL;
	if (alloc_elems > 0 &&
	    !layout_check_alloc(c, sp, layout, shape, ndim, alloc_elems))
		return NULL;
	View *v = NEW(&c->arena, View);
	v->elem_bits = elem_bits;
	v->ndim = ndim;
	v->shape = dup_i64(&c->arena, shape, ndim);
	v->layout = layout;
	v->alloc_elems = alloc_elems;
	v->scope = scope;
	set_whole_region(&c->arena, v);
	return v;
}

static bool
check_slice_dim(Ctx *c, Span sp, SymTab *st, const View *v, int i, Lin start,
		int64_t ext, bool drop)
{
	int64_t have = v->vext[i];
	const char *why;
	if (ext <= 0)
		return diag_error(c, PT_E_VIEW_BOUNDS, sp,
				  "region extent %lld of dim %d must be "
				  "positive", (long long)ext, i);
	if (drop && ext != 1)
		return diag_error(c, PT_E_VIEW_RANK, sp,
				  "an index on dim %d selects one element, "
				  "not %lld", i, (long long)ext);
	if (lin_is_const(start)) {
		if (start.c0 < 0 || ext > have || start.c0 > have - ext)
			return diag_error(c, PT_E_VIEW_BOUNDS, sp,
					  "region of %lld from %lld of dim %d "
					  "is outside [0, %lld)",
					  (long long)ext, (long long)start.c0,
					  i, (long long)have);
		return true;
	}
	if (ext > have || !prove_in_range(st, start, 0, have - ext, &why))
		return diag_error(c, PT_E_PROVE_BOUNDS, sp,
				  "region start of dim %d (extent %lld of "
				  "%lld) is not provably in bounds: %s", i,
				  (long long)ext, (long long)have,
				  ext > have ? "extent too large" : why);
	return true;
}

View *
view_slice(Ctx *c, Span sp, SymTab *st, const View *v, const Lin *start,
	   const int64_t *ext, const bool *drop)
{
	Arena *a = &c->arena;
	for (int i = 0; i < v->nv; i++)
		if (!v->caller_bounds &&
		    !check_slice_dim(c, sp, st, v, i, start[i], ext[i],
				     drop && drop[i]))
			return NULL;
	View *n = view_copy(c, v);
	n->caller_bounds = false;
	Lin *o = dup_lin(a, v->origin, v->ndim);
	int64_t *e = dup_i64(a, v->ext, v->ndim);
	int *dim = NEWN(a, int, v->nv + 1);
	int64_t *vext = NEWN(a, int64_t, v->nv + 1);
	int nv = 0;
	for (int i = 0; i < v->nv; i++) {
		int d = v->dim[i];
		if (d != VIEW_BROADCAST) {
			o[d] = lin_add(st, o[d], start[i]);
			e[d] = ext[i];
		}
		if (drop && drop[i])
			continue;
		dim[nv] = d;
		vext[nv++] = ext[i];
	}
	n->origin = o;
	n->ext = e;
	n->dim = dim;
	n->vext = vext;
	n->nv = nv;
	return n;
}

/* Index of the innermost shard iter with extent > 1 at or before k,
 * or -1. */
static int
inner_iter(const Layout *t, int k)
{
	while (k >= 0 && t->shard[k].extent == 1)
		k--;
	return k;
}

/* A copy of t whose innermost iter with extent > 1 holds a multiple of
 * r elements: merges it with outer neighbours that continue it
 * contiguously on the same axis (evaluation is unchanged).  Returns the
 * index of that iter in *last, or -1. */
static Layout *
tile_gather_inner(Arena *a, const Layout *t, int64_t r, int *last)
{
	Layout *n = layout_make(a, t->shard, t->nshard, t->replica,
				t->nreplica, t->offset, t->noffset);
	int k = inner_iter(n, n->nshard - 1);
	while (k >= 0 && n->shard[k].extent % r != 0) {
		int p = inner_iter(n, k - 1);
		LayoutIter *in = &n->shard[k], *out;
		if (p < 0)
			break;
		out = &n->shard[p];
		if (out->axis != in->axis ||
		    out->stride != in->stride * in->extent)
			break;
		in->extent *= out->extent;
		for (int i = p; i + 1 < n->nshard; i++)
			n->shard[i] = n->shard[i + 1];
		n->nshard--;
		k--;
	}
	*last = k;
	return n;
}

static int
log2_exact(int64_t r)
{
	int s = 0;
	while (((int64_t)1 << s) < r)
		s++;
	return ((int64_t)1 << s) == r ? s : -1;
}

/* The tile layout of a wider dtype view (r storage elements per new
 * element), or NULL after a PT_E_VIEW_CONTIG diagnostic. */
static Layout *
widen_tile(Ctx *c, Span sp, const Layout *t, int64_t r)
{
	int li;
	Layout *n = tile_gather_inner(&c->arena, t, r, &li);
	LayoutIter *last = li >= 0 ? &n->shard[li] : NULL;
	if (!last || last->axis != AX_M || last->stride != 1 ||
	    last->extent % r != 0) {
		diag_error(c, PT_E_VIEW_CONTIG, sp,
			   "a %lld-element container needs %lld consecutive "
			   "storage elements of one thread on the innermost "
			   "axis, but layout %s steps %s",
			   (long long)r, (long long)r,
			   layout_str(&c->arena, t),
			   last ? arena_printf(&c->arena, "%lld@%s by %lld",
					       (long long)last->extent,
					       axis_name(last->axis),
					       (long long)last->stride)
				: "nothing");
		return NULL;
	}
	last->extent /= r;
	for (int k = 0; k < n->nshard + n->nreplica; k++) {
		LayoutIter *it = k < n->nshard ? &n->shard[k]
					       : &n->replica[k - n->nshard];
		if (it == last || it->axis != AX_M)
			continue;
		if (it->extent == 1) {
			it->stride = 0; /* contributes nothing either way */
			continue;
		}
		if (it->stride % r != 0) {
			diag_error(c, PT_E_VIEW_CONTIG, sp,
				   "storage stride %lld is not a multiple of "
				   "the %lld-element container",
				   (long long)it->stride, (long long)r);
			return NULL;
		}
		it->stride /= r;
	}
	for (int k = 0; k < n->noffset; k++) {
		if (n->offset[k].axis != AX_M)
			continue;
		if (n->offset[k].value % r != 0) {
			diag_error(c, PT_E_VIEW_CONTIG, sp,
				   "storage offset %lld is not a multiple of "
				   "the %lld-element container",
				   (long long)n->offset[k].value, (long long)r);
			return NULL;
		}
		n->offset[k].value /= r;
	}
	if (last->extent == 1 && n->nshard > 1) {
		/* the iter a narrowing view added: drop it again */
		for (int i = li; i + 1 < n->nshard; i++)
			n->shard[i] = n->shard[i + 1];
		n->nshard--;
	}
	return n;
}

/* The tile layout of a narrower dtype view: each element splits into r
 * consecutive parts on m. */
static Layout *
narrow_tile(Arena *a, const Layout *t, int64_t r)
{
	LayoutIter *sh = NEWN(a, LayoutIter, t->nshard + 1);
	for (int k = 0; k < t->nshard; k++) {
		sh[k] = t->shard[k];
		if (sh[k].axis == AX_M)
			sh[k].stride *= r;
	}
	sh[t->nshard] = (LayoutIter){r, 1, AX_M};
	Layout *n = layout_make(a, sh, t->nshard + 1, t->replica, t->nreplica,
				t->offset, t->noffset);
	for (int k = 0; k < n->nreplica; k++)
		if (n->replica[k].axis == AX_M)
			n->replica[k].stride *= r;
	for (int k = 0; k < n->noffset; k++)
		if (n->offset[k].axis == AX_M)
			n->offset[k].value *= r;
	return n;
}

/* New layout for a dtype view with ratio r (wider when `wider`). */
static const Layout *
dtype_layout(Ctx *c, Span sp, const Layout *l, int64_t r, bool wider)
{
	if (!l)
		return NULL; /* row-major stays row-major */
	int lg = log2_exact(r);
	if (l->kind == LAYOUT_COMPOSE &&
	    (lg < 0 || (wider && l->sw_m < lg))) {
		diag_error(c, PT_E_VIEW_CONTIG, sp,
			   "the swizzle unit of 2^%d elements cannot hold "
			   "whole %lld-element containers", l->sw_m,
			   (long long)r);
		return NULL;
	}
	Layout *t = wider ? widen_tile(c, sp, layout_tile(l), r)
			  : narrow_tile(&c->arena, layout_tile(l), r);
	if (!t || l->kind != LAYOUT_COMPOSE)
		return t;
	return layout_compose(&c->arena, wider ? l->sw_m - lg : l->sw_m + lg,
			      l->sw_b, l->sw_s, t);
}

static bool
widen_region(Ctx *c, Span sp, SymTab *st, const View *v, int64_t r,
	     Lin *o, int64_t *e)
{
	int d = v->ndim - 1;
	const char *why;
	if (v->ext[d] % r != 0)
		return diag_error(c, PT_E_VIEW_CONTIG, sp,
				  "innermost extent %lld is not a multiple of "
				  "the %lld-element container",
				  (long long)v->ext[d], (long long)r);
	if (lin_is_const(v->origin[d]) && v->origin[d].c0 % r != 0)
		return diag_error(c, PT_E_VIEW_CONTIG, sp,
				  "innermost start %lld is not a multiple of "
				  "the %lld-element container",
				  (long long)v->origin[d].c0, (long long)r);
	if (!prove_multiple_of(st, v->origin[d], r, &why))
		return diag_error(c, PT_E_PROVE_ALIGN, sp,
				  "dtype view start: %s", why);
	o[d] = lin_floordiv(st, v->origin[d], r);
	e[d] = v->ext[d] / r;
	return true;
}

View *
view_dtype(Ctx *c, Span sp, SymTab *st, const View *v, int new_bits)
{
	Arena *a = &c->arena;
	int old = v->elem_bits;
	if (new_bits <= 0 || (new_bits % old != 0 && old % new_bits != 0)) {
		diag_error(c, PT_E_VIEW_DTYPE, sp,
			   "a %d-bit view of %d-bit elements: neither width "
			   "divides the other", new_bits, old);
		return NULL;
	}
	if (!dims_are_space(v) || v->ndim == 0) {
		diag_error(c, PT_E_VIEW_RANK, sp,
			   "a dtype view needs a region whose dims are the "
			   "tensor's own (no indexed or broadcast dims)");
		return NULL;
	}
	bool wider = new_bits > old;
	int64_t r = wider ? new_bits / old : old / new_bits;
	int d = v->ndim - 1;
	if (wider && v->shape[d] % r != 0) {
		diag_error(c, PT_E_VIEW_CONTIG, sp,
			   "innermost extent %lld is not a multiple of the "
			   "%lld-element container", (long long)v->shape[d],
			   (long long)r);
		return NULL;
	}
	const Layout *nl = dtype_layout(c, sp, v->layout, r, wider);
	if (v->layout && !nl)
		return NULL;
	Lin *o = dup_lin(a, v->origin, v->ndim);
	int64_t *e = dup_i64(a, v->ext, v->ndim);
	if (wider && !widen_region(c, sp, st, v, r, o, e))
		return NULL;
	if (!wider) {
		o[d] = lin_scale(st, o[d], r);
		e[d] *= r;
	}
	int64_t *shape = dup_i64(a, v->shape, v->ndim);
	shape[d] = wider ? shape[d] / r : shape[d] * r;
	View *n = view_copy(c, v);
	n->elem_bits = new_bits;
	n->shape = shape;
	n->layout = nl;
	n->alloc_elems = wider ? v->alloc_elems / r : v->alloc_elems * r;
	n->origin = o;
	n->ext = e;
	n->vext = e;
	return n;
}

View *
view_reshape(Ctx *c, Span sp, const View *v, const int64_t *shape, int ndim,
	     const Layout *layout)
{
	if (!region_is_whole(v)) {
		diag_error(c, PT_E_VIEW_RANK, sp,
			   "a reshape+layout view applies to a whole tensor, "
			   "not to a region of it");
		return NULL;
	}
	if (ndim < 0 || ndim > VIEW_MAX_DIMS) {
		diag_error(c, PT_E_VIEW_RANK, sp,
			   "a view of %d dims (at most %d)", ndim,
			   VIEW_MAX_DIMS);
		return NULL;
	}
	if (!layout_check(c, sp, layout, shape, ndim,
			  LAYOUT_ALLOW_ZERO_STRIDE))
		return NULL;
	if (v->alloc_elems > 0 &&
	    !layout_check_alloc(c, sp, layout, shape, ndim, v->alloc_elems))
		return NULL;
	View *n = view_copy(c, v);
	n->ndim = ndim;
	n->shape = dup_i64(&c->arena, shape, ndim);
	n->layout = layout;
	n->readonly = v->readonly || has_zero_stride(layout);
	set_whole_region(&c->arena, n);
	return n;
}

View *
view_broadcast(Ctx *c, Span sp, const View *v, int pos, int64_t ext)
{
	Arena *a = &c->arena;
	if (pos < 0 || pos > v->nv || ext <= 0) {
		diag_error(c, PT_E_VIEW_RANK, sp,
			   "cannot insert a broadcast dim of extent %lld at "
			   "position %d of a %d-dim view", (long long)ext, pos,
			   v->nv);
		return NULL;
	}
	View *n = view_copy(c, v);
	int *dim = NEWN(a, int, v->nv + 1);
	int64_t *vext = NEWN(a, int64_t, v->nv + 1);
	for (int i = 0, j = 0; i <= v->nv; i++) {
		if (i == pos) {
			dim[i] = VIEW_BROADCAST;
			vext[i] = ext;
		} else {
			dim[i] = v->dim[j];
			vext[i] = v->vext[j++];
		}
	}
	n->dim = dim;
	n->vext = vext;
	n->nv = v->nv + 1;
	n->readonly = true;
	return n;
}

bool
view_check_writable(Ctx *c, Span sp, const View *v, const char *what)
{
	if (v->readonly)
		return diag_error(c, PT_E_VIEW_READONLY, sp,
				  "%s is written, but it is a zero-stride "
				  "broadcast view, which is read-only", what);
	return true;
}

void
view_space_coord(SymTab *st, const View *v, const int64_t *coord, Lin *out)
{
	for (int d = 0; d < v->ndim; d++)
		out[d] = v->origin[d];
	for (int i = 0; i < v->nv; i++)
		if (v->dim[i] != VIEW_BROADCAST)
			out[v->dim[i]] = lin_add_const(st, out[v->dim[i]],
						       coord[i]);
}

bool
view_phys(const View *v, const int64_t *coord, int64_t r, PhysCoord *out)
{
	int64_t sc[VIEW_MAX_DIMS];
	PT_ASSERT(v->ndim <= VIEW_MAX_DIMS);
	for (int d = 0; d < v->ndim; d++) {
		if (!lin_is_const(v->origin[d]))
			return false;
		sc[d] = v->origin[d].c0;
	}
	for (int i = 0; i < v->nv; i++)
		if (v->dim[i] != VIEW_BROADCAST)
			sc[v->dim[i]] += coord[i];
	layout_eval_replica(v->layout, v->shape, v->ndim, sc, r, out);
	return true;
}

/* swz(x) = x - (x mod P) + swz(x mod P) for the period P of the
 * swizzle: exact when x mod P is constant.  Otherwise keep what the
 * swizzle preserves: the offset inside a 2^sw_m unit (so unit alignment
 * stays provable), times a bounded unknown unit index. */
static Lin
swizzle_lin(SymTab *st, const Layout *l, Lin m)
{
	int64_t P = (int64_t)1 << (l->sw_m + l->sw_s + l->sw_b);
	int64_t U = (int64_t)1 << l->sw_m;
	int64_t bm = ((int64_t)1 << l->sw_b) - 1;
	Lin rem = lin_mod(st, m, P);
	if (lin_is_const(rem)) {
		int64_t s = layout_swizzle(l->sw_m, l->sw_b, l->sw_s, rem.c0);
		return lin_add_const(st, m, s - rem.c0);
	}
	int64_t lo, hi;
	Lin unit = lin_floordiv(st, m, U);
	if (!lin_bounds(st, unit, &lo, &hi)) {
		m.overflow = true;
		return m;
	}
	/* f changes only the low sw_b bits of the unit index */
	lo &= ~bm;
	hi |= bm;
	/* one unknown per unit index, so that the words of one unit (an
	 * atom's consecutive elements) share it and stay provably
	 * consecutive; it records its form so that it can be emitted */
	int id = sym_derived(st, 'x', unit, (int64_t)l->sw_b << 8 | l->sw_s,
			     lo, hi);
	Lin f = lin_sym(st, id);
	return lin_add(st, lin_mod(st, m, U), lin_scale(st, f, U));
}

void
view_phys_lin(SymTab *st, const View *v, const int64_t *coord, int64_t r,
	      Lin out[AX_COUNT])
{
	Lin sc[VIEW_MAX_DIMS];
	PT_ASSERT(v->ndim <= VIEW_MAX_DIMS);
	view_space_coord(st, v, coord, sc);
	Lin flat = lin_const(0);
	int64_t rs = 1;
	for (int d = v->ndim - 1; d >= 0; d--) {
		flat = lin_add(st, flat, lin_scale(st, sc[d], rs));
		rs *= v->shape[d];
	}
	for (int a = 0; a < AX_COUNT; a++)
		out[a] = lin_const(0);
	const Layout *t = layout_tile(v->layout);
	if (!t) {
		out[AX_M] = flat;
		return;
	}
	for (int k = t->nshard - 1; k >= 0; k--) {
		const LayoutIter *it = &t->shard[k];
		Lin ck = flat;
		if (k > 0) {
			ck = lin_mod(st, flat, it->extent);
			flat = lin_floordiv(st, flat, it->extent);
		}
		out[it->axis] = lin_add(st, out[it->axis],
					lin_scale(st, ck, it->stride));
	}
	for (int k = t->nreplica - 1; k >= 0; k--) {
		const LayoutIter *it = &t->replica[k];
		out[it->axis] = lin_add_const(st, out[it->axis],
					      (r % it->extent) * it->stride);
		r /= it->extent;
	}
	for (int k = 0; k < t->noffset; k++)
		out[t->offset[k].axis] = lin_add_const(
			st, out[t->offset[k].axis], t->offset[k].value);
	if (v->layout->kind == LAYOUT_COMPOSE)
		out[AX_M] = swizzle_lin(st, v->layout, out[AX_M]);
}

void
view_eval_init(ViewEval *ev, SymTab *st, const View *v)
{
	memset(ev, 0, sizeof(*ev));
	ev->st = st;
	ev->v = v;
	ev->t = layout_tile(v->layout);
	ev->flat = lin_const(0);
	int64_t rs = 1;
	for (int d = v->ndim - 1; d >= 0; d--) {
		Lin o = v->origin[d];
		o.c0 = 0;
		ev->flat = lin_add(st, ev->flat, lin_scale(st, o, rs));
		rs *= v->shape[d];
	}
	if (ev->t)
		ev->step = NEWN(st->arena, LinDiv, ev->t->nshard + 1);
	/* view_phys's flatten, term by term (wrapping as it does) */
	uint64_t *rsd = NEWN(st->arena, uint64_t, v->ndim + 1);
	uint64_t urs = 1, base = 0;
	ev->konst = true;
	for (int d = v->ndim - 1; d >= 0; d--) {
		ev->konst = ev->konst && lin_is_const(v->origin[d]);
		rsd[d] = urs;
		base += (uint64_t)v->origin[d].c0 * urs;
		urs *= (uint64_t)v->shape[d];
	}
	ev->base = (int64_t)base;
	ev->vstride = NEWN(st->arena, int64_t, v->nv + 1);
	for (int i = 0; i < v->nv; i++)
		ev->vstride[i] = v->dim[i] == VIEW_BROADCAST
					 ? 0
					 : (int64_t)rsd[v->dim[i]];
}

bool
view_eval_phys(const ViewEval *ev, const int64_t *coord, int64_t r,
	       PhysCoord *out)
{
	if (!ev->konst)
		return false;
	uint64_t flat = (uint64_t)ev->base;
	for (int i = 0; i < ev->v->nv; i++)
		flat += (uint64_t)coord[i] * (uint64_t)ev->vstride[i];
	layout_eval_flat(ev->v->layout, (int64_t)flat, r, out);
	return true;
}

/* The constant part of the flat index of coord, summed as
 * view_phys_lin sums it; false on overflow. */
static bool
flat_const(const View *v, const int64_t *coord, int64_t *out)
{
	int64_t sc[VIEW_MAX_DIMS];
	for (int d = 0; d < v->ndim; d++)
		sc[d] = v->origin[d].c0;
	for (int i = 0; i < v->nv; i++)
		if (v->dim[i] != VIEW_BROADCAST &&
		    __builtin_add_overflow(sc[v->dim[i]], coord[i],
					   &sc[v->dim[i]]))
			return false;
	int64_t flat = 0, rs = 1, x;
	for (int d = v->ndim - 1; d >= 0; d--) {
		if (__builtin_mul_overflow(sc[d], rs, &x) ||
		    __builtin_add_overflow(flat, x, &flat))
			return false;
		rs *= v->shape[d];
	}
	*out = flat;
	return true;
}

/* The symbolic input of shard iter k's div/mod step (k < nshard - 1:
 * the quotient of step k + 1). */
static Lin
step_input(const ViewEval *ev, int k)
{
	return k == ev->t->nshard - 1 ? ev->flat : ev->step[k + 1].A;
}

static const LinDiv *
step_at(ViewEval *ev, int k)
{
	LinDiv *d = &ev->step[k];
	if (d->k == 0)
		lin_div_prepare(ev->st, step_input(ev, k), ev->t->shard[k].extent,
				d);
	return d;
}

/* The symbolic parts of the outputs, summed as view_phys_lin sums
 * them (every step exact). */
static void
prepare_out(ViewEval *ev)
{
	SymTab *st = ev->st;
	const Layout *t = ev->t;
	ev->out_ready = true;
	for (int a = 0; a < AX_COUNT; a++)
		ev->out[a] = lin_const(0);
	for (int k = t->nshard - 1; k >= 0; k--) {
		const LayoutIter *it = &t->shard[k];
		Lin ck = k > 0 ? ev->step[k].B : step_input(ev, 0);
		ev->out[it->axis] = lin_add(st, ev->out[it->axis],
					    lin_scale(st, ck, it->stride));
	}
	ev->out_ok = true;
	for (int a = 0; a < AX_COUNT; a++)
		ev->out_ok = ev->out_ok && !ev->out[a].overflow;
}

static bool
add_mul(int64_t *acc, int64_t x, int64_t k)
{
	return !__builtin_mul_overflow(x, k, &x) &&
	       !__builtin_add_overflow(*acc, x, acc);
}

/* The constant parts c[AX_COUNT] of view_phys_lin(coord, r) when every
 * step is exact; false otherwise. */
static bool
eval_const(ViewEval *ev, const int64_t *coord, int64_t r, int64_t *c)
{
	const Layout *t = ev->t;
	int64_t flat, rem[64], *rk = rem;
	if (ev->flat.overflow || !flat_const(ev->v, coord, &flat))
		return false;
	for (int a = 0; a < AX_COUNT; a++)
		c[a] = 0;
	if (!t) {
		c[AX_M] = flat;
		return true;
	}
	if (t->nshard > 64)
		rk = NEWN(ev->st->arena, int64_t, t->nshard);
	for (int k = t->nshard - 1; k > 0; k--)
		if (!lin_div_const(step_at(ev, k), flat, &flat, &rk[k]))
			return false;
	rk[0] = flat;
	if (!ev->out_ready)
		prepare_out(ev);
	if (!ev->out_ok)
		return false;
	for (int k = t->nshard - 1; k >= 0; k--)
		if (!add_mul(&c[t->shard[k].axis], rk[k], t->shard[k].stride))
			return false;
	for (int k = t->nreplica - 1; k >= 0; k--) {
		const LayoutIter *it = &t->replica[k];
		if (!add_mul(&c[it->axis], r % it->extent, it->stride))
			return false;
		r /= it->extent;
	}
	for (int k = 0; k < t->noffset; k++)
		if (!add_mul(&c[t->offset[k].axis], t->offset[k].value, 1))
			return false;
	return true;
}

/* swizzle_lin on a form with a constant remainder mod the period. */
static bool
eval_swizzle(ViewEval *ev, int64_t *m)
{
	const Layout *l = ev->v->layout;
	int64_t P = (int64_t)1 << (l->sw_m + l->sw_s + l->sw_b), q, rem;
	if (ev->swz.k == 0)
		lin_div_prepare(ev->st, ev->out[AX_M], P, &ev->swz);
	if (ev->swz.B.n != 0 || !lin_div_const(&ev->swz, *m, &q, &rem))
		return false;
	int64_t s = layout_swizzle(l->sw_m, l->sw_b, l->sw_s, rem);
	return !__builtin_add_overflow(*m, s - rem, m);
}

void
view_eval_phys_lin(ViewEval *ev, const int64_t *coord, int64_t r,
		   Lin out[AX_COUNT])
{
	int64_t c[AX_COUNT];
	if (!eval_const(ev, coord, r, c) ||
	    (ev->t && ev->v->layout->kind == LAYOUT_COMPOSE &&
	     !eval_swizzle(ev, &c[AX_M]))) {
		view_phys_lin(ev->st, ev->v, coord, r, out);
		return;
	}
	for (int a = 0; a < AX_COUNT; a++) {
		Lin s = ev->t ? ev->out[a] : (a == AX_M ? ev->flat
							  : lin_const(0));
		out[a] = (Lin){c[a], s.t, s.n, false};
	}
}

Lin
view_eval_m_lin(ViewEval *ev, const int64_t *coord, int64_t r)
{
	int64_t c[AX_COUNT];
	if (!eval_const(ev, coord, r, c) ||
	    (ev->t && ev->v->layout->kind == LAYOUT_COMPOSE &&
	     !eval_swizzle(ev, &c[AX_M]))) {
		Lin out[AX_COUNT];
		view_phys_lin(ev->st, ev->v, coord, r, out);
		return out[AX_M];
	}
	Lin s = ev->t ? ev->out[AX_M] : ev->flat;
	return (Lin){c[AX_M], s.t, s.n, false};
}

bool
view_prove_aligned(Ctx *c, Span sp, SymTab *st, Lin m, int elem_bits,
		   int64_t align_bytes, const char *what)
{
	const char *why;
	Lin form = m;
	int64_t k = align_bytes;
	const char *unit = "bytes";
	if (elem_bits % 8 == 0) {
		form = lin_scale(st, m, elem_bits / 8);
	} else {
		form = lin_scale(st, m, elem_bits);
		k = align_bytes * 8;
		unit = "bits";
	}
	if (prove_multiple_of(st, form, k, &why))
		return true;
	return diag_error(c, PT_E_PROVE_ALIGN, sp,
			  "%s is not provably %lld-byte aligned (address in "
			  "%s): %s", what, (long long)align_bytes, unit, why);
}

bool
view_prove_bounds(Ctx *c, Span sp, SymTab *st, Lin m, int64_t lo,
		  int64_t hi, const char *what)
{
	const char *why;
	if (prove_in_range(st, m, lo, hi, &why))
		return true;
	return diag_error(c, PT_E_PROVE_BOUNDS, sp,
			  "%s is not provably inside [%lld, %lld]: %s", what,
			  (long long)lo, (long long)hi, why);
}
