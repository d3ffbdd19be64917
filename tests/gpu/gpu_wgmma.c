/*
 * gpu_wgmma.c - wgmma.mma_async tile calls on an sm_90a GPU, one
 * warpgroup per case (kernels: tests/gpu/kernels/tile_wgmma.py, written
 * by tools/gen_wgmma_gpu_kernels.py from the same case list).
 *
 * The host draws random inputs (never zero), builds the raw shared-memory
 * image of A and B itself from the PTX ISA's canonical layouts - K-major
 * ((8,m),(T,2)) and MN-major ((T,W/16,m),(8,k)) with the byte swizzle
 * a ^ (((a >> 7) & (2^B - 1)) << 4) for B = 1, 2, 3 (32B, 64B, 128B) -
 * and, for register A, the row-major words the kernel reads at the ISA's
 * A fragment coordinates.  The kernel copies the image word for word
 * into shared memory, issues the tile call and stores each D register at
 * the ISA's D fragment coordinate.  Expected: D = A @ B.T in double from
 * the exact input values (never from our lowering), within 1e-2 of the
 * magnitude sum (f32 accumulation).
 */
#include "gpu_script.h"

enum { T_BF16, T_F16, T_TF32, T_E4M3 };
enum { L_K, L_MN, L_REG };

typedef struct Case {
	const char *name;
	int type, n, ktot;
	int a_kind, a_sw, b_kind, b_sw;
} Case;

/* the order and values of tools/gen_wgmma_gpu_kernels.py CASES */
static const Case cases[] = {
	{"wg_bf16_n64_k128", T_BF16, 64, 64, L_K, 3, L_K, 3},
	{"wg_bf16_n256_mn128", T_BF16, 256, 32, L_K, 2, L_MN, 3},
	{"wg_f16_n8_rega", T_F16, 8, 32, L_REG, 0, L_K, 0},
	{"wg_f16_n64_mn", T_F16, 64, 16, L_MN, 1, L_MN, 0},
	{"wg_tf32_n64", T_TF32, 64, 32, L_K, 3, L_K, 1},
	{"wg_tf32_n8_rega", T_TF32, 8, 16, L_REG, 0, L_K, 2},
	{"wg_e4m3_n64", T_E4M3, 64, 64, L_K, 2, L_K, 0},
	{"wg_e4m3_n256_rega", T_E4M3, 256, 128, L_REG, 0, L_K, 3},
	{"wg_bf16_n8_k32", T_BF16, 8, 32, L_K, 1, L_K, 1},
};

static const int elem_bytes[] = {2, 2, 4, 1};

/* e4m3 (1-4-3, bias 7, no infinities; S.1111.111 is NaN) */
static double
e4m3_value(uint8_t b)
{
	int e = (b >> 3) & 15, m = b & 7;
	double v = e ? ldexp(8 + m, e - 10) : ldexp(m, -9);
	return (b & 0x80) ? -v : v;
}

/* A random element: its stored bits and exact value. */
static uint32_t
draw(int type, uint64_t *seed, double *val)
{
	float f = gs_rnd(seed);
	uint32_t u;
	switch (type) {
	case T_BF16:
		u = gs_f2bf(f);
		*val = gs_bf2d((uint16_t)u);
		return u;
	case T_F16:
		u = gs_f2h(f);
		*val = gs_h2d((uint16_t)u);
		return u;
	case T_TF32: /* exactly representable: low 13 mantissa bits clear */
		memcpy(&u, &f, 4);
		u &= ~0x1fffu;
		memcpy(&f, &u, 4);
		*val = f;
		return u;
	default: /* exponents 4..8: magnitudes 1/8 .. 3.75, never NaN */
		u = (gs_rng(seed) & 0x87) | ((4 + gs_rng(seed) % 5) << 3);
		*val = e4m3_value((uint8_t)u);
		return u;
	}
}

/* Element offset of (r, kk) of an R x ktot operand in the canonical
 * layout (elements of e bytes), before the swizzle. */
static int64_t
canon(int kind, int sw, int64_t r, int64_t kk, int R, int ktot, int e)
{
	int64_t T = 16 / e;
	if (kind == L_K && sw) {
		int64_t kwe = (16 << sw) / e;
		return (kk / kwe) * (R * kwe) + r * kwe + kk % kwe;
	}
	if (kind == L_K)
		return (r / 8) * (8 * ktot) + (kk / T) * (8 * T) + (r % 8) * T +
		       kk % T;
	if (sw) {
		int64_t we = (16 << sw) / 2;
		return (r / we) * (8 * we) + r % we + (kk % 8) * we +
		       (kk / 8) * (8 * R);
	}
	return (r / 8) * 64 + r % 8 + (kk % 8) * 8 + (kk / 8) * (8 * R);
}

