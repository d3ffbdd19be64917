/*
 * gpu_rtsize.c - kernels sized at run time (issue 11) on a real GPU:
 * examples/vcopy_dynamic.py (if guard), the pred= and grid-stride while
 * forms (tests/rtsize/), and a 2-D copy whose row stride is the runtime
 * size n.  Ragged sizes (n not a multiple of the block) are checked on
 * the host: B[r] == A[r] for r < n, and the rows after n (the buffer is
 * allocated larger and filled with a sentinel) are untouched.  The 2-D
 * kernel was compiled assuming n % 4 == 0; a launch with n = 1001 must
 * be refused by the runtime (E5020) before reaching the device.
 */
#include "gpu_script.h"

#define PAD_ROWS 64
#define SENTINEL 0x7fc0dead

/* Copies A to B with kernel k: shape (n, 4) when rows is 0, else
 * (rows, n).  Checks the result and that the PAD_ROWS * 4 words after
 * the tensor keep the sentinel. */
static void
copy_rows(GpuRun *g, ptrt_kernel *k, int64_t rows, int64_t n,
	  const char *what, char *why, size_t len)
{
	size_t used = (size_t)(rows ? rows * n : n * 4);
	size_t words = used + PAD_ROWS * 4;
	uint32_t *a = malloc(words * 4), *b = malloc(words * 4);
	if (!a || !b) {
		snprintf(why, len, "out of host memory");
		free(a);
		free(b);
		return;
	}
	uint64_t seed = 0x5eed0000ull + (uint64_t)n;
	for (size_t i = 0; i < words; i++) {
		a[i] = gs_rng(&seed);
		b[i] = SENTINEL;
	}
	ptrt_devptr da = gs_upload(g, a, words * 4, why, len);
	ptrt_devptr db = gs_upload(g, b, words * 4, why, len);
	if (!why[0]) {
		int64_t sh1[2] = {n, 4}, sh2[2] = {rows, n};
		int64_t *sh = rows ? sh2 : sh1;
		ptrt_arg args[] = {
			ptrt_arg_tensor(da, PTRT_FLOAT32, 2, sh, NULL),
			ptrt_arg_tensor(db, PTRT_FLOAT32, 2, sh, NULL)};
		if (!gpu_check(g, ptrt_launch(k, args, 2, NULL), "launch", why,
			       len) &&
		    !gpu_check(g, ptrt_sync(g->rt), "sync", why, len))
			gpu_check(g, ptrt_copy_dtoh(g->rt, b, db, words * 4),
				  "get B", why, len);
	}
	for (size_t i = 0; i < words && !why[0]; i++) {
		uint32_t want = i < used ? a[i] : SENTINEL;
		if (b[i] != want)
			snprintf(why, len,
				 "%s, n=%lld: word %zu is 0x%08x, expected "
				 "0x%08x (%s)", what, (long long)n, i, b[i],
				 want, i < used ? "copied" : "past the end");
	}
	if (da)
		ptrt_free(g->rt, da);
	if (db)
		ptrt_free(g->rt, db);
	free(a);
	free(b);
}

static const int64_t ragged[] = {1, 127, 128, 129, 1000, 4099};

static void
run_script(GpuRun *g, const char *path, const char *kname, char *why,
	   size_t len)
{
	ptrt_kernel *k = gs_load(g, path, kname, why, len);
	for (size_t i = 0; k && i < sizeof ragged / sizeof *ragged && !why[0];
	     i++)
		copy_rows(g, k, 0, ragged[i], path, why, len);
}

static void
run_if(GpuRun *g, char *why, size_t len)
{
	run_script(g, "examples/vcopy_dynamic.py", "vcopy_dynamic", why, len);
}

static void
run_pred(GpuRun *g, char *why, size_t len)
{
	run_script(g, "tests/rtsize/ok_pred.py", "vcopy", why, len);
}

static void
run_while(GpuRun *g, char *why, size_t len)
{
	run_script(g, "tests/rtsize/ok_while.py", "vcopy", why, len);
}

static void
run_2d(GpuRun *g, char *why, size_t len)
{
	ptrt_kernel *k = gs_load(g, "tests/rtsize/ok_inner_dim.py", "copy2d",
				 why, len);
	if (!k)
		return;
	/* n = 1004: the last 32-thread block copies 44 of its 128 columns */
	copy_rows(g, k, 3, 1004, "copy2d", why, len);
	if (why[0])
		return;
	int64_t sh[2] = {3, 1001};
	ptrt_devptr d = gs_upload(g, NULL, 3 * 1001 * 4 + 16, why, len);
	if (why[0])
		return;
	ptrt_arg args[] = {ptrt_arg_tensor(d, PTRT_FLOAT32, 2, sh, NULL),
			   ptrt_arg_tensor(d, PTRT_FLOAT32, 2, sh, NULL)};
	int rc = ptrt_launch(k, args, 2, NULL);
	if (rc != PT_E_RT_ASSUME)
		snprintf(why, len, "n=1001 launched with status %d, expected "
			 "%d (the kernel assumes n %% 4 == 0)", rc,
			 PT_E_RT_ASSUME);
	ptrt_free(g->rt, d);
}

int
main(void)
{
	GpuRun g;
	gpu_open(&g, "gpu_rtsize");
	GPU_CASE(&g, "rtsize_vcopy_if_ragged", run_if);
	GPU_CASE(&g, "rtsize_vcopy_pred_ragged", run_pred);
	GPU_CASE(&g, "rtsize_vcopy_while_ragged", run_while);
	GPU_CASE(&g, "rtsize_copy2d_runtime_stride", run_2d);
	return gpu_finish(&g);
}
