/*
 * gpu_ldmatrix.c - ldmatrix/stmatrix tile calls on a real GPU against a
 * host reference written from the reference's documented maps, not from
 * our lowering:
 *   - shared row (matrix i, row j) starts at a word row_word(i, j) of
 *     the kernel's view (the layout the script declares: gaps and a
 *     non-constant row stride);
 *   - ldmatrix: register `i` of lane l is word (i, l/4, l%4) of the
 *     matrices; with .trans its 16-bit half h is shared element
 *     (i, row 2*(l%4)+h, column l/4), element c of a row being half c%2
 *     of word c/2 (little-endian);
 *   - stmatrix is the inverse image.
 * Register slots are the kernels' declared permutations (see the
 * scripts under tests/gpu/kernels/).
 */
#include "gpu_script.h"

/* Word offset of row j of matrix i in the kernels' shared view. */
static int
row_word(int i, int j)
{
	return 128 * i + 64 * (j / 4) + 12 * (j % 4);
}

/* Shared 16-bit element (i, r, c) of the 512-word image s. */
static uint16_t
elem16(const uint32_t *s, int i, int r, int c)
{
	uint32_t w = s[row_word(i, r) + c / 2];
	return (uint16_t)(c % 2 ? w >> 16 : w & 0xffff);
}

/* The register word ldmatrix gives lane l for matrix i. */
static uint32_t
ld_word(const uint32_t *s, int i, int l, int trans)
{
	if (!trans)
		return s[row_word(i, l / 4) + l % 4];
	uint32_t lo = elem16(s, i, 2 * (l % 4), l / 4);
	uint32_t hi = elem16(s, i, 2 * (l % 4) + 1, l / 4);
	return lo | hi << 16;
}

static void
run_ldmatrix(GpuRun *g, char *why, size_t n)
{
	ptrt_kernel *k = gs_kernel(g, "tile_ldmatrix", why, n);
	if (!k)
		return;
	uint32_t s[512], o[4 * 32 * 4];
	uint64_t seed = 0x1d3a7ull;
	for (int i = 0; i < 512; i++)
		s[i] = gs_rng(&seed) | 0x00010001u; /* no zero half */
	ptrt_devptr dg = gs_upload(g, s, sizeof(s), why, n);
	ptrt_devptr dout = gs_upload(g, NULL, sizeof(o), why, n);
	if (why[0])
		return;
	int64_t sg[] = {512}, so[] = {4, 32, 4};
	ptrt_arg args[] = {ptrt_arg_tensor(dg, PTRT_UINT32, 1, sg, NULL),
			   ptrt_arg_tensor(dout, PTRT_UINT32, 3, so, NULL)};
	if (gpu_check(g, ptrt_launch(k, args, 2, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, o, dout, sizeof(o)), "get O",
		      why, n))
		return;
	/* (case, matrix count, first view matrix, trans) and slot of m */
	static const struct {
		int count, first, trans, slot[4];
		const char *what;
	} cs[] = {
		{1, 2, 0, {0}, "x1"},
		{2, 1, 0, {2, 1}, "x2 (slots swapped)"},
		{4, 0, 0, {0, 1, 2, 3}, "x4"},
		{4, 0, 1, {0, 2, 1, 3}, "x4.trans (slots permuted)"},
	};
	for (int c = 0; c < 4; c++)
		for (int l = 0; l < 32; l++)
			for (int m = 0; m < cs[c].count; m++) {
				uint32_t want = ld_word(s, cs[c].first + m, l,
							cs[c].trans);
				uint32_t got = o[(c * 32 + l) * 4 +
						 cs[c].slot[m]];
				if (got != want) {
					snprintf(why, n, "%s: lane %d matrix %d: "
						 "0x%08x, expected 0x%08x",
						 cs[c].what, l, m, got, want);
					return;
				}
			}
	ptrt_free(g->rt, dg);
	ptrt_free(g->rt, dout);
}

/* Register word of lane l for matrix m of store case c: G's slot. */
static uint32_t
reg_word(const uint32_t *gin, int c, int l, int slot)
{
	return gin[(c * 32 + l) * 4 + slot];
}

static void
run_stmatrix(GpuRun *g, char *why, size_t n)
{
	ptrt_kernel *k = gs_kernel(g, "tile_stmatrix", why, n);
	if (!k)
		return;
	uint32_t gin[3 * 32 * 4], o[3 * 512], want[512];
	uint64_t seed = 0x5717ull;
	for (int i = 0; i < 3 * 32 * 4; i++)
		gin[i] = gs_rng(&seed) | 0x00010001u;
	ptrt_devptr dg = gs_upload(g, gin, sizeof(gin), why, n);
	ptrt_devptr dout = gs_upload(g, NULL, sizeof(o), why, n);
	if (why[0])
		return;
	int64_t sg[] = {3, 32, 4}, so[] = {3, 512};
	ptrt_arg args[] = {ptrt_arg_tensor(dg, PTRT_UINT32, 3, sg, NULL),
			   ptrt_arg_tensor(dout, PTRT_UINT32, 2, so, NULL)};
	if (gpu_check(g, ptrt_launch(k, args, 2, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, o, dout, sizeof(o)), "get O",
		      why, n))
		return;
	static const struct {
		int count, first, trans, slot[4];
		const char *what;
	} cs[] = {
		{4, 0, 0, {0, 1, 2, 3}, "x4"},
		{4, 0, 1, {0, 2, 1, 3}, "x4.trans (slots permuted)"},
		{2, 1, 0, {3, 1}, "x2 (slots 3, 1)"},
	};
	for (int c = 0; c < 3; c++) {
		for (int i = 0; i < 512; i++)
			want[i] = 0x5A5A5A5Au;
		for (int m = 0; m < cs[c].count; m++) {
			int vm = cs[c].first + m;
			for (int r = 0; r < 8; r++)
				for (int w = 0; w < 4; w++) {
					uint32_t v;
					if (!cs[c].trans) {
						/* word (m, r, w) of lane 4r+w */
						v = reg_word(gin, c, 4 * r + w,
							     cs[c].slot[m]);
					} else {
						/* element (m, r, col) is half
						 * r%2 of the word of lane
						 * 4*col + r/2 */
						v = 0;
						for (int h = 0; h < 2; h++) {
							int col = 2 * w + h;
							uint32_t x = reg_word(
								gin, c,
								4 * col + r / 2,
								cs[c].slot[m]);
							uint32_t e = r % 2 ? x >> 16
									   : x & 0xffff;
							v |= e << (16 * h);
						}
					}
					want[row_word(vm, r) + w] = v;
				}
		}
		for (int i = 0; i < 512; i++)
			if (o[c * 512 + i] != want[i]) {
				snprintf(why, n, "%s: shared word %d: 0x%08x, "
					 "expected 0x%08x", cs[c].what, i,
					 o[c * 512 + i], want[i]);
				return;
			}
	}
	ptrt_free(g->rt, dg);
	ptrt_free(g->rt, dout);
}

int
main(void)
{
	GpuRun g;
	gpu_open(&g, "gpu_ldmatrix");
	GPU_CASE(&g, "ldmatrix_x1_x2_x4_trans_gapped_rows", run_ldmatrix);
	GPU_CASE(&g, "stmatrix_x2_x4_trans_gapped_rows", run_stmatrix);
	return gpu_finish(&g);
}
