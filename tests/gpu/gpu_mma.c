/*
 * gpu_mma.c - mma.sync tile calls on a real GPU: m16n8k16 bf16 with
 * M/N/K repeats and a register C, m16n8k8 f16 with a scalar C.  Inputs
 * are random (never zero); the host computes D = C + A @ B.T in double
 * from the exact 16-bit input values (the product of the matrices, not
 * of our lowering) and accepts a relative error of 1e-2 against the
 * magnitude sum |C| + sum |a*b| (f32 accumulation of 16-bit products).
 */
#include "gpu_script.h"

static int
close_enough(double got, double want, double mag)
{
	return fabs(got - want) <= 1e-2 * (fabs(want) + 1e-2 * mag) + 1e-6;
}

static void
run_k16(GpuRun *g, char *why, size_t n)
{
	enum { M = 32, N = 16, K = 32 };
	ptrt_kernel *k = gs_kernel(g, "tile_mma", why, n);
	if (!k)
		return;
	uint16_t a[M * K], b[N * K];
	float c[M * N], d[M * N];
	uint64_t seed = 0xa11ce;
	for (int i = 0; i < M * K; i++)
		a[i] = gs_f2bf(gs_rnd(&seed));
	for (int i = 0; i < N * K; i++)
		b[i] = gs_f2bf(gs_rnd(&seed));
	for (int i = 0; i < M * N; i++)
		c[i] = gs_rnd(&seed);
	ptrt_devptr da = gs_upload(g, a, sizeof(a), why, n);
	ptrt_devptr db = gs_upload(g, b, sizeof(b), why, n);
	ptrt_devptr dc = gs_upload(g, c, sizeof(c), why, n);
	ptrt_devptr dd = gs_upload(g, NULL, sizeof(d), why, n);
	if (why[0])
		return;
	int64_t sa[] = {M, K / 2}, sb[] = {N, K / 2}, sc[] = {M, N};
	ptrt_arg args[] = {ptrt_arg_tensor(da, PTRT_UINT32, 2, sa, NULL),
			   ptrt_arg_tensor(db, PTRT_UINT32, 2, sb, NULL),
			   ptrt_arg_tensor(dc, PTRT_FLOAT32, 2, sc, NULL),
			   ptrt_arg_tensor(dd, PTRT_FLOAT32, 2, sc, NULL)};
	if (gpu_check(g, ptrt_launch(k, args, 4, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, d, dd, sizeof(d)), "get D",
		      why, n))
		return;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double s = c[i * N + j], mag = fabs(s);
			for (int q = 0; q < K; q++) {
				double p = gs_bf2d(a[i * K + q]) *
					   gs_bf2d(b[j * K + q]);
				s += p;
				mag += fabs(p);
			}
			if (!close_enough(d[i * N + j], s, mag)) {
				snprintf(why, n, "D[%d][%d] = %.7g, expected "
					 "%.7g", i, j, d[i * N + j], s);
				return;
			}
		}
	ptrt_free(g->rt, da);
	ptrt_free(g->rt, db);
	ptrt_free(g->rt, dc);
	ptrt_free(g->rt, dd);
}

static void
run_k8(GpuRun *g, char *why, size_t n)
{
	enum { M = 16, N = 16, K = 16 };
	ptrt_kernel *k = gs_kernel(g, "tile_mma_k8", why, n);
	if (!k)
		return;
	uint16_t a[M * K], b[N * K];
	float d[M * N];
	uint64_t seed = 0xb0b;
	for (int i = 0; i < M * K; i++)
		a[i] = gs_f2h(gs_rnd(&seed));
	for (int i = 0; i < N * K; i++)
		b[i] = gs_f2h(gs_rnd(&seed));
	ptrt_devptr da = gs_upload(g, a, sizeof(a), why, n);
	ptrt_devptr db = gs_upload(g, b, sizeof(b), why, n);
	ptrt_devptr dd = gs_upload(g, NULL, sizeof(d), why, n);
	if (why[0])
		return;
	int64_t sa[] = {M, K / 2}, sb[] = {N, K / 2}, sd[] = {M, N};
	ptrt_arg args[] = {ptrt_arg_tensor(da, PTRT_UINT32, 2, sa, NULL),
			   ptrt_arg_tensor(db, PTRT_UINT32, 2, sb, NULL),
			   ptrt_arg_tensor(dd, PTRT_FLOAT32, 2, sd, NULL)};
	if (gpu_check(g, ptrt_launch(k, args, 3, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, d, dd, sizeof(d)), "get D",
		      why, n))
		return;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double s = 0.5, mag = 0.5;
			for (int q = 0; q < K; q++) {
				double p = gs_h2d(a[i * K + q]) *
					   gs_h2d(b[j * K + q]);
				s += p;
				mag += fabs(p);
			}
			if (!close_enough(d[i * N + j], s, mag)) {
				snprintf(why, n, "D[%d][%d] = %.7g, expected "
					 "%.7g", i, j, d[i * N + j], s);
				return;
			}
		}
	ptrt_free(g->rt, da);
	ptrt_free(g->rt, db);
	ptrt_free(g->rt, dd);
}

int
main(void)
{
	GpuRun g;
	gpu_open(&g, "gpu_mma");
	GPU_CASE(&g, "mma_m16n8k16_bf16_repeats_tensor_c", run_k16);
	GPU_CASE(&g, "mma_m16n8k8_f16_scalar_c", run_k8);
	return gpu_finish(&g);
}
