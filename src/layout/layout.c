/*
 * layout.c - evaluation, span and validation of TileLayout/ComposeLayout.
 *
 * Input: a Layout (layout.h) and a row-major logical shape.  Output:
 * physical coordinates (one integer per axis), spans, diagnostics.
 * Invariant: evaluation assumes layout_check accepted the layout for the
 * shape; the flat logical index is split across shard iters
 * innermost-first, so every combination of iter coordinates is reached
 * exactly once and per-axis spans follow from the iters alone.
 */
#include <stdio.h>

#include "layout/layout.h"

#define SWIZZLE_ENUM_LIMIT ((int64_t)1 << 22)

const Layout *
layout_tile(const Layout *l)
{
	if (l && l->kind == LAYOUT_COMPOSE)
		return l->inner;
	return l;
}

static int64_t
shape_size(const int64_t *shape, int ndim)
{
	int64_t n = 1;
	for (int i = 0; i < ndim; i++)
		n *= shape[i];
	return n;
}

int64_t
layout_nreplicas(const Layout *l)
{
	const Layout *t = layout_tile(l);
	int64_t n = 1;
	if (!t)
		return 1;
	for (int i = 0; i < t->nreplica; i++)
		n *= t->replica[i].extent;
	return n;
}

int64_t
layout_swizzle(int sw_m, int sw_b, int sw_s, int64_t m)
{
	uint64_t u = (uint64_t)m;
	uint64_t unit = u >> sw_m;
	uint64_t mask = (((uint64_t)1 << sw_b) - 1) << sw_s;
	uint64_t f = unit ^ ((unit & mask) >> sw_s);
	uint64_t low = u & (((uint64_t)1 << sw_m) - 1);
	return (int64_t)((f << sw_m) | low);
}

int64_t
layout_swizzle_unit_bytes(const Layout *l, int dtype_bits)
{
	if (!l || l->kind != LAYOUT_COMPOSE)
		return 0;
	int64_t bits = ((int64_t)1 << l->sw_m) * dtype_bits;
	return bits % 8 ? 0 : bits / 8;
}

SwizzleMode
layout_swizzle_mode(const Layout *l, int dtype_bits)
{
	if (!l || l->kind != LAYOUT_COMPOSE)
		return SWZ_NONE;
	int64_t unit = layout_swizzle_unit_bytes(l, dtype_bits);
	if (l->sw_b == 0)
		return SWZ_NONE;
	if (unit == 16 && l->sw_s == 3 && l->sw_b <= 3)
		return (SwizzleMode)(SWZ_32B + l->sw_b - 1);
	if (unit == 32 && l->sw_s == 2 && l->sw_b == 2)
		return SWZ_128B_BASE32B;
	return SWZ_OTHER;
}

/* flat % e into *ck and flat / e into *flat (C semantics); a mask and
 * a shift for the usual power-of-two extent of a non-negative index,
 * as this runs for every coordinate a tile check visits. */
static void
split_flat(int64_t *flat, int64_t e, int64_t *ck)
{
	if (*flat >= 0 && e > 0 && (e & (e - 1)) == 0) {
		*ck = *flat & (e - 1);
		*flat >>= __builtin_ctzll((unsigned long long)e);
		return;
	}
	*ck = *flat % e;
	*flat /= e;
}

/* Adds the tile layout's iters for flat index `flat`, its offsets and
 * replica r; then the swizzle of a compose. */
void
layout_eval_flat(const Layout *l, int64_t flat, int64_t r, PhysCoord *out)
{
	const Layout *t = layout_tile(l);
	for (int a = 0; a < AX_COUNT; a++)
		out->v[a] = 0;
	if (!t) {
		out->v[AX_M] = flat;
		return;
	}
	for (int k = t->nshard - 1; k >= 0; k--) {
		const LayoutIter *it = &t->shard[k];
		int64_t ck = flat;
		if (k > 0)
			split_flat(&flat, it->extent, &ck);
		out->v[it->axis] += ck * it->stride;
	}
	for (int k = t->nreplica - 1; k >= 0; k--) {
		const LayoutIter *it = &t->replica[k];
		out->v[it->axis] += (r % it->extent) * it->stride;
		r /= it->extent;
	}
	for (int k = 0; k < t->noffset; k++)
		out->v[t->offset[k].axis] += t->offset[k].value;
	if (l->kind == LAYOUT_COMPOSE)
		out->v[AX_M] = layout_swizzle(l->sw_m, l->sw_b, l->sw_s,
					      out->v[AX_M]);
}

