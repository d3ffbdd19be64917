/*
 * gpu_runtime.c - the runtime on a real GPU with hand-written PTX and
 * hand-written metadata (docs/metadata.md), each result checked against
 * values computed on the host:
 *
 *   vscale       y = alpha * x over a symbolic n (grid ceildiv(n, 256))
 *   cluster      2-CTA clusters exchange values through distributed
 *                shared memory (mapa + ld.shared::cluster)
 *   smem_big     100 KiB of dynamic shared memory (over the 48 KiB
 *                default, so the runtime must raise the limit)
 *   tma_copy     a runtime-encoded tensor map (cp.async.bulk.tensor.2d)
 *                over a padded-pitch matrix with partial edge tiles
 *   errors       argument validation and a JIT error log on the real
 *                driver
 */
#include <stdint.h>

#include "gpu_test.h"

#define PTX_HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"

/* ---- vscale ---- */

static const char vscale_ptx[] = PTX_HEAD
	".visible .entry vscale(.param .u64 vscale_x, .param .u64 vscale_y,\n"
	"\t.param .f32 vscale_alpha, .param .u32 vscale_n)\n"
	"{\n"
	"\t.reg .pred %p<2>;\n"
	"\t.reg .b32 %r<8>;\n"
	"\t.reg .f32 %f<4>;\n"
	"\t.reg .b64 %rd<8>;\n"
	"\tld.param.u64 %rd1, [vscale_x];\n"
	"\tld.param.u64 %rd2, [vscale_y];\n"
	"\tld.param.f32 %f1, [vscale_alpha];\n"
	"\tld.param.u32 %r1, [vscale_n];\n"
	"\tmov.u32 %r2, %ctaid.x;\n"
	"\tmov.u32 %r3, %ntid.x;\n"
	"\tmov.u32 %r4, %tid.x;\n"
	"\tmad.lo.u32 %r5, %r2, %r3, %r4;\n"
	"\tsetp.ge.u32 %p1, %r5, %r1;\n"
	"\t@%p1 bra DONE;\n"
	"\tcvta.to.global.u64 %rd3, %rd1;\n"
	"\tcvta.to.global.u64 %rd4, %rd2;\n"
	"\tmul.wide.u32 %rd5, %r5, 4;\n"
	"\tadd.s64 %rd6, %rd3, %rd5;\n"
	"\tadd.s64 %rd7, %rd4, %rd5;\n"
	"\tld.global.f32 %f2, [%rd6];\n"
	"\tmul.rn.f32 %f3, %f2, %f1;\n"
	"\tst.global.f32 [%rd7], %f3;\n"
	"DONE:\n"
	"\tret;\n"
	"}\n";

static const char vscale_meta[] =
	"{\"format\": \"ptxtile-meta\", \"version\": 1, \"kernels\": [{\n"
	" \"name\": \"vscale\",\n"
	" \"params\": [\n"
	"  {\"name\": \"x\", \"kind\": \"tensor\", \"dtype\": \"float32\", "
	"\"shape\": [\"n\"]},\n"
	"  {\"name\": \"y\", \"kind\": \"tensor\", \"dtype\": \"float32\", "
	"\"shape\": [\"n\"]},\n"
	"  {\"name\": \"alpha\", \"kind\": \"scalar\", \"dtype\": \"float32\"},\n"
	"  {\"name\": \"n\", \"kind\": \"dim\", \"var\": \"n\", "
	"\"dtype\": \"uint32\"}],\n"
	" \"launch\": {\"grid\": [{\"op\": \"ceildiv\", \"args\": "
	"[{\"var\": \"n\"}, 256]}], \"block\": [256]}}]}";

static ptrt_kernel *
load_kernel(GpuRun *g, const char *ptx, const char *meta, const char *name,
	    char *why, size_t n)
{
	ptrt_module *m;
	ptrt_kernel *k = NULL;
	if (gpu_check(g, ptrt_module_load(g->rt, ptx, strlen(ptx), meta,
					  strlen(meta), &m),
		      "loading", why, n) != PT_OK)
		return NULL;
	gpu_check(g, ptrt_kernel_get(m, name, &k), "kernel", why, n);
	return k;
}

