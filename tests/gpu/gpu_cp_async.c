/*
 * gpu_cp_async.c - cp.async tile calls on a real GPU (kernel
 * tests/gpu/kernels/cp_async_fill.py) against a host reference written
 * from the documented semantics (PTX ISA cp.async and the reference's
 * "Predication is different from zero fill"), not from our lowering:
 *   - src_size k (0..chunk): the first k bytes of the chunk are copied
 *     from global, the remaining chunk bytes of the destination are zero;
 *   - ignore_src true: the whole chunk is zero;
 *   - pred false: no copy at all, the destination keeps what it held
 *     (the kernel pre-fills every shared byte with 0xAB);
 *   - source and destination element widths differ (uint8, float16, b32
 *     views): a byte copy, so the expected image is a byte image.
 * Source bytes are random in 1..127: never zero (zero fill is visible)
 * and never 0xAB (a suppressed copy is visible).
 */
#include "gpu_script.h"

enum { ROWS = 32, ROW_BYTES = 16, CASES = 4, VALID_ROWS = 8, SKIP = 5 };

/* The four shared images the kernel writes out, per its header. */
static void
cp_async_ref(uint8_t a[ROWS][ROW_BYTES],
	     uint8_t want[CASES][ROWS][ROW_BYTES])
{
	memset(want, 0xAB, (size_t)CASES * ROWS * ROW_BYTES);
	for (int t = 0; t < ROWS; t++) {
		/* case 0: 16-byte chunk, src_size = 16 or t % 16 */
		int k = t < VALID_ROWS ? 16 : t % 16;
		for (int b = 0; b < 16; b++)
			want[0][t][b] = b < k ? a[t][b] : 0;
		/* case 1: ignore_src for t >= VALID_ROWS, no issue at SKIP */
		if (t != SKIP)
			for (int b = 0; b < 16; b++)
				want[1][t][b] = t >= VALID_ROWS ? 0 : a[t][b];
		/* case 2: 8 bytes from byte 8 into bytes 0..7, src_size t % 9,
		 * no issue when t % 4 == 3; bytes 8..15 are never written */
		if (t % 4 != 3)
			for (int b = 0; b < 8; b++)
				want[2][t][b] = b < t % 9 ? a[t][8 + b] : 0;
		/* case 3: word 2 of the source row into word 1, when t%3 != 0 */
		if (t % 3 != 0)
			for (int b = 0; b < 4; b++)
				want[3][t][4 + b] = a[t][8 + b];
	}
}

static void
run_cp_async(GpuRun *g, char *why, size_t n)
{
	ptrt_kernel *k = gs_kernel(g, "cp_async_fill", why, n);
	if (!k)
		return;
	static const char *what[CASES] = {
		".cg 16 B src_size (partial and full zero fill)",
		".cg 16 B float16 -> b32 view, ignore_src and pred",
		".ca 8 B src_size 0..8 and pred",
		".ca 4 B b32 view and pred",
	};
	uint8_t a[ROWS][ROW_BYTES], o[CASES][ROWS][ROW_BYTES];
	uint8_t want[CASES][ROWS][ROW_BYTES];
	uint64_t seed = 0xc0a5f11ull;
	for (int t = 0; t < ROWS; t++)
		for (int b = 0; b < ROW_BYTES; b++)
			a[t][b] = (uint8_t)(1 + gs_rng(&seed) % 127);
	cp_async_ref(a, want);
	ptrt_devptr da = gs_upload(g, a, sizeof(a), why, n);
	ptrt_devptr dout = gs_upload(g, NULL, sizeof(o), why, n);
	if (why[0] ||
	    gpu_check(g, ptrt_memset(g->rt, dout, 0x5c, sizeof(o)), "memset",
		      why, n))
		return;
	int64_t sa[] = {ROWS, ROW_BYTES}, so[] = {CASES, ROWS, ROW_BYTES};
	ptrt_arg args[] = {ptrt_arg_tensor(da, PTRT_UINT8, 2, sa, NULL),
			   ptrt_arg_tensor(dout, PTRT_UINT8, 3, so, NULL),
			   ptrt_arg_i32(VALID_ROWS), ptrt_arg_i32(SKIP)};
	if (gpu_check(g, ptrt_launch(k, args, 4, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, o, dout, sizeof(o)), "get Out",
		      why, n))
		return;
	for (int c = 0; c < CASES; c++)
		for (int t = 0; t < ROWS; t++)
			for (int b = 0; b < ROW_BYTES; b++)
				if (o[c][t][b] != want[c][t][b]) {
					snprintf(why, n, "case %d (%s): row %d "
						 "byte %d: 0x%02x, expected "
						 "0x%02x", c, what[c], t, b,
						 o[c][t][b], want[c][t][b]);
					return;
				}
	ptrt_free(g->rt, da);
	ptrt_free(g->rt, dout);
}

int
main(void)
{
	GpuRun g;
	gpu_open(&g, "gpu_cp_async");
	GPU_CASE(&g, "cp_async_zero_fill_partial_full_ignore_pred",
		 run_cp_async);
	return gpu_finish(&g);
}
