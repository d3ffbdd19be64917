/*
 * gpu_gemm.c - the worked GEMM example (examples/gemm_bf16.py) on a real
 * GPU at several sizes: the script's M, N, K constants are rewritten,
 * the kernel compiled with $BUILD/ptxtile and run on random bf16 inputs
 * (never zero).  The host computes C = A @ B.T in double from the exact
 * bf16 values; each output (all of them for the small sizes, a random
 * sample of 8192 for the large one) must be within a relative 1e-2 of
 * it, measured against |ref| + 1e-2 * sum |a*b| (f32 accumulation,
 * bf16 rounding of the result).
 */
#include "gpu_script.h"

/* Writes examples/gemm_bf16.py with M, N, K replaced to path. */
static int
write_variant(const char *path, int m, int n, int k)
{
	size_t len;
	char *src = gs_slurp("examples/gemm_bf16.py", &len);
	FILE *f = src ? fopen(path, "wb") : NULL;
	if (!f) {
		free(src);
		return -1;
	}
	for (char *line = src; *line;) {
		char *e = strchr(line, '\n');
		size_t l = e ? (size_t)(e - line + 1) : strlen(line);
		if (strncmp(line, "M = ", 4) == 0)
			fprintf(f, "M = %d\n", m);
		else if (strncmp(line, "N = ", 4) == 0)
			fprintf(f, "N = %d\n", n);
		else if (strncmp(line, "K = ", 4) == 0)
			fprintf(f, "K = %d\n", k);
		else
			fwrite(line, 1, l, f);
		line += l;
	}
	fclose(f);
	free(src);
	return 0;
}

static void
run_size(GpuRun *g, int M, int N, int K, char *why, size_t n)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char path[256];
	snprintf(path, sizeof(path), "%s/gpu/gemm_%dx%dx%d.py", build, M, N,
		 K);
	if (write_variant(path, M, N, K)) {
		snprintf(why, n, "cannot write %s", path);
		return;
	}
	ptrt_kernel *k = gs_load(g, path, "gemm_bf16", why, n);
	if (!k)
		return;
	size_t na = (size_t)M * K, nb = (size_t)N * K, nc = (size_t)M * N;
	uint16_t *a = malloc(na * 2), *b = malloc(nb * 2), *c = malloc(nc * 2);
	uint64_t seed = 0x9e3779b9u + (uint64_t)M * 31 + N * 7 + K;
	for (size_t i = 0; i < na; i++)
		a[i] = gs_f2bf(gs_rnd(&seed));
	for (size_t i = 0; i < nb; i++)
		b[i] = gs_f2bf(gs_rnd(&seed));
	ptrt_devptr da = gs_upload(g, a, na * 2, why, n);
	ptrt_devptr db = gs_upload(g, b, nb * 2, why, n);
	ptrt_devptr dc = gs_upload(g, NULL, nc * 2, why, n);
	int64_t sa[] = {M, K}, sb[] = {N, K}, sc[] = {M, N};
	ptrt_arg args[] = {ptrt_arg_tensor(da, PTRT_BFLOAT16, 2, sa, NULL),
			   ptrt_arg_tensor(db, PTRT_BFLOAT16, 2, sb, NULL),
			   ptrt_arg_tensor(dc, PTRT_BFLOAT16, 2, sc, NULL)};
	if (why[0] ||
	    gpu_check(g, ptrt_launch(k, args, 3, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, c, dc, nc * 2), "get C", why,
		      n))
		goto out;
	size_t checks = nc <= (1u << 20) ? nc : 8192;
	for (size_t s = 0; s < checks; s++) {
		size_t idx = checks == nc ? s
					  : ((size_t)gs_rng(&seed) << 16 ^
					     gs_rng(&seed)) % nc;
		int i = (int)(idx / N), j = (int)(idx % N);
		double ref = 0, mag = 0;
		for (int q = 0; q < K; q++) {
			double p = gs_bf2d(a[(size_t)i * K + q]) *
				   gs_bf2d(b[(size_t)j * K + q]);
			ref += p;
			mag += fabs(p);
		}
		double got = gs_bf2d(c[idx]);
		if (fabs(got - ref) > 1e-2 * (fabs(ref) + 1e-2 * mag) + 1e-6) {
			snprintf(why, n, "%dx%dx%d: C[%d][%d] = %.6g, expected "
				 "%.6g", M, N, K, i, j, got, ref);
			break;
		}
	}
out:
	ptrt_free(g->rt, da);
	ptrt_free(g->rt, db);
	ptrt_free(g->rt, dc);
	free(a);
	free(b);
	free(c);
}

#define SIZE_CASE(M, N, K)                                                 \
	static void run_##M##_##N##_##K(GpuRun *g, char *why, size_t n)    \
	{                                                                  \
		run_size(g, M, N, K, why, n);                              \
	}
SIZE_CASE(128, 128, 256)
SIZE_CASE(256, 384, 512)
SIZE_CASE(384, 256, 640)
SIZE_CASE(1024, 1024, 1024)

int
main(void)
{
	GpuRun g;
	gpu_open(&g, "gpu_gemm");
	GPU_CASE(&g, "gemm_bf16_128x128x256", run_128_128_256);
	GPU_CASE(&g, "gemm_bf16_256x384x512", run_256_384_512);
	GPU_CASE(&g, "gemm_bf16_384x256x640", run_384_256_640);
	GPU_CASE(&g, "gemm_bf16_1024x1024x1024_sampled", run_1024_1024_1024);
	return gpu_finish(&g);
}