static void
test_vscale(GpuRun *g, char *why, size_t n)
{
	enum { N = 1000 };
	static float x[N], y[N];
	ptrt_kernel *k = load_kernel(g, vscale_ptx, vscale_meta, "vscale",
				     why, n);
	if (!k)
		return;
	for (int i = 0; i < N; i++)
		x[i] = (float)i * 0.25f - 17.0f;
	ptrt_devptr dx = 0, dy = 0;
	int64_t shape = N;
	const float alpha = 1.5f;
	if (gpu_check(g, ptrt_alloc(g->rt, sizeof(x), &dx), "alloc", why, n) ||
	    gpu_check(g, ptrt_alloc(g->rt, sizeof(y), &dy), "alloc", why, n) ||
	    gpu_check(g, ptrt_copy_htod(g->rt, dx, x, sizeof(x)), "copy", why,
		      n) ||
	    gpu_check(g, ptrt_memset(g->rt, dy, 0xff, sizeof(y)), "memset",
		      why, n))
		goto out;
	ptrt_arg args[] = {
		ptrt_arg_tensor(dx, PTRT_FLOAT32, 1, &shape, NULL),
		ptrt_arg_tensor(dy, PTRT_FLOAT32, 1, &shape, NULL),
		ptrt_arg_f32(alpha),
	};
	if (gpu_check(g, ptrt_launch(k, args, 3, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, y, dy, sizeof(y)), "copy back",
		      why, n))
		goto out;
	for (int i = 0; i < N; i++) {
		float want = alpha * x[i];
		if (y[i] != want) {
			snprintf(why, n, "y[%d] = %g, expected %g", i, y[i],
				 want);
			break;
		}
	}
out:
	ptrt_free(g->rt, dx);
	ptrt_free(g->rt, dy);
}

/* ---- cluster: each CTA stores its ctaid in shared memory, then reads
 * its partner's through distributed shared memory.  With clusters of 2
 * along x the partner of CTA b is b ^ 1. ---- */

static const char cluster_ptx[] = PTX_HEAD
	".visible .entry cluster_swap(.param .u64 cluster_swap_out)\n"
	"{\n"
	"\t.reg .pred %p<2>;\n"
	"\t.reg .b32 %r<12>;\n"
	"\t.reg .b64 %rd<6>;\n"
	"\t.shared .align 4 .u32 val;\n"
	"\tmov.u32 %r1, %ctaid.x;\n"
	"\tmov.u32 %r2, %tid.x;\n"
	"\tsetp.eq.u32 %p1, %r2, 0;\n"
	"\tmov.u32 %r3, val;\n"
	"\t@%p1 st.shared.u32 [%r3], %r1;\n"
	"\tbarrier.cluster.arrive;\n"
	"\tbarrier.cluster.wait;\n"
	"\tmov.u32 %r4, %cluster_ctarank;\n"
	"\txor.b32 %r5, %r4, 1;\n"
	"\tmapa.shared::cluster.u32 %r6, %r3, %r5;\n"
	"\tld.shared::cluster.u32 %r7, [%r6];\n"
	"\tmov.u32 %r8, %cluster_nctarank;\n"
	"\tmad.lo.u32 %r9, %r8, 1000, %r7;\n"
	/* keep this CTA's shared memory alive until the partner read it */
	"\tbarrier.cluster.arrive;\n"
	"\tbarrier.cluster.wait;\n"
	"\tld.param.u64 %rd1, [cluster_swap_out];\n"
	"\tcvta.to.global.u64 %rd2, %rd1;\n"
	"\tmul.wide.u32 %rd3, %r1, 4;\n"
	"\tadd.s64 %rd4, %rd2, %rd3;\n"
	"\t@%p1 st.global.u32 [%rd4], %r9;\n"
	"\tret;\n"
	"}\n";

