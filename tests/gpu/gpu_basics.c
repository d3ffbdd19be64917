/*
 * gpu_basics.c - kernels without tile calls, compiled by ptxtile and run
 * through the runtime (issue: PTX backend and runtime):
 *
 *   cluster_copy  the reference's complete cluster copy
 *                 (examples/cluster_copy.py): two CTAs in a cluster, CTA 0
 *                 sends 256 bytes to CTA 1 with cp.async.bulk; B == A
 *                 bit for bit.
 *   scalar_flow   control flow and scalar arithmetic on every dtype family
 *                 (tests/gpu/kernels/scalar_flow.py); each value is
 *                 recomputed here from the Python/C semantics the script
 *                 states in its header.
 *   smem_reduce   shared-memory tree reduction with CTA barriers
 *                 (tests/gpu/kernels/smem_reduce.py) against a host sum.
 */
#include <math.h>
#include <stdint.h>

#include "gpu_script.h"

static int64_t
floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t
floormod(int64_t a, int64_t b)
{
	return a - floordiv(a, b) * b;
}

static void
run_cluster_copy(GpuRun *g, char *why, size_t n)
{
	ptrt_kernel *k = gs_load(g, "examples/cluster_copy.py", "cluster_copy",
				 why, n);
	if (!k)
		return;
	float a[64], b[64];
	uint64_t seed = 7;
	for (int i = 0; i < 64; i++)
		a[i] = gs_rnd(&seed) + 2.0f; /* never zero */
	ptrt_devptr da = gs_upload(g, a, sizeof(a), why, n), db = 0;
	if (!da || gpu_check(g, ptrt_alloc(g->rt, sizeof(b), &db), "alloc",
			     why, n) ||
	    gpu_check(g, ptrt_memset(g->rt, db, 0, sizeof(b)), "memset", why,
		      n))
		return;
	int64_t shape[] = {64};
	ptrt_arg args[] = {ptrt_arg_tensor(da, PTRT_FLOAT32, 1, shape, NULL),
			   ptrt_arg_tensor(db, PTRT_FLOAT32, 1, shape, NULL)};
	if (gpu_check(g, ptrt_launch(k, args, 2, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, b, db, sizeof(b)), "download",
		      why, n))
		return;
	for (int i = 0; i < 64; i++)
		if (memcmp(&a[i], &b[i], 4) != 0) {
			snprintf(why, n, "B[%d] = %g, expected A[%d] = %g", i,
				 b[i], i, a[i]);
			return;
		}
}

/* The expected row of scalar_flow for thread t (see the script header). */
static void
scalar_flow_ref(int t, int32_t out[8], float f[4])
{
	int32_t s = t - 32;
	out[0] = (int32_t)floordiv(s, 5);
	out[1] = (int32_t)floormod(s, 5);
	out[2] = (int32_t)(((uint32_t)t * 2654435761u) >> 16);
	out[3] = (int8_t)(uint8_t)((s * 9) & 0xff);
	int cnt = 0;
	for (int i = 0; i < t && i < 40; i++)
		cnt += (i % 2 == 0 && i % 3 == 0);
	out[4] = cnt;
	out[5] = (int32_t)((double)s * 0.5); /* exact in half; C truncates */
	out[6] = (s < 0 && t % 2 == 0);
	int64_t w = s, c = w < 10 ? w : 10;
	c = c > -10 ? c : -10;
	out[7] = (int32_t)(c + (w < 0 ? -w : w) / 8);
	f[0] = (float)(t * 3); /* small integers are exact in bfloat16 */
	f[1] = (float)((double)s / 4.0);
	f[2] = s >= 0 ? sqrtf((float)t) : -1.0f;
	f[3] = floorf((float)t / 3.0f);
}

static void
run_scalar_flow(GpuRun *g, char *why, size_t n)
{
	ptrt_kernel *k = gs_kernel(g, "scalar_flow", why, n);
	if (!k)
		return;
	int32_t out[64][8];
	float f[64][4];
	ptrt_devptr dout = 0, df = 0;
	if (gpu_check(g, ptrt_alloc(g->rt, sizeof(out), &dout), "alloc", why,
		      n) ||
	    gpu_check(g, ptrt_alloc(g->rt, sizeof(f), &df), "alloc", why, n) ||
	    gpu_check(g, ptrt_memset(g->rt, dout, 0xa5, sizeof(out)), "memset",
		      why, n))
		return;
	int64_t so[] = {64, 8}, sf[] = {64, 4};
	ptrt_arg args[] = {ptrt_arg_tensor(dout, PTRT_INT32, 2, so, NULL),
			   ptrt_arg_tensor(df, PTRT_FLOAT32, 2, sf, NULL)};
	if (gpu_check(g, ptrt_launch(k, args, 2, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, out, dout, sizeof(out)),
		      "download", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, f, df, sizeof(f)), "download",
		      why, n))
		return;
	for (int t = 0; t < 64; t++) {
		int32_t eo[8];
		float ef[4];
		scalar_flow_ref(t, eo, ef);
		for (int j = 0; j < 8; j++)
			if (out[t][j] != eo[j]) {
				snprintf(why, n, "Out[%d, %d] = %d, expected %d",
					 t, j, out[t][j], eo[j]);
				return;
			}
		for (int j = 0; j < 4; j++)
			if (fabsf(f[t][j] - ef[j]) > 1e-6f * fabsf(ef[j])) {
				snprintf(why, n, "F[%d, %d] = %.9g, expected %.9g",
					 t, j, f[t][j], ef[j]);
				return;
			}
	}
}

static void
run_smem_reduce(GpuRun *g, char *why, size_t n)
{
	ptrt_kernel *k = gs_kernel(g, "smem_reduce", why, n);
	if (!k)
		return;
	static float a[4096];
	float out[4], want[4] = {0};
	uint64_t seed = 11;
	for (int i = 0; i < 4096; i++) {
		a[i] = (float)(1 + gs_rng(&seed) % 9); /* exact sums */
		want[i / 1024] += a[i];
	}
	ptrt_devptr da = gs_upload(g, a, sizeof(a), why, n), dout = 0;
	if (!da || gpu_check(g, ptrt_alloc(g->rt, sizeof(out), &dout),
			     "alloc", why, n))
		return;
	int64_t sa[] = {4096}, so[] = {4};
	ptrt_arg args[] = {ptrt_arg_tensor(da, PTRT_FLOAT32, 1, sa, NULL),
			   ptrt_arg_tensor(dout, PTRT_FLOAT32, 1, so, NULL)};
	if (gpu_check(g, ptrt_launch(k, args, 2, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, out, dout, sizeof(out)),
		      "download", why, n))
		return;
	for (int b = 0; b < 4; b++)
		if (out[b] != want[b]) {
			snprintf(why, n, "Out[%d] = %g, expected %g", b, out[b],
				 want[b]);
			return;
		}
}

int
main(void)
{
	GpuRun g;
	gpu_open(&g, "basics");
	GPU_CASE(&g, "cluster_copy", run_cluster_copy);
	GPU_CASE(&g, "scalar_flow", run_scalar_flow);
	GPU_CASE(&g, "smem_reduce", run_smem_reduce);
	return gpu_finish(&g);
}
