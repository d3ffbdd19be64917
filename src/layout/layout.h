/*
 * layout.h - layouts (TileLayout, ComposeLayout) as plain data.
 *
 * A layout maps a logical coordinate to a physical coordinate: one integer
 * per axis (axes.def).  TileLayout: flatten the logical coordinate
 * row-major, split it across the shard iters innermost-first, accumulate
 * coord_k * stride_k on each iter's axis, add the offset terms; replica
 * iters add every combination of their coordinates on top (a replicated
 * value lives at several physical places).  ComposeLayout applies a
 * swizzle to the m axis after the inner TileLayout (formula below).
 *
 * The IR holds Layout values built by the front end; layout.c evaluates
 * them (layout_eval, layout_span, ...) and view.h builds views on them.
 * A NULL Layout * means the default row-major layout of the tensor's
 * shape on axis m.
 */
#ifndef PT_LAYOUT_H
#define PT_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"

typedef enum AxisKind { AXK_STORAGE, AXK_THREAD, AXK_CTA, AXK_TMEM } AxisKind;

typedef enum Axis {
#define AXIS(id, name, kind) AX_##id,
#include "layout/axes.def"
#undef AXIS
	AX_COUNT
} Axis;

/* One iter: extent values, stepping `stride` on `axis` per unit. */
typedef struct LayoutIter {
	int64_t extent;
	int64_t stride;
	Axis axis;
} LayoutIter;

/* A constant shift of one axis. */
typedef struct LayoutOffset {
	int64_t value;
	Axis axis;
} LayoutOffset;

typedef enum LayoutKind { LAYOUT_TILE, LAYOUT_COMPOSE } LayoutKind;

typedef struct Layout {
	LayoutKind kind;
	/* LAYOUT_TILE */
	LayoutIter *shard;   /* S[...] iters, outermost first as written */
	int nshard;
	LayoutIter *replica; /* R[...] iters, outermost first */
	int nreplica;
	LayoutOffset *offset; /* offset terms, in written order */
	int noffset;
	/* LAYOUT_COMPOSE: ComposeLayout(sw_m, sw_b, sw_s, inner).  The inner
	 * layout gives an element offset m (offsets and replicas included);
	 * the physical m is
	 *     swz(m) = f(m >> sw_m) * 2^sw_m + (m mod 2^sw_m)
	 *     f(x)   = x ^ ((x & ((2^sw_b - 1) << sw_s)) >> sw_s)
	 * so 2^sw_m elements form one unit (16 bytes when sw_m is
	 * log2(128 / dtype_bits)) and the unit index's bits [0, sw_b) are
	 * XORed with its bits [sw_s, sw_s + sw_b).  Requires sw_s >= sw_b.
	 * Other axes pass through unchanged. */
	int sw_m, sw_b, sw_s;
	struct Layout *inner; /* a LAYOUT_TILE */
} Layout;

/* ---- layout.c ----
 *
 * Shapes are row-major extent vectors (int64_t shape[ndim]).  A shape is
 * admitted by a TileLayout when prod(shape) == prod(shard extents).
 * layout_eval and friends assume an admitted shape (layout_check says so
 * with a diagnostic); a NULL layout is the default row-major layout on m.
 */

/* One integer per axis; unused axes are 0. */
typedef struct PhysCoord {
	int64_t v[AX_COUNT];
} PhysCoord;

/* Bit per Axis, as returned by layout_axes. */
typedef uint32_t AxisMask;
#define AXIS_BIT(a) ((AxisMask)1 << (a))

/* Flags of layout_check. */
enum {
	LAYOUT_ALLOW_ZERO_STRIDE = 1, /* a broadcast (read-only) view */
};

/* Validates l for shape: positive extents, admitted shape, nonzero
 * strides (unless LAYOUT_ALLOW_ZERO_STRIDE), swizzle parameters and a
 * TILE inner layout.  Reports PT_E_LAYOUT_* at sp; false on error. */
bool layout_check(Ctx *c, Span sp, const Layout *l,
		  const int64_t *shape, int ndim, unsigned flags);

/* The tile layout under a compose (l itself for a TILE, NULL for NULL). */
const Layout *layout_tile(const Layout *l);

/* Number of replica combinations (1 when there are no R iters). */
int64_t layout_nreplicas(const Layout *l);

/* Physical coordinate of logical coordinate coord[ndim] of shape: the
 * base value (replica 0), offsets and swizzle included. */
void layout_eval(const Layout *l, const int64_t *shape, int ndim,
		 const int64_t *coord, PhysCoord *out);
/* Same for replica r in [0, layout_nreplicas): replica iters are taken
 * row-major (last R iter fastest); replica 0 adds nothing. */
void layout_eval_replica(const Layout *l, const int64_t *shape, int ndim,
			 const int64_t *coord, int64_t r, PhysCoord *out);
/* Same from a row-major flat logical index (0 <= flat < prod(shape)). */
void layout_eval_flat(const Layout *l, int64_t flat, int64_t r,
		      PhysCoord *out);