static const char cluster_meta[] =
	"{\"format\": \"ptxtile-meta\", \"version\": 1, \"kernels\": [{\n"
	" \"name\": \"cluster_swap\",\n"
	" \"params\": [{\"name\": \"out\", \"kind\": \"tensor\", "
	"\"dtype\": \"uint32\", \"shape\": [\"g\"]}],\n"
	" \"launch\": {\"grid\": [{\"var\": \"g\"}], \"block\": [32], "
	"\"cluster\": [2, 1, 1]}}]}";

static void
test_cluster(GpuRun *g, char *why, size_t n)
{
	enum { G = 16 };
	uint32_t out[G];
	ptrt_kernel *k = load_kernel(g, cluster_ptx, cluster_meta,
				     "cluster_swap", why, n);
	if (!k)
		return;
	ptrt_devptr d = 0;
	int64_t shape = G;
	if (gpu_check(g, ptrt_alloc(g->rt, sizeof(out), &d), "alloc", why, n) ||
	    gpu_check(g, ptrt_memset(g->rt, d, 0, sizeof(out)), "memset", why,
		      n))
		goto out;
	ptrt_arg arg = ptrt_arg_tensor(d, PTRT_UINT32, 1, &shape, NULL);
	if (gpu_check(g, ptrt_launch(k, &arg, 1, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, out, d, sizeof(out)),
		      "copy back", why, n))
		goto out;
	for (uint32_t b = 0; b < G; b++) {
		uint32_t want = 2 * 1000 + (b ^ 1);
		if (out[b] != want) {
			snprintf(why, n, "out[%u] = %u, expected %u", b, out[b],
				 want);
			break;
		}
	}
out:
	ptrt_free(g->rt, d);
}

/* ---- smem_big: 25600 words (100 KiB) of dynamic shared memory; thread
 * t writes word w = 3w + 1 for w = t, t + 256, ...; then sums the words
 * w = 255 - t + 256 j. ---- */

static const char smem_ptx[] = PTX_HEAD
	".extern .shared .align 16 .b8 dsmem[];\n"
	".visible .entry smem_big(.param .u64 smem_big_out, .param .u32 smem_big_words)\n"
	"{\n"
	"\t.reg .pred %p<3>;\n"
	"\t.reg .b32 %r<16>;\n"
	"\t.reg .b64 %rd<6>;\n"
	"\tld.param.u32 %r1, [smem_big_words];\n"
	"\tmov.u32 %r2, %tid.x;\n"
	"\tmov.u32 %r3, dsmem;\n"
	"\tmov.u32 %r4, %r2;\n"
	"FILL:\n"
	"\tsetp.ge.u32 %p1, %r4, %r1;\n"
	"\t@%p1 bra FILLED;\n"
	"\tmad.lo.u32 %r5, %r4, 3, 1;\n"
	"\tmad.lo.u32 %r6, %r4, 4, %r3;\n"
	"\tst.shared.u32 [%r6], %r5;\n"
	"\tadd.u32 %r4, %r4, 256;\n"
	"\tbra FILL;\n"
	"FILLED:\n"
	"\tbar.sync 0;\n"
	"\tmov.u32 %r9, 255;\n"
	"\tsub.u32 %r4, %r9, %r2;\n"
	"\tmov.u32 %r7, 0;\n"
	"SUM:\n"
	"\tsetp.ge.u32 %p2, %r4, %r1;\n"
	"\t@%p2 bra SUMMED;\n"
	"\tmad.lo.u32 %r6, %r4, 4, %r3;\n"
	"\tld.shared.u32 %r8, [%r6];\n"
	"\tadd.u32 %r7, %r7, %r8;\n"
	"\tadd.u32 %r4, %r4, 256;\n"
	"\tbra SUM;\n"
	"SUMMED:\n"
	"\tld.param.u64 %rd1, [smem_big_out];\n"
	"\tcvta.to.global.u64 %rd2, %rd1;\n"
	"\tmul.wide.u32 %rd3, %r2, 4;\n"
	"\tadd.s64 %rd4, %rd2, %rd3;\n"
	"\tst.global.u32 [%rd4], %r7;\n"
	"\tret;\n"
	"}\n";

