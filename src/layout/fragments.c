/*
 * fragments.c - named register-fragment layouts: the lane/register maps
 * the PTX ISA fixes for mma.sync, ldmatrix/stmatrix and wgmma, built as
 * TileLayouts so a kernel names them instead of writing 6-8 iterators by
 * hand (script: T.cuda.mma_sync_layout, T.cuda.ldmatrix_layout,
 * T.cuda.wgmma_layout; docs/patterns.md "Writing an MMA kernel").
 *
 * Every layout is  warps x repeats x atom:  warp axes first (row-major on
 * warpid, or wgmma's 4 warps on wid_in_wg), then the repeat axes in
 * row-major order on m (each repeat one atom's registers further), then
 * the atom's own iterators:
 *   mma A   (16, kw) words  S[(2, 8, kw/4, 4):(1, 4@laneid, 2, 1@laneid)]
 *   mma B   (8, kw) words   S[(8, kw/4, 4):(4@laneid, 1, 1@laneid)]
 *   mma C/D (16, 8) elems   S[(2, 8, 4, 2):(2, 4@laneid, 1@laneid, 1)]
 *   ldmatrix .xN (N, 8, 4) words  S[(N, 8, 4):(1, 4@laneid, 1@laneid)]
 *            (with or without .trans: the words a lane owns are the
 *            same, what the tile calls check)
 *            in 16-bit elements (N, 8, 8)
 *                           S[(N, 8, 4, 2):(2, 4@laneid, 1@laneid, 1)]
 *            .trans (N, 8, 8) 16-bit elements of the memory matrix
 *                           S[(N, 4, 2, 8):(2, 1@laneid, 1, 4@laneid)]
 *   wgmma D (16, N) per warp S[(2, 8, N/8, 4, 2):(2, 4@laneid, 4,
 *                             1@laneid, 1)] (N/2 words for f16 D:
 *                             S[(2, 8, N/8, 4):(2, 4@laneid, ... )])
 *   wgmma A (16, 8) words per warp: mma A of kw = 8
 * (kw: words per row, FRAG_MMA in fragments.def).  The maps are the
 * ISA's "Matrix fragments" figures; tests/unit/test_fragments.c checks
 * each against them, coordinate by coordinate.
 */
#include <stdio.h>
#include <string.h>

#include "layout/layout.h"

static const struct {
	const char *shape, *dtype;
	int kwords;
} mma_rows[] = {
#define FRAG_MMA(shape, dtype, kw) {shape, dtype, kw},
#include "layout/fragments.def"
#undef FRAG_MMA
};

#define MAX_ITERS 16

typedef struct Build {
	LayoutIter it[MAX_ITERS];
	int n;
} Build;

static void
push(Build *b, int64_t extent, int64_t stride, Axis ax)
{
	if (extent == 1 || b->n == MAX_ITERS)
		return;
	b->it[b->n++] = (LayoutIter){extent, stride, ax};
}

/* warps (row-major on warpid) and repeats (row-major on m, regs apart) */
static const char *
outer(Build *b, const FragReq *r, int64_t regs)
{
	int64_t w = 1;
	for (int i = r->nwarps; i-- > 0;)
		w *= r->warps[i] > 0 ? r->warps[i] : 0;
	if (r->nwarps && (w <= 0 || w > 32))
		return "warps= must be positive and at most 32 warps in all";
	int64_t s = 1;
	for (int i = 0; i < r->nwarps; i++) {
		s = 1;
		for (int j = i + 1; j < r->nwarps; j++)
			s *= r->warps[j];
		push(b, r->warps[i], s, AX_WARPID);
	}
	/* the limit holds for the whole product: each factor is checked
	 * before it multiplies a product of at most 2^20, so nothing
	 * overflows */
	static const char too_many[] = "repeat= extents must be in 1..1024 "
				       "and hold at most 2^20 registers";
	int64_t total = regs;
	for (int i = 0; i < r->nrepeat; i++) {
		if (r->repeat[i] <= 0 || r->repeat[i] > 1024)
			return too_many;
		total *= r->repeat[i];
		if (total > (int64_t)1 << 20)
			return too_many;
	}
	/* order: a permutation of the repeat axes, outermost in storage
	 * first; each axis is the product of the ones stored inside it
	 * registers apart */
	int pos[4] = {0, 1, 2, 3};
	if (r->norder && r->norder != r->nrepeat)
		return "order= names every repeat axis once";
	bool seen[4] = {false};
	for (int i = 0; i < r->norder; i++) {
		int64_t o = r->order[i];
		if (o < 0 || o >= r->nrepeat || seen[o])
			return "order= is a permutation of the repeat axes";
		seen[o] = true;
		pos[o] = i;
	}
	for (int i = 0; i < r->nrepeat; i++) {
		s = regs;
		for (int j = 0; j < r->nrepeat; j++)
			if (pos[j] > pos[i])
				s *= r->repeat[j];
		push(b, r->repeat[i], s, AX_M);
	}
	return NULL;
}