static int64_t
flatten(const int64_t *shape, int ndim, const int64_t *coord)
{
	/* callers pass in-range coordinates of a checked shape; wrapping
	 * (not UB) keeps a caller's mistake from becoming undefined */
	uint64_t flat = 0;
	for (int i = 0; i < ndim; i++)
		flat = flat * (uint64_t)shape[i] + (uint64_t)coord[i];
	return (int64_t)flat;
}

void
layout_eval_replica(const Layout *l, const int64_t *shape, int ndim,
		    const int64_t *coord, int64_t r, PhysCoord *out)
{
	layout_eval_flat(l, flatten(shape, ndim, coord), r, out);
}

void
layout_eval(const Layout *l, const int64_t *shape, int ndim,
	    const int64_t *coord, PhysCoord *out)
{
	layout_eval_flat(l, flatten(shape, ndim, coord), 0, out);
}

static void
span_iter(LayoutSpan *s, const LayoutIter *it)
{
	int64_t d = (it->extent - 1) * it->stride;
	if (d < 0)
		s->lo[it->axis] += d;
	else
		s->hi[it->axis] += d;
}

/* Span of the tile part, before any swizzle. */
static void
tile_span(const Layout *t, const int64_t *shape, int ndim, LayoutSpan *s)
{
	for (int a = 0; a < AX_COUNT; a++)
		s->lo[a] = s->hi[a] = 0;
	if (!t) {
		s->hi[AX_M] = shape_size(shape, ndim) - 1;
		return;
	}
	for (int k = 0; k < t->nshard; k++)
		span_iter(s, &t->shard[k]);
	for (int k = 0; k < t->nreplica; k++)
		span_iter(s, &t->replica[k]);
	for (int k = 0; k < t->noffset; k++) {
		s->lo[t->offset[k].axis] += t->offset[k].value;
		s->hi[t->offset[k].axis] += t->offset[k].value;
	}
}

/* Exact swizzled m range by enumeration. */
static void
swizzle_span_enum(const Layout *l, int64_t n, LayoutSpan *s)
{
	int64_t nr = layout_nreplicas(l);
	PhysCoord p;
	s->lo[AX_M] = INT64_MAX;
	s->hi[AX_M] = INT64_MIN;
	for (int64_t r = 0; r < nr; r++)
		for (int64_t f = 0; f < n; f++) {
			layout_eval_flat(l, f, r, &p);
			if (p.v[AX_M] < s->lo[AX_M])
				s->lo[AX_M] = p.v[AX_M];
			if (p.v[AX_M] > s->hi[AX_M])
				s->hi[AX_M] = p.v[AX_M];
		}
}

/* Whether the tile's m image is every integer of [lo, hi]: its m iters
 * (shards and replicas, stride != 0, extent > 1), sorted by stride, are
 * a mixed radix (stride 1, then each stride the previous one's stride
 * times its extent). */
static bool
tile_m_dense(const Layout *t)
{
	const LayoutIter *its[32];
	int n = 0;
	for (int k = 0; k < t->nshard + t->nreplica; k++) {
		const LayoutIter *it = k < t->nshard ? &t->shard[k]
						     : &t->replica[k - t->nshard];
		if (it->axis != AX_M || it->stride == 0 || it->extent <= 1)
			continue;
		if (it->stride < 0 || n == 32)
			return false;
		its[n++] = it;
	}
	int64_t next = 1;
	for (int done = 0; done < n; done++) {
		int pick = -1;
		for (int i = 0; i < n; i++)
			if (its[i] && its[i]->stride == next)
				pick = i;
		if (pick < 0 || its[pick]->extent > INT64_MAX / next)
			return false;
		next *= its[pick]->extent;
		its[pick] = NULL;
	}
	return true;
}

/* The swizzle changes only bits [sw_m, sw_m + sw_b) of m and is a
 * bijection (sw_s >= 1), so it maps each aligned block of 2^(sw_m +
 * sw_b) elements onto itself: a dense image made of whole blocks keeps
 * its span, and needs no enumeration. */