static int64_t
swizzle(int sw, int64_t a)
{
	return sw ? a ^ (((a >> 7) & ((1 << sw) - 1)) << 4) : a;
}

/* Raw image bytes of an R x ktot operand with values v (row-major). */
static void
put(uint8_t *img, int kind, int sw, int R, int ktot, int e,
    const uint32_t *bits)
{
	for (int r = 0; r < R; r++)
		for (int k = 0; k < ktot; k++) {
			int64_t b = swizzle(sw, canon(kind, sw, r, k, R, ktot,
						      e) * e);
			uint32_t u = bits[r * ktot + k];
			memcpy(img + b, &u, (size_t)e); /* little endian */
		}
}

static void
run_case(GpuRun *g, const Case *cs, char *why, size_t n)
{
	ptrt_kernel *k = gs_load(g, "tests/gpu/kernels/tile_wgmma.py",
				 cs->name, why, n);
	if (!k)
		return;
	int N = cs->n, K = cs->ktot, e = elem_bytes[cs->type];
	size_t abytes = (size_t)64 * K * e, bbytes = (size_t)N * K * e;
	uint32_t *ab = calloc((size_t)64 * K, 4), *bb = calloc((size_t)N * K, 4);
	double *av = calloc((size_t)64 * K, 8), *bv = calloc((size_t)N * K, 8);
	uint8_t *aimg = calloc(abytes, 1), *bimg = calloc(bbytes, 1);
	float *d = calloc((size_t)64 * N, 4);
	uint64_t seed = 0x5eed + (uint64_t)N * 131 + (uint64_t)K;
	ptrt_devptr dd = 0, da = 0, db = 0;
	if (!ab || !bb || !av || !bv || !aimg || !bimg || !d) {
		snprintf(why, n, "out of host memory");
		goto out;
	}
	for (int i = 0; i < 64 * K; i++)
		ab[i] = draw(cs->type, &seed, &av[i]);
	for (int i = 0; i < N * K; i++)
		bb[i] = draw(cs->type, &seed, &bv[i]);
	if (cs->a_kind == L_REG) /* row-major, lower k in lower bits */
		for (int i = 0; i < 64 * K; i++)
			memcpy(aimg + (size_t)i * e, &ab[i], (size_t)e);
	else
		put(aimg, cs->a_kind, cs->a_sw, 64, K, e, ab);
	put(bimg, cs->b_kind, cs->b_sw, N, K, e, bb);
	for (int i = 0; i < 64 * N; i++)
		d[i] = NAN; /* poison: every element must be written */
	dd = gs_upload(g, d, (size_t)64 * N * 4, why, n);
	db = gs_upload(g, bimg, bbytes, why, n);
	da = gs_upload(g, aimg, abytes, why, n);
	if (why[0])
		goto out;
	int64_t sd[] = {64, N}, sb[] = {(int64_t)bbytes / 4};
	int64_t sa1[] = {(int64_t)abytes / 4}, sa2[] = {64, K * e / 4};
	bool reg = cs->a_kind == L_REG;
	ptrt_arg args[] = {
		ptrt_arg_tensor(dd, PTRT_FLOAT32, 2, sd, NULL),
		ptrt_arg_tensor(db, PTRT_UINT32, 1, sb, NULL),
		reg ? ptrt_arg_tensor(da, PTRT_UINT32, 2, sa2, NULL)
		    : ptrt_arg_tensor(da, PTRT_UINT32, 1, sa1, NULL)};
	if (gpu_check(g, ptrt_launch(k, args, 3, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, d, dd, (size_t)64 * N * 4),
		      "get D", why, n))
		goto out;
	for (int i = 0; i < 64 && !why[0]; i++)
		for (int j = 0; j < N; j++) {
			double s = 0, mag = 1e-3;
			for (int q = 0; q < K; q++) {
				double p = av[i * K + q] * bv[j * K + q];
				s += p;
				mag += fabs(p);
			}
			if (!(fabs(d[i * N + j] - s) <= 1e-2 * mag)) {
				snprintf(why, n, "D[%d][%d] = %.7g, expected "
					 "%.7g", i, j, d[i * N + j], s);
				break;
			}
		}
out:
	if (dd)
		ptrt_free(g->rt, dd);
	if (da)
		ptrt_free(g->rt, da);
	if (db)
		ptrt_free(g->rt, db);
	free(ab);
	free(bb);
	free(av);
	free(bv);
	free(aimg);
	free(bimg);
	free(d);
}

int
main(void)
{
	GpuRun g;
	gpu_open(&g, "gpu_wgmma");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
#define RUN_CASE(gg, w, n) run_case(gg, &cases[i], w, n)
		GPU_CASE(&g, cases[i].name, RUN_CASE);
#undef RUN_CASE
	}
	return gpu_finish(&g);
}
