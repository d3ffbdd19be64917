/*
 * layout.h - layouts (TileLayout, ComposeLayout) as plain data.
 *
 * A layout maps a logical coordinate to a physical coordinate: one integer
 * per axis (axes.def).  TileLayout: flatten the logical coordinate
 * row-major, split it across the shard iters innermost-first, accumulate
 * coord_k * stride_k on each iter's axis, add the offset terms; replica
 * iters add every combination of their coordinates on top (a replicated
 * value lives at several physical places).  ComposeLayout applies a
 * swizzle to the byte address of the m axis after the inner TileLayout.
 *
 * The IR holds Layout values built by the front end; src/layout/*.c
 * evaluates them (layout_eval, layout_span, ...).  A NULL Layout * means
 * the default row-major layout of the tensor's shape on axis m.
 */
#ifndef PT_LAYOUT_H
#define PT_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

typedef enum AxisKind { AXK_STORAGE, AXK_THREAD, AXK_CTA, AXK_TMEM } AxisKind;

typedef enum Axis {
#define AXIS(id, name, kind) AX_##id,
#include "axes.def"
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
	/* LAYOUT_COMPOSE: ComposeLayout(sw_m, sw_b, sw_s, inner).  Swizzle on
	 * the byte address a of axis m (in units of 2^sw_m elements... see
	 * layout.c for the exact formula). */
	int sw_m, sw_b, sw_s;
	struct Layout *inner; /* a LAYOUT_TILE */
} Layout;

const char *axis_name(Axis a);
AxisKind axis_kind(Axis a);
/* Parses an axis spelling ("laneid", "TLane"...); false when unknown. */
bool axis_parse(const char *s, Axis *out);

#endif