/* The swizzle of a compose layout applied to element offset m. */
int64_t layout_swizzle(int sw_m, int sw_b, int sw_s, int64_t m);
/* Byte-level swizzle unit of a compose layout for dtype_bits-wide
 * elements: 2^sw_m * dtype_bits / 8 (16 for the canonical 32B/64B/128B
 * modes); 0 when not a whole number of bytes. */
int64_t layout_swizzle_unit_bytes(const Layout *l, int dtype_bits);

/* The PTX shared-memory swizzle mode a layout implements for
 * dtype_bits-wide elements (ptx_facts §5.2): the byte-level swizzle is
 * Swizzle<B, log2(unit bytes), S>, so the same (sw_m, sw_b, sw_s) means
 * different modes for different dtypes.  SWZ_NONE for a TileLayout,
 * SWZ_OTHER for a swizzle that is no PTX mode. */
typedef enum SwizzleMode {
	SWZ_NONE,
	SWZ_32B,          /* Swizzle<1,4,3> bytes */
	SWZ_64B,          /* Swizzle<2,4,3> */
	SWZ_128B,         /* Swizzle<3,4,3> */
	SWZ_128B_BASE32B, /* Swizzle<2,5,2>: 128B with 32-byte atoms */
	SWZ_OTHER,
} SwizzleMode;
SwizzleMode layout_swizzle_mode(const Layout *l, int dtype_bits);

/* Min and max physical coordinate per axis over every logical coordinate
 * and replica; m includes the swizzle.  Exact (swizzled layouts up to
 * 2^22 elements are enumerated; larger ones get the conservative bound
 * of rounding m out to the swizzle period). */
typedef struct LayoutSpan {
	int64_t lo[AX_COUNT];
	int64_t hi[AX_COUNT];
} LayoutSpan;
void layout_span(const Layout *l, const int64_t *shape, int ndim,
		 LayoutSpan *out);
/* Elements an allocation must hold so that offsets [0, hi(m)] fit
 * (gaps and swizzle range included); that is per-thread storage of a
 * distributed register tensor. */
int64_t layout_alloc_elems(const Layout *l, const int64_t *shape, int ndim);
/* Reports PT_E_LAYOUT_SPAN when an allocation of alloc_elems elements
 * does not cover the span of m (or m can be negative). */
bool layout_check_alloc(Ctx *c, Span sp, const Layout *l,
			const int64_t *shape, int ndim, int64_t alloc_elems);

/* Axes that some iter (stride != 0), replica or offset touches. */
AxisMask layout_axes(const Layout *l);
/* Thread and CTA axes the layout binds: nonzero means a local tensor
 * with this layout is distributed; the owner of a coordinate is its
 * value on these axes and each thread stores layout_alloc_elems. */
AxisMask layout_thread_axes(const Layout *l);
/* The owner of a logical coordinate: true when out's thread/CTA axes
 * equal ids on every axis in mask (a convenience for ownership checks). */
bool layout_owned_by(const PhysCoord *p, const PhysCoord *ids,
		     AxisMask mask);

/* Builders (arena-allocated).  layout_default: S[shape] row-major on m. */
Layout *layout_default(Arena *a, const int64_t *shape, int ndim);
/* A tile layout from parallel arrays (replica/offset may be NULL). */
Layout *layout_make(Arena *a, const LayoutIter *shard, int nshard,
		    const LayoutIter *replica, int nreplica,
		    const LayoutOffset *offset, int noffset);
Layout *layout_compose(Arena *a, int sw_m, int sw_b, int sw_s,
		       Layout *inner);
/* Canonical text, e.g. "S[(2, 32):(1@warpid, 1)] + R[2:4@warpid] + 5@warpid". */
const char *layout_str(Arena *a, const Layout *l);

/* fragments.c: the named register-fragment layouts. */
typedef enum FragKind {
	FRAG_MMA_SYNC, FRAG_LDMATRIX, FRAG_WGMMA, FRAG_TMEM
} FragKind;
typedef struct FragReq {
	FragKind kind;
	char operand;      /* 'A' 'B' 'C' 'D' (mma_sync, wgmma) */
	const char *shape; /* "m16n8k16", "m64n128k16" */
	const char *dtype; /* input dtype name (mma A/B), D dtype (wgmma D) */
	int bits;          /* bits of that dtype */
	int num;           /* ldmatrix .x1/.x2/.x4 */
	bool trans;
	int64_t repeat[4];
	int nrepeat;
	int64_t order[4];  /* storage order of the repeat axes, outermost
			    * first (norder 0: 0, 1, ...) */
	int norder;
	int64_t warps[3];
	int nwarps;
	/* tcgen05 datapath (FRAG_TMEM): layout letter A-G, buffer rows and
	 * columns, the upper 16-lane half of each warp slab (F, C) */
	char datapath;
	int64_t rows, cols;
	int sub_slab;
} FragReq;
/* The layout r names, or NULL and *out set; else why there is none. */
const char *frag_layout(Arena *a, const FragReq *r, Layout **out);

const char *axis_name(Axis a);
AxisKind axis_kind(Axis a);
/* Parses an axis spelling ("laneid", "TLane"...); false when unknown. */
bool axis_parse(const char *s, Axis *out);

#endif
