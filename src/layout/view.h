/*
 * view.h - views and regions over a tensor's storage.
 *
 * A View has two parts:
 *   the *space*: the storage as the view sees it: element width, shape
 *     and layout (dtype views and reshape+layout views replace these;
 *     the storage itself never moves);
 *   the *region*: an origin (one linear form per space dim, possibly
 *     symbolic) and static extents, plus the view's own dims, each
 *     either a space dim or a zero-stride broadcast dim.
 * Region coordinate x (one per view dim) sits at space coordinate
 * origin + x on the space dims it maps (dims removed by an integer index
 * keep their origin), and at the physical coordinate the space layout
 * gives for that.
 *
 * Constructors check what they can (bounds, widths, contiguity; symbolic
 * starts through the prover) and report PT_E_VIEW_* / PT_E_PROVE_* at the
 * given span; they return NULL after reporting.  Everything is arena
 * memory; views are immutable values.
 */
#ifndef PT_VIEW_H
#define PT_VIEW_H

#include "layout/layout.h"
#include "layout/prove.h"

#define VIEW_BROADCAST (-1) /* View.dim value of a zero-stride dim */
#define VIEW_MAX_DIMS 64    /* more space dims is PT_E_VIEW_RANK */

typedef struct View {
	/* space */
	int elem_bits;
	int ndim;
	const int64_t *shape;
	const Layout *layout;   /* NULL: default row-major on m */
	int64_t alloc_elems;    /* storage size in elem_bits units; 0 unknown */
	int scope;              /* the IR's MemScope, carried for the caller */
	/* region, per space dim */
	const Lin *origin;
	const int64_t *ext;
	/* view dims */
	int nv;
	const int *dim;         /* space dim, or VIEW_BROADCAST */
	const int64_t *vext;    /* extent of each view dim */
	bool readonly;          /* has a zero-stride dim or layout iter */
	/* the space's extents on symbolic axes are placeholders: the next
	 * view_slice leaves bounds to its caller (tile/symshape.c) */
	bool caller_bounds;
} View;

/* The whole tensor: checks the layout against shape and, when
 * alloc_elems > 0, that the allocation covers its span. */
View *view_tensor(Ctx *c, Span sp, int elem_bits, const int64_t *shape,
		  int ndim, const Layout *layout, int scope,
		  int64_t alloc_elems);

/* A region of v: start[i] and extent ext[i] > 0 per view dim; with
 * drop[i] (drop may be NULL) dim i is an integer index (ext[i] must be 1)
 * and disappears.  start + ext must lie in [0, v's extent]: checked for
 * constant starts (PT_E_VIEW_BOUNDS) and proved for symbolic ones
 * (PT_E_PROVE_BOUNDS, with the prover's reason). */
View *view_slice(Ctx *c, Span sp, SymTab *st, const View *v,
		 const Lin *start, const int64_t *ext, const bool *drop);

/* Reinterprets the elements as new_bits wide (the storage is unchanged).
 * Wider (b32 over float16): the innermost space axis groups r =
 * new_bits/elem_bits consecutive, r-aligned storage elements of one
 * thread; its extent and start divide by r.  Narrower (uint16 over a
 * uint32 word): every element splits into r parts, lowest part first;
 * the innermost extent and start multiply by r.  Needs a view whose dims
 * are exactly the space dims (PT_E_VIEW_RANK); PT_E_VIEW_DTYPE when the
 * widths do not divide, PT_E_VIEW_CONTIG when the innermost axis is not
 * contiguous or aligned (PT_E_PROVE_ALIGN for an unprovable start). */
View *view_dtype(Ctx *c, Span sp, SymTab *st, const View *v, int new_bits);

/* The whole of v (no slicing) seen with a new shape and layout over the
 * same storage.  Zero strides make a read-only broadcast view. */
View *view_reshape(Ctx *c, Span sp, const View *v, const int64_t *shape,
		   int ndim, const Layout *layout);

/* Inserts a zero-stride dim of extent ext before view dim pos
 * (0 <= pos <= nv); the result is read-only. */
View *view_broadcast(Ctx *c, Span sp, const View *v, int pos, int64_t ext);

/* PT_E_VIEW_READONLY when v cannot be written (a destination). */
bool view_check_writable(Ctx *c, Span sp, const View *v, const char *what);

/* The space coordinate of region coordinate coord[nv]. */
void view_space_coord(SymTab *st, const View *v, const int64_t *coord,
		      Lin *out);
/* The physical coordinate (replica r) of region coordinate coord[nv];
 * false when the origin is symbolic (use view_phys_lin). */
bool view_phys(const View *v, const int64_t *coord, int64_t r,
	       PhysCoord *out);
/* The same as linear forms, one per axis.  Div/mod splitting and
 * swizzles stay exact when the symbolic part is a multiple of the
 * iter extents / the swizzle period; otherwise a bounded fresh symbol
 * stands in (sound for bounds, usually unprovable for alignment). */
void view_phys_lin(SymTab *st, const View *v, const int64_t *coord,
		   int64_t r, Lin out[AX_COUNT]);

/* view_phys_lin for many coordinates of one view.  The symbolic part
 * of every result is the same while each div/mod step stays exact, so
 * it is worked out once (lazily, step by step, making the symbols
 * view_phys_lin would make in the same order) and each coordinate only
 * computes constants; any other case takes view_phys_lin itself.  The
 * results equal view_phys_lin's; their term arrays are shared. */
typedef struct ViewEval {
	SymTab *st;
	const View *v;
	const Layout *t;   /* the tile layout, or NULL */
	Lin flat;          /* symbolic part of the flat index */
	LinDiv *step;      /* per shard iter k >= 1; step[k].k 0: not yet */
	bool out_ready;
	bool out_ok;       /* no overflow in the symbolic outputs */
	Lin out[AX_COUNT]; /* symbolic parts of the outputs */
	LinDiv swz;        /* the swizzle period step; swz.k 0: not yet */
	/* constant origin: flat index = base + sum coord[i] * vstride[i] */
	bool konst;
	int64_t base;
	int64_t *vstride;
} ViewEval;

void view_eval_init(ViewEval *ev, SymTab *st, const View *v);
void view_eval_phys_lin(ViewEval *ev, const int64_t *coord, int64_t r,
			Lin out[AX_COUNT]);
/* Its m axis alone (what memory atoms need). */
Lin view_eval_m_lin(ViewEval *ev, const int64_t *coord, int64_t r);
/* view_phys (false when the origin is symbolic), with the flat index of
 * the origin and the view dims' steps worked out once. */
bool view_eval_phys(const ViewEval *ev, const int64_t *coord, int64_t r,
		    PhysCoord *out);

/* Tile-engine helpers: m (in elements of elem_bits) is a multiple of
 * align_bytes bytes, and lo <= m <= hi, for every symbol value; report
 * PT_E_PROVE_ALIGN / PT_E_PROVE_BOUNDS naming `what` otherwise. */
bool view_prove_aligned(Ctx *c, Span sp, SymTab *st, Lin m,
			int elem_bits, int64_t align_bytes, const char *what);
bool view_prove_bounds(Ctx *c, Span sp, SymTab *st, Lin m, int64_t lo,
		       int64_t hi, const char *what);

#endif