static const char smem_meta[] =
	"{\"format\": \"ptxtile-meta\", \"version\": 1, \"kernels\": [{\n"
	" \"name\": \"smem_big\",\n"
	" \"params\": [{\"name\": \"out\", \"kind\": \"tensor\", "
	"\"dtype\": \"uint32\", \"shape\": [256]},\n"
	"  {\"name\": \"words\", \"kind\": \"scalar\", \"dtype\": \"uint32\"}],\n"
	" \"launch\": {\"grid\": [1], \"block\": [256], "
	"\"dynamic_smem\": {\"op\": \"mul\", \"args\": [25600, 4]}}}]}";

static void
test_smem_big(GpuRun *g, char *why, size_t n)
{
	enum { WORDS = 25600 };
	uint32_t out[256];
	ptrt_kernel *k = load_kernel(g, smem_ptx, smem_meta, "smem_big", why,
				     n);
	if (!k)
		return;
	ptrt_devptr d = 0;
	int64_t shape = 256;
	if (gpu_check(g, ptrt_alloc(g->rt, sizeof(out), &d), "alloc", why, n))
		goto out;
	ptrt_arg args[] = {ptrt_arg_tensor(d, PTRT_UINT32, 1, &shape, NULL),
			   ptrt_arg_u32(WORDS)};
	if (gpu_check(g, ptrt_launch(k, args, 2, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, out, d, sizeof(out)),
		      "copy back", why, n))
		goto out;
	for (uint32_t t = 0; t < 256; t++) {
		uint32_t want = 0;
		for (uint32_t w = 255 - t; w < WORDS; w += 256)
			want += 3 * w + 1;
		if (out[t] != want) {
			snprintf(why, n, "out[%u] = %u, expected %u", t, out[t],
				 want);
			break;
		}
	}
out:
	ptrt_free(g->rt, d);
}

/* ---- tma_copy: CTA (bx, by) loads the 32 x 32 float32 box at
 * {col 32 bx, row 32 by} of x (pitch 256 floats) with TMA and writes the
 * in-bounds part to y (dense m x k). ---- */