static int
mma_kwords(const char *shape, const char *dtype)
{
	for (size_t i = 0; i < sizeof mma_rows / sizeof mma_rows[0]; i++)
		if (!strcmp(mma_rows[i].shape, shape) &&
		    !strcmp(mma_rows[i].dtype, dtype))
			return mma_rows[i].kwords;
	return 0;
}

static void
atom_a(Build *b, int kw)
{
	push(b, 2, 1, AX_M);
	push(b, 8, 4, AX_LANEID);
	push(b, kw / 4, 2, AX_M);
	push(b, 4, 1, AX_LANEID);
}

static void
atom_cd(Build *b)
{
	push(b, 2, 2, AX_M);
	push(b, 8, 4, AX_LANEID);
	push(b, 4, 1, AX_LANEID);
	push(b, 2, 1, AX_M);
}

static const char *
mma_sync(Build *b, const FragReq *r)
{
	int kw = mma_kwords(r->shape, r->dtype);
	if (!kw)
		return "no mma.sync fragment of that shape and dtype (shapes "
		       "m16n8k8/k16 float16/bfloat16, m16n8k4/k8 tf32, "
		       "m16n8k16/k32 int8/uint8/float8_e4m3fn/float8_e5m2)";
	const char *why;
	switch (r->operand) {
	case 'A':
		if ((why = outer(b, r, kw / 2)))
			return why;
		atom_a(b, kw);
		return NULL;
	case 'B':
		if ((why = outer(b, r, kw / 4)))
			return why;
		push(b, 8, 4, AX_LANEID);
		push(b, kw / 4, 1, AX_M);
		push(b, 4, 1, AX_LANEID);
		return NULL;
	case 'C':
	case 'D':
		if ((why = outer(b, r, 4)))
			return why;
		atom_cd(b);
		return NULL;
	default:
		return "the operand is \"A\", \"B\", \"C\" or \"D\"";
	}
}

static const char *
ldmatrix(Build *b, const FragReq *r)
{
	if (r->num != 1 && r->num != 2 && r->num != 4)
		return "ldmatrix/stmatrix move 1, 2 or 4 matrices (.x1 .x2 .x4)";
	if (r->bits != 16 && r->bits != 32)
		return "the registers are 32-bit words or 16-bit elements";
	/* in 32-bit words .trans changes which halves a lane receives, not
	 * which words: the tile layer's (matrix, row, word) owner map is
	 * the same, so trans only matters for the 16-bit element view */
	const char *why = outer(b, r, r->bits == 32 ? r->num : 2 * r->num);
	if (why)
		return why;
	if (r->bits == 32) {
		push(b, r->num, 1, AX_M);
		push(b, 8, 4, AX_LANEID);
		push(b, 4, 1, AX_LANEID);
	} else if (!r->trans) {
		push(b, r->num, 2, AX_M);
		push(b, 8, 4, AX_LANEID);
		push(b, 4, 1, AX_LANEID);
		push(b, 2, 1, AX_M);
	} else { /* element (row, col) of the memory matrix */
		push(b, r->num, 2, AX_M);
		push(b, 4, 1, AX_LANEID);
		push(b, 2, 1, AX_M);
		push(b, 8, 4, AX_LANEID);
	}
	return NULL;
}

/* "m64nNkK" -> N; 0 when it is not such a shape */
static int64_t
wgmma_n(const char *shape, int64_t *k)
{
	int n = 0, kk = 0, len = 0;
	if (sscanf(shape, "m64n%dk%d%n", &n, &kk, &len) != 2 ||
	    shape[len] || n < 8 || n > 256 || n % 8)
		return 0;
	*k = kk;
	return n;
}