static bool
swizzle_keeps_span(const Layout *l, int64_t n, const LayoutSpan *s)
{
	/* every shard coordinate is reached only when the shards split
	 * exactly the n flat indices */
	int64_t cover = 1;
	if (!l->inner)
		return false;
	for (int k = 0; k < l->inner->nshard; k++) {
		int64_t e = l->inner->shard[k].extent;
		if (e <= 0 || cover > INT64_MAX / e)
			return false;
		cover *= e;
	}
	int64_t block = (int64_t)1 << (l->sw_m + l->sw_b);
	return cover == n && l->sw_s >= 1 && s->lo[AX_M] >= 0 &&
	       s->hi[AX_M] < INT64_MAX && s->lo[AX_M] % block == 0 &&
	       (s->hi[AX_M] + 1) % block == 0 && tile_m_dense(l->inner);
}

void
layout_span(const Layout *l, const int64_t *shape, int ndim, LayoutSpan *out)
{
	tile_span(layout_tile(l), shape, ndim, out);
	if (!l || l->kind != LAYOUT_COMPOSE)
		return;
	int64_t n = shape_size(shape, ndim);
	if (swizzle_keeps_span(l, n, out))
		return;
	int64_t nr = layout_nreplicas(l);
	if (n <= SWIZZLE_ENUM_LIMIT / nr) {
		swizzle_span_enum(l, n, out);
		return;
	}
	/* The swizzle only changes bits [sw_m, sw_m + sw_b) of m, so the
	 * image stays inside the period-aligned hull. */
	int64_t period = ((int64_t)1 << (l->sw_m + l->sw_b)) - 1;
	if (out->lo[AX_M] >= 0)
		out->lo[AX_M] &= ~period;
	out->hi[AX_M] |= period;
}

int64_t
layout_alloc_elems(const Layout *l, const int64_t *shape, int ndim)
{
	LayoutSpan s;
	layout_span(l, shape, ndim, &s);
	return s.hi[AX_M] + 1;
}

bool
layout_check_alloc(Ctx *c, Span sp, const Layout *l, const int64_t *shape,
		   int ndim, int64_t alloc_elems)
{
	LayoutSpan s;
	layout_span(l, shape, ndim, &s);
	if (s.lo[AX_M] < 0)
		return diag_error(c, PT_E_LAYOUT_SPAN, sp,
				  "layout reaches storage offset %lld, before "
				  "the start of the allocation",
				  (long long)s.lo[AX_M]);
	if (s.hi[AX_M] >= alloc_elems)
		return diag_error(c, PT_E_LAYOUT_SPAN, sp,
				  "allocation of %lld elements does not cover "
				  "the layout span [0, %lld] (%lld elements)",
				  (long long)alloc_elems,
				  (long long)s.hi[AX_M],
				  (long long)s.hi[AX_M] + 1);
	return true;
}

static AxisMask
iters_axes(const LayoutIter *it, int n)
{
	AxisMask m = 0;
	for (int i = 0; i < n; i++)
		if (it[i].stride != 0 && it[i].extent > 1)
			m |= AXIS_BIT(it[i].axis);
	return m;
}

AxisMask
layout_axes(const Layout *l)
{
	const Layout *t = layout_tile(l);
	if (!t)
		return AXIS_BIT(AX_M);
	AxisMask m = iters_axes(t->shard, t->nshard) |
		     iters_axes(t->replica, t->nreplica);
	for (int i = 0; i < t->noffset; i++)
		if (t->offset[i].value != 0)
			m |= AXIS_BIT(t->offset[i].axis);
	return m;
}

AxisMask
layout_thread_axes(const Layout *l)
{
	AxisMask all = layout_axes(l), m = 0;
	for (int a = 0; a < AX_COUNT; a++) {
		AxisKind k = axis_kind((Axis)a);
		if ((all & AXIS_BIT(a)) && (k == AXK_THREAD || k == AXK_CTA))
			m |= AXIS_BIT(a);
	}
	return m;
}

bool
layout_owned_by(const PhysCoord *p, const PhysCoord *ids, AxisMask mask)
{
	/* visit only the axes in mask: this runs once per coordinate */
	for (AxisMask m = mask; m; m &= m - 1) {
		int a = __builtin_ctz((unsigned)m);
		if (p->v[a] != ids->v[a])
			return false;
	}
	return true;
}