static const char tma_ptx[] = PTX_HEAD
	".visible .entry tma_copy(.param .u64 tma_copy_x, .param .u64 tma_copy_y,\n"
	"\t.param .align 64 .b8 tma_copy_xmap[128], .param .u32 tma_copy_m,\n"
	"\t.param .u32 tma_copy_k)\n"
	"{\n"
	"\t.reg .pred %p<6>;\n"
	"\t.reg .b32 %r<32>;\n"
	"\t.reg .f32 %f<2>;\n"
	"\t.reg .b64 %rd<12>;\n"
	"\t.shared .align 128 .b8 stile[4096];\n"
	"\t.shared .align 8 .b64 mbar;\n"
	"\tmov.u32 %r1, %tid.x;\n"
	"\tmov.u32 %r2, %ctaid.x;\n"
	"\tmov.u32 %r3, %ctaid.y;\n"
	"\tshl.b32 %r4, %r2, 5;\n"
	"\tshl.b32 %r5, %r3, 5;\n"
	"\tmov.u32 %r6, stile;\n"
	"\tmov.u32 %r7, mbar;\n"
	"\tmov.b64 %rd1, tma_copy_xmap;\n"
	"\tcvta.param.u64 %rd2, %rd1;\n"
	"\tsetp.eq.u32 %p1, %r1, 0;\n"
	"\t@%p1 mbarrier.init.shared::cta.b64 [%r7], 1;\n"
	"\tfence.mbarrier_init.release.cluster;\n"
	"\tbar.sync 0;\n"
	"\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r7], 4096;\n"
	"\t@%p1 cp.async.bulk.tensor.2d.shared::cluster.global"
	".mbarrier::complete_tx::bytes [%r6], [%rd2, {%r4, %r5}], [%r7];\n"
	"\tmov.u32 %r17, 0;\n"
	"WAIT:\n"
	"\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [%r7], %r17;\n"
	"\t@!%p2 bra WAIT;\n"
	"\tld.param.u32 %r8, [tma_copy_m];\n"
	"\tld.param.u32 %r9, [tma_copy_k];\n"
	"\tld.param.u64 %rd3, [tma_copy_y];\n"
	"\tcvta.to.global.u64 %rd4, %rd3;\n"
	"\tmov.u32 %r10, %r1;\n"
	"COPY:\n"
	"\tsetp.ge.u32 %p3, %r10, 1024;\n"
	"\t@%p3 bra DONE;\n"
	"\tshr.u32 %r11, %r10, 5;\n"          /* row in tile */
	"\tand.b32 %r12, %r10, 31;\n"         /* col in tile */
	"\tadd.u32 %r13, %r5, %r11;\n"        /* global row */
	"\tadd.u32 %r14, %r4, %r12;\n"        /* global col */
	"\tsetp.lt.u32 %p4, %r13, %r8;\n"
	"\tsetp.lt.u32 %p5, %r14, %r9;\n"
	"\tand.pred %p4, %p4, %p5;\n"
	"\tmad.lo.u32 %r15, %r10, 4, %r6;\n"
	"\tld.shared.f32 %f1, [%r15];\n"
	"\tmad.lo.u32 %r16, %r13, %r9, %r14;\n"
	"\tmul.wide.u32 %rd5, %r16, 4;\n"
	"\tadd.s64 %rd6, %rd4, %rd5;\n"
	"\t@%p4 st.global.f32 [%rd6], %f1;\n"
	"\tadd.u32 %r10, %r10, 256;\n"
	"\tbra COPY;\n"
	"DONE:\n"
	"\tret;\n"
	"}\n";

static const char tma_meta[] =
	"{\"format\": \"ptxtile-meta\", \"version\": 1, \"kernels\": [{\n"
	" \"name\": \"tma_copy\",\n"
	" \"params\": [\n"
	"  {\"name\": \"x\", \"kind\": \"tensor\", \"dtype\": \"float32\", "
	"\"shape\": [\"m\", \"k\"], \"align\": 16, \"contiguous\": false},\n"
	"  {\"name\": \"y\", \"kind\": \"tensor\", \"dtype\": \"float32\", "
	"\"shape\": [\"m\", \"k\"]},\n"
	"  {\"name\": \"xmap\", \"kind\": \"tma\", \"tensor\": \"x\", "
	"\"rank\": 2, \"box\": [32, 32]},\n"
	"  {\"name\": \"m\", \"kind\": \"dim\", \"var\": \"m\", "
	"\"dtype\": \"uint32\"},\n"
	"  {\"name\": \"k\", \"kind\": \"dim\", \"var\": \"k\", "
	"\"dtype\": \"uint32\"}],\n"
	" \"launch\": {\"grid\": [{\"op\": \"ceildiv\", \"args\": "
	"[{\"var\": \"k\"}, 32]}, {\"op\": \"ceildiv\", \"args\": "
	"[{\"var\": \"m\"}, 32]}], \"block\": [256]}}]}";