static const char *
wgmma(Build *b, const FragReq *r)
{
	int64_t k = 0, n = wgmma_n(r->shape, &k);
	if (!n)
		return "a wgmma shape is m64nNkK with N a multiple of 8 in "
		       "8..256";
	if (r->nwarps)
		return "wgmma fragments have their own warp axis (4 warps on "
		       "wid_in_wg): no warps=";
	FragReq q = *r;
	q.nwarps = 0;
	Build tmp = {0};
	const char *why;
	if (r->operand == 'D') {
		bool half = !strcmp(r->dtype, "float16");
		if (!half && strcmp(r->dtype, "float32") && strcmp(r->dtype, "int32"))
			return "a wgmma D is float32, int32 or float16";
		push(&tmp, 4, 1, AX_WID_IN_WG);
		int64_t regs = half ? n / 4 : n / 2;
		if ((why = outer(&tmp, &q, regs)))
			return why;
		push(&tmp, 2, half ? 1 : 2, AX_M);
		push(&tmp, 8, 4, AX_LANEID);
		push(&tmp, n / 8, half ? 2 : 4, AX_M);
		push(&tmp, 4, 1, AX_LANEID);
		if (!half)
			push(&tmp, 2, 1, AX_M);
	} else if (r->operand == 'A') {
		int kw = (int)(k * r->bits / 32);
		if (kw != 8)
			return "a register A of wgmma is 16 x 8 words per warp "
			       "(k16 for 16-bit, k8 tf32, k32 8-bit inputs)";
		push(&tmp, 4, 1, AX_WID_IN_WG);
		if ((why = outer(&tmp, &q, 4)))
			return why;
		atom_a(&tmp, 8);
	} else {
		return "a wgmma register fragment is \"D\" or \"A\"";
	}
	*b = tmp;
	return NULL;
}

/* The tcgen05 data-path layouts of the PTX ISA (tcgen05 "Data path
 * layout organization", layouts A-G): which TMEM lane and column a row
 * and column of an (rows, cols) accumulator of that MMA occupy.
 *   A, D  (128 rows)  row r in lane r
 *   B, E  (64 rows)   the column halves fold onto lanes 0-63 and 64-127
 *   C, F  (64 rows)   16 rows per warp slab: row r in lane
 *                     32(r/16) + r%16 (+16 with sub_slab=1)
 *   G     (32 rows)   the column quarters fold onto the four slabs */
static const char *
tmem(Build *b, const FragReq *r, LayoutOffset *off, int *noff)
{
	char d = r->datapath;
	int64_t want = d == 'A' || d == 'D' ? 128 : d == 'G' ? 32 : 64;
	if (!d || !strchr("ABCDEFG", d))
		return "the datapath is a layout letter A-G";
	if (r->rows != want)
		return "the rows must be the datapath's M per CTA (128 for A "
		       "and D, 64 for B C E F, 32 for G)";
	if (r->cols <= 0 || r->cols > 512)
		return "the columns are 1..512";
	if (r->sub_slab && d != 'C' && d != 'F')
		return "sub_slab=1 exists only for datapaths C and F";
	if (d == 'A' || d == 'D') {
		push(b, r->rows, 1, AX_TLANE);
		push(b, r->cols, 1, AX_TCOL);
	} else if (d == 'G' || d == 'B' || d == 'E') {
		int64_t parts = d == 'G' ? 4 : 2;
		if (r->cols % parts)
			return d == 'G' ? "datapath G needs a multiple of 4 columns"
					: "datapaths B and E need an even column count";
		push(b, r->rows, 1, AX_TLANE);
		push(b, parts, 128 / parts, AX_TLANE);
		push(b, r->cols / parts, 1, AX_TCOL);
	} else {
		push(b, 4, 32, AX_TLANE);
		push(b, 16, 1, AX_TLANE);
		push(b, r->cols, 1, AX_TCOL);
		if (r->sub_slab)
			off[(*noff)++] = (LayoutOffset){16, AX_TLANE};
	}
	return NULL;
}

const char *
frag_layout(Arena *a, const FragReq *r, Layout **out)
{
	Build b = {0};
	LayoutOffset off[1];
	int noff = 0;
	const char *why = r->kind == FRAG_MMA_SYNC ? mma_sync(&b, r)
			  : r->kind == FRAG_LDMATRIX ? ldmatrix(&b, r)
			  : r->kind == FRAG_TMEM     ? tmem(&b, r, off, &noff)
						     : wgmma(&b, r);
	if (why)
		return why;
	if (b.n == 0) /* every extent 1: one register */
		b.it[b.n++] = (LayoutIter){1, 1, AX_M};
	*out = layout_make(a, b.it, b.n, NULL, 0, off, noff);
	return NULL;
}