/* Keeps every later product and span sum inside int64. */
#define LAYOUT_LIMIT ((int64_t)1 << 60)

static bool
fits(int64_t *acc, int64_t a, int64_t b)
{
	int64_t p;
	if (a == INT64_MIN || b == INT64_MIN)
		return false;
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	return !__builtin_mul_overflow(a, b, &p) &&
	       !__builtin_add_overflow(*acc, p, acc) && *acc < LAYOUT_LIMIT;
}

static bool
check_iters(Ctx *c, Span sp, const LayoutIter *it, int n, const char *what,
	    unsigned flags, int64_t *size, int64_t *reach)
{
	for (int i = 0; i < n; i++) {
		if (it[i].extent <= 0)
			return diag_error(c, PT_E_LAYOUT_EXTENT, sp,
					  "%s iter %d has extent %lld; extents "
					  "must be positive", what, i,
					  (long long)it[i].extent);
		if (!fits(reach, it[i].extent - 1, it[i].stride) ||
		    __builtin_mul_overflow(*size, it[i].extent, size) ||
		    *size >= LAYOUT_LIMIT)
			return diag_error(c, PT_E_LAYOUT_EXTENT, sp,
					  "%s iter %d makes the layout too "
					  "large (over 2^60)", what, i);
		if (it[i].stride == 0 && it[i].extent > 1 &&
		    !(flags & LAYOUT_ALLOW_ZERO_STRIDE))
			return diag_error(c, PT_E_LAYOUT_STRIDE, sp,
					  "%s iter %d has stride 0; only a "
					  "read-only broadcast view may repeat "
					  "a storage position", what, i);
		if ((unsigned)it[i].axis >= AX_COUNT)
			return diag_error(c, PT_E_LAYOUT_EXTENT, sp,
					  "%s iter %d has no valid axis", what,
					  i);
	}
	return true;
}

static bool
check_swizzle(Ctx *c, Span sp, const Layout *l)
{
	if (l->sw_m < 0 || l->sw_b < 0 || l->sw_s < 0 ||
	    l->sw_m + l->sw_s + l->sw_b > 40)
		return diag_error(c, PT_E_LAYOUT_SWIZZLE, sp,
				  "swizzle parameters (%d, %d, %d) out of range",
				  l->sw_m, l->sw_b, l->sw_s);
	if (l->sw_s < l->sw_b)
		return diag_error(c, PT_E_LAYOUT_SWIZZLE, sp,
				  "swizzle shift S=%d is smaller than the bit "
				  "count B=%d; ComposeLayout requires S >= B",
				  l->sw_s, l->sw_b);
	if (!l->inner || l->inner->kind != LAYOUT_TILE)
		return diag_error(c, PT_E_LAYOUT_SWIZZLE, sp,
				  "ComposeLayout needs a TileLayout inside");
	return true;
}

bool
layout_check(Ctx *c, Span sp, const Layout *l, const int64_t *shape,
	     int ndim, unsigned flags)
{
	for (int i = 0; i < ndim; i++)
		if (shape[i] <= 0)
			return diag_error(c, PT_E_LAYOUT_EXTENT, sp,
					  "shape extent %d is %lld; extents "
					  "must be positive", i,
					  (long long)shape[i]);
	int64_t n = 1;
	for (int i = 0; i < ndim; i++)
		if (__builtin_mul_overflow(n, shape[i], &n) ||
		    n >= LAYOUT_LIMIT)
			return diag_error(c, PT_E_LAYOUT_EXTENT, sp,
					  "shape has more than 2^60 elements");
	if (!l)
		return true;
	if (l->kind == LAYOUT_COMPOSE && !check_swizzle(c, sp, l))
		return false;
	const Layout *t = layout_tile(l);
	int64_t e = 1, nrep = 1, reach = 0;
	if (!check_iters(c, sp, t->shard, t->nshard, "shard", flags, &e,
			 &reach) ||
	    !check_iters(c, sp, t->replica, t->nreplica, "replica", flags,
			 &nrep, &reach))
		return false;
	for (int i = 0; i < t->noffset; i++)
		if (!fits(&reach, 1, t->offset[i].value))
			return diag_error(c, PT_E_LAYOUT_EXTENT, sp,
					  "offset %lld makes the layout too "
					  "large (over 2^60)",
					  (long long)t->offset[i].value);
	if (n != e) {
		Arena *a = &c->arena;
		StrBuf b;
		sb_init(&b, a);
		sb_putc(&b, '(');
		for (int i = 0; i < ndim; i++)
			sb_printf(&b, "%s%lld", i ? ", " : "",
				  (long long)shape[i]);
		sb_puts(&b, ndim == 1 ? ",)" : ")");
		return diag_error(c, PT_E_LAYOUT_SHAPE, sp,
				  "shape %s has %lld elements but layout %s "
				  "covers %lld", sb_cstr(&b), (long long)n,
				  layout_str(a, l), (long long)e);
	}
	return true;
}