static void
test_tma_copy(GpuRun *g, char *why, size_t n)
{
	enum { M = 96, K = 200, PITCH = 256 };
	static float x[M * PITCH], y[M * K];
	ptrt_kernel *k = load_kernel(g, tma_ptx, tma_meta, "tma_copy", why, n);
	if (!k)
		return;
	for (int i = 0; i < M * PITCH; i++)
		x[i] = (float)(i % 977) + 0.5f;
	ptrt_devptr dx = 0, dy = 0;
	int64_t shape[2] = {M, K}, xstrides[2] = {PITCH * 4, 4};
	if (gpu_check(g, ptrt_alloc(g->rt, sizeof(x), &dx), "alloc", why, n) ||
	    gpu_check(g, ptrt_alloc(g->rt, sizeof(y), &dy), "alloc", why, n) ||
	    gpu_check(g, ptrt_copy_htod(g->rt, dx, x, sizeof(x)), "copy", why,
		      n) ||
	    gpu_check(g, ptrt_memset(g->rt, dy, 0, sizeof(y)), "memset", why,
		      n))
		goto out;
	ptrt_arg args[] = {
		ptrt_arg_tensor(dx, PTRT_FLOAT32, 2, shape, xstrides),
		ptrt_arg_tensor(dy, PTRT_FLOAT32, 2, shape, NULL),
	};
	if (gpu_check(g, ptrt_launch(k, args, 2, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, y, dy, sizeof(y)), "copy back",
		      why, n))
		goto out;
	for (int r = 0; r < M; r++)
		for (int c = 0; c < K; c++)
			if (y[r * K + c] != x[r * PITCH + c]) {
				snprintf(why, n, "y[%d][%d] = %g, expected %g",
					 r, c, y[r * K + c], x[r * PITCH + c]);
				goto out;
			}
out:
	ptrt_free(g->rt, dx);
	ptrt_free(g->rt, dy);
}

/* ---- errors on the real driver ---- */

static void
test_errors(GpuRun *g, char *why, size_t n)
{
	ptrt_kernel *k = load_kernel(g, vscale_ptx, vscale_meta, "vscale",
				     why, n);
	if (!k)
		return;
	int64_t shape = 16;
	ptrt_arg one = ptrt_arg_tensor(0, PTRT_FLOAT32, 1, &shape, NULL);
	if (ptrt_launch(k, &one, 1, NULL) != PT_E_RT_ARG_COUNT) {
		snprintf(why, n, "wrong count not rejected: %s",
			 ptrt_errmsg(g->rt));
		return;
	}
	static const char bad_ptx[] = PTX_HEAD
		".visible .entry vscale(.param .u64 vscale_x, .param .u64 vscale_y,\n"
		"\t.param .f32 vscale_alpha, .param .u32 vscale_n)\n"
		"{\n\tbogus.instruction %r1;\n\tret;\n}\n";
	ptrt_module *m = NULL;
	int rc = ptrt_module_load(g->rt, bad_ptx, strlen(bad_ptx), vscale_meta,
				  strlen(vscale_meta), &m);
	if (rc != PT_E_RT_JIT)
		snprintf(why, n, "bad PTX gave status %d: %s", rc,
			 ptrt_errmsg(g->rt));
	else if (!ptrt_jit_log(g->rt)[0])
		snprintf(why, n, "bad PTX: empty JIT log (%s)",
			 ptrt_errmsg(g->rt));
	else if (!ptrt_error_driver(g->rt) ||
		 strncmp(ptrt_error_driver(g->rt), "CUDA_ERROR_", 11) != 0)
		snprintf(why, n, "bad PTX: no driver error name (%s)",
			 ptrt_errmsg(g->rt));
	else
		fprintf(stderr, "errors: JIT log as expected: %s\n",
			ptrt_jit_log(g->rt));
}

int
main(void)
{
	GpuRun g;
	gpu_open(&g, "runtime");
	GPU_CASE(&g, "runtime/vscale", test_vscale);
	GPU_CASE(&g, "runtime/errors", test_errors);
	GPU_CASE(&g, "runtime/cluster", test_cluster);
	GPU_CASE(&g, "runtime/smem_big", test_smem_big);
	/* last: a fault would poison the context for later cases */
	GPU_CASE(&g, "runtime/tma_copy", test_tma_copy);
	return gpu_finish(&g);
}
