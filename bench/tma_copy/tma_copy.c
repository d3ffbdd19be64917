/*
 * tma_copy.c - driver of bench/tma_copy: times the TMA copy kernel
 * (tma_copy.py, compiled by run.sh) against cuMemcpyDtoD over the same
 * buffers in the same process, and checks the copy.
 *
 * Usage: tma_copy KERNEL.ptx KERNEL.json [GiB] [iters]
 * Output: one line per method with the median time and the bandwidth
 * counted as bytes read + bytes written (2 x size), then the ratio.
 * Timing: wall clock around each launch/copy followed by a full
 * synchronisation, the same for both methods; warm-up runs first.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptxtile_rt.h"

typedef int (*GetProc)(const char *, void **, int, uint64_t);
typedef int (*MemcpyDtoD)(uint64_t, uint64_t, size_t);

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		return NULL;
	}
	if (b)
		b[n] = 0;
	fclose(f);
	return b;
}

static double
now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int
die(ptrt_ctx *rt, const char *what)
{
	fprintf(stderr, "tma_copy: %s: %s\n", what, rt ? ptrt_errmsg(rt) : "");
	return 1;
}

/* cuMemcpyDtoD at the 64-bit ABI (3020 = the _v2 entry point). */
static MemcpyDtoD
load_memcpy(void)
{
	void *dl = dlopen("libcuda.so.1", RTLD_NOW);
	GetProc gp = dl ? (GetProc)(uintptr_t)dlsym(dl, "cuGetProcAddress")
			: NULL;
	void *fn = NULL;
	if (!gp || gp("cuMemcpyDtoD", &fn, 3020, 0) != 0)
		return NULL;
	return (MemcpyDtoD)(uintptr_t)fn;
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: tma_copy KERNEL.ptx KERNEL.json [GiB] "
			"[iters]\n");
		return 2;
	}
	double gib = argc > 3 ? atof(argv[3]) : 2.0;
	int iters = argc > 4 ? atoi(argv[4]) : 20;
	int64_t rows = (int64_t)(gib * (1 << 30)) / 1024 / 32 * 32;
	size_t bytes = (size_t)rows * 1024;
	ptrt_ctx *rt = NULL;
	if (ptrt_open(&rt) != PT_OK) {
		printf("SKIP bench/tma_copy: %s\n", ptrt_errmsg(rt));
		ptrt_close(rt);
		return 77;
	}
	char *ptx = slurp(argv[1]), *meta = slurp(argv[2]);
	ptrt_module *mod = NULL;
	ptrt_kernel *k = NULL;
	if (!ptx || !meta)
		return die(NULL, "cannot read the kernel files");
	if (ptrt_module_load(rt, ptx, strlen(ptx), meta, strlen(meta), &mod) ||
	    ptrt_kernel_get(mod, "tma_copy", &k))
		return die(rt, "loading the kernel");
	MemcpyDtoD dtod = load_memcpy();
	if (!dtod)
		return die(NULL, "cuMemcpyDtoD not found");
	ptrt_devptr x = 0, y = 0;
	if (ptrt_alloc(rt, bytes, &x) || ptrt_alloc(rt, bytes, &y))
		return die(rt, "alloc");
	uint32_t *h = malloc(bytes);
	if (!h)
		return die(NULL, "host memory");
	for (size_t i = 0; i < bytes / 4; i++)
		h[i] = (uint32_t)(i * 2654435761u);
	if (ptrt_copy_htod(rt, x, h, bytes) || ptrt_memset(rt, y, 0, bytes))
		return die(rt, "init");
	int64_t shape[2] = {rows, 256};
	ptrt_arg args[2] = {
		ptrt_arg_tensor(x, PTRT_FLOAT32, 2, shape, NULL),
		ptrt_arg_tensor(y, PTRT_FLOAT32, 2, shape, NULL),
	};
	double *tt = calloc((size_t)iters, sizeof(double));
	double *tc = calloc((size_t)iters, sizeof(double));
	for (int w = 0; w < 3; w++)
		if (ptrt_launch(k, args, 2, NULL) || dtod(y, x, bytes) ||
		    ptrt_sync(rt))
			return die(rt, "warm-up");
	for (int i = 0; i < iters; i++) {
		double t0 = now();
		if (ptrt_launch(k, args, 2, NULL) || ptrt_sync(rt))
			return die(rt, "tma_copy launch");
		double t1 = now();
		if (dtod(y, x, bytes) || ptrt_sync(rt))
			return die(rt, "cuMemcpyDtoD");
		double t2 = now();
		tt[i] = t1 - t0;
		tc[i] = t2 - t1;
	}
	/* the last write was the D2D copy: clear, copy with TMA, verify */
	if (ptrt_memset(rt, y, 0, bytes) || ptrt_launch(k, args, 2, NULL) ||
	    ptrt_sync(rt))
		return die(rt, "verification launch");
	uint32_t *back = malloc(bytes);
	if (!back || ptrt_copy_dtoh(rt, back, y, bytes))
		return die(rt, "copy back");
	size_t bad = 0;
	for (size_t i = 0; i < bytes / 4; i++)
		bad += back[i] != h[i];
	qsort(tt, (size_t)iters, sizeof(double), cmp_double);
	qsort(tc, (size_t)iters, sizeof(double), cmp_double);
	double mt = tt[iters / 2], mc = tc[iters / 2];
	double moved = 2.0 * (double)bytes / 1e9;
	printf("size %.2f GiB (%lld rows x 1 KiB), %d iterations, median\n",
	       (double)bytes / (1 << 30), (long long)rows, iters);
	printf("tma_copy      %8.3f ms  %7.1f GB/s\n", mt * 1e3, moved / mt);
	printf("cuMemcpyDtoD  %8.3f ms  %7.1f GB/s\n", mc * 1e3, moved / mc);
	printf("ratio tma_copy / cuMemcpyDtoD = %.3f (target >= 0.90)\n",
	       mc / mt);
	printf("verification: %s (%zu mismatching words)\n",
	       bad ? "FAILED" : "ok", bad);
	ptrt_free(rt, x);
	ptrt_free(rt, y);
	ptrt_module_unload(mod);
	ptrt_close(rt);
	return bad ? 1 : 0;
}