Layout *
layout_make(Arena *a, const LayoutIter *shard, int nshard,
	    const LayoutIter *replica, int nreplica, const LayoutOffset *offset,
	    int noffset)
{
	Layout *l = NEW(a, Layout);
	l->kind = LAYOUT_TILE;
	l->nshard = nshard;
	l->shard = nshard ? arena_dup(a, shard, sizeof(*shard) * nshard) : NULL;
	l->nreplica = nreplica;
	l->replica = nreplica ? arena_dup(a, replica,
					  sizeof(*replica) * nreplica) : NULL;
	l->noffset = noffset;
	l->offset = noffset ? arena_dup(a, offset, sizeof(*offset) * noffset)
			    : NULL;
	return l;
}

Layout *
layout_default(Arena *a, const int64_t *shape, int ndim)
{
	LayoutIter *it = NEWN(a, LayoutIter, ndim > 0 ? ndim : 1);
	int64_t stride = 1;
	for (int i = ndim - 1; i >= 0; i--) {
		it[i] = (LayoutIter){shape[i], stride, AX_M};
		stride *= shape[i];
	}
	Layout *l = NEW(a, Layout);
	l->kind = LAYOUT_TILE;
	l->shard = it;
	l->nshard = ndim;
	return l;
}

Layout *
layout_compose(Arena *a, int sw_m, int sw_b, int sw_s, Layout *inner)
{
	Layout *l = NEW(a, Layout);
	l->kind = LAYOUT_COMPOSE;
	l->sw_m = sw_m;
	l->sw_b = sw_b;
	l->sw_s = sw_s;
	l->inner = inner;
	return l;
}

static void
put_stride(StrBuf *b, int64_t v, Axis ax)
{
	if (ax == AX_M)
		sb_printf(b, "%lld", (long long)v);
	else
		sb_printf(b, "%lld@%s", (long long)v, axis_name(ax));
}

static void
put_iters(StrBuf *b, const LayoutIter *it, int n)
{
	if (n != 1)
		sb_putc(b, '(');
	for (int i = 0; i < n; i++)
		sb_printf(b, "%s%lld", i ? ", " : "", (long long)it[i].extent);
	sb_puts(b, n != 1 ? "):(" : ":");
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(b, ", ");
		put_stride(b, it[i].stride, it[i].axis);
	}
	if (n != 1)
		sb_putc(b, ')');
}

const char *
layout_str(Arena *a, const Layout *l)
{
	StrBuf b;
	sb_init(&b, a);
	if (!l)
		return "default";
	if (l->kind == LAYOUT_COMPOSE)
		sb_printf(&b, "ComposeLayout(%d, %d, %d, ", l->sw_m, l->sw_b,
			  l->sw_s);
	const Layout *t = layout_tile(l);
	if (t) {
		sb_puts(&b, "S[");
		put_iters(&b, t->shard, t->nshard);
		sb_putc(&b, ']');
		if (t->nreplica) {
			sb_puts(&b, " + R[");
			put_iters(&b, t->replica, t->nreplica);
			sb_putc(&b, ']');
		}
		for (int i = 0; i < t->noffset; i++) {
			sb_puts(&b, " + ");
			put_stride(&b, t->offset[i].value, t->offset[i].axis);
		}
	}
	if (l->kind == LAYOUT_COMPOSE)
		sb_putc(&b, ')');
	return sb_cstr(&b);
}
