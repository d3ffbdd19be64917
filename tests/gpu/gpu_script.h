/*
 * gpu_script.h - helpers for GPU tests that run kernel scripts: compile
 * tests/gpu/kernels/NAME.py (or any script path) with $BUILD/ptxtile,
 * load kernel NAME, upload buffers, random data, and the 16-bit float
 * formats on the host (round to nearest even, from the IEEE / bfloat16
 * definitions).  Header-only, static functions; used by gpu_ldmatrix.c,
 * gpu_mma.c and gpu_gemm.c.
 */
#ifndef PT_GPU_SCRIPT_H
#define PT_GPU_SCRIPT_H

#include <math.h>
#include <stdint.h>

#include "gpu_test.h"

static inline char *
gs_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	fclose(f);
	if (s) {
		s[n] = 0;
		*len = (size_t)n;
	}
	return s;
}

/* Compiles script `path` for sm_90a and loads kernel `name`. */
static inline ptrt_kernel *
gs_load(GpuRun *g, const char *path, const char *name, char *why, size_t n)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char cmd[1024], ptx[256], meta[256];
	snprintf(ptx, sizeof(ptx), "%s/gpu/%s.ptx", build, name);
	snprintf(meta, sizeof(meta), "%s/gpu/%s.json", build, name);
	snprintf(cmd, sizeof(cmd),
		 "%s/ptxtile compile %s --target sm_90a -o %s --meta %s",
		 build, path, ptx, meta);
	if (system(cmd) != 0) {
		snprintf(why, n, "%s does not compile", path);
		return NULL;
	}
	size_t plen = 0, mlen = 0;
	char *p = gs_slurp(ptx, &plen), *m = gs_slurp(meta, &mlen);
	ptrt_module *mod = NULL;
	ptrt_kernel *k = NULL;
	if (!p || !m)
		snprintf(why, n, "cannot read %s / %s", ptx, meta);
	else if (gpu_check(g, ptrt_module_load(g->rt, p, plen + 1, m, mlen,
					       &mod), "module load", why, n) ==
		 PT_OK)
		gpu_check(g, ptrt_kernel_get(mod, name, &k), "kernel", why, n);
	if (why[0] && ptrt_jit_log(g->rt)[0])
		fprintf(stderr, "%s\n", ptrt_jit_log(g->rt));
	free(p);
	free(m);
	return why[0] ? NULL : k;
}

static inline ptrt_kernel *
gs_kernel(GpuRun *g, const char *name, char *why, size_t n)
{
	char path[256];
	snprintf(path, sizeof(path), "tests/gpu/kernels/%s.py", name);
	return gs_load(g, path, name, why, n);
}

static inline uint32_t
gs_rng(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

/* Uniform in [-1, 1), never exactly zero. */
static inline float
gs_rnd(uint64_t *s)
{
	float v = (float)((int32_t)(gs_rng(s) << 1) >> 8) / 8388608.0f;
	return v == 0.0f ? 0.5f : v;
}

static inline ptrt_devptr
gs_upload(GpuRun *g, const void *h, size_t bytes, char *why, size_t n)
{
	ptrt_devptr d = 0;
	if (gpu_check(g, ptrt_alloc(g->rt, bytes, &d), "alloc", why, n) ||
	    (h && gpu_check(g, ptrt_copy_htod(g->rt, d, h, bytes), "upload",
			    why, n)))
		return 0;
	return d;
}

/* float -> bfloat16 bits, round to nearest even (finite inputs). */
static inline uint16_t
gs_f2bf(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static inline double
gs_bf2d(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* float -> binary16 bits, round to nearest even, for |f| < 1 (normal or
 * subnormal results only, which is all the tests use). */
static inline uint16_t
gs_f2h(float f)
{
	uint16_t sign = signbit(f) ? 0x8000 : 0;
	double d = fabs((double)f);
	if (d == 0.0)
		return sign;
	int e;
	frexp(d, &e);
	int ulp = e - 11 < -24 ? -24 : e - 11;
	double q = ldexp(d, -ulp), fl = floor(q), r = q - fl;
	uint32_t k = (uint32_t)fl;
	if (r > 0.5 || (r == 0.5 && (k & 1)))
		k++;
	if (ulp == -24 && k < 1024)
		return sign | (uint16_t)k;
	int be = ulp + 25;
	if (k >= 2048) {
		k >>= 1;
		be++;
	}
	return sign | (uint16_t)(be << 10) | (uint16_t)(k - 1024);
}

static inline double
gs_h2d(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
	return (h & 0x8000) ? -v : v;
}

#endif
