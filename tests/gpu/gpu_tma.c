/*
 * gpu_tma.c - TMA tile calls on the GPU: scripts compiled by
 * $BUILD/ptxtile (tests/gpu/kernels/tma_modes.py and the examples), their
 * tensor maps encoded by the runtime from the actual arguments, and the
 * results compared with host references written from the documented
 * hardware behaviour (PTX ISA / ptx_facts.md §5), never from our
 * lowering:
 *   swizzle 32B/64B/128B  the shared image byte for byte: storage byte a
 *                         of a period-aligned tile holds logical byte
 *                         a ^ (((a >> 7) & (2^k - 1)) << 4)
 *   oob zero / NaN        elements outside the tensor read 0 / NaN
 *   element strides       rows r0, r0 + 2, ...
 *   interleave 16B        uint16 NC/8WC8 data (the driver docs' NC/8HWC8,
 *                         H = 1), channel c of pixel w of image n at
 *                         A[n][c / 8][w][c % 8]; image (w, ci) = channel
 *                         8 c0 + ci of pixel w0 + w of image n0, through
 *                         the map the runtime builds from A as a T.Tensor
 *                         (2, 4, 64, 8) and through a map the test
 *                         encodes itself
 *   region                a map of X[16:56, 8:40]: box element (i, j) is
 *                         X[16 + r0 + i][8 + c0 + j] inside the 40 x 32
 *                         region, 0 outside it (even inside X)
 *   load + 128B consumer  examples/tma_load_swizzle.py
 *   store, add-reduction  examples/tma_store.py, tma_reduce_add.py
 *   coord_steps           examples/tma_load_3d_steps.py
 *   2-CTA multicast       examples/tma_multicast.py
 * Inputs are random (xorshift).  Exit 77 without a driver.  The region
 * and the two interleave cases run first, each in a process of its own: a
 * map the TMA unit rejects traps and loses the CUDA context, which must
 * not hide the other cases.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "gpu_test.h"

typedef struct Kern {
	ptrt_module *mod;
	char *ptx, *meta;
} Kern;

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
		b = NULL;
	}
	if (b)
		b[n] = 0;
	fclose(f);
	return b;
}

/* Compiles script with the CLI and loads the module; false + why. */
static bool
compile_load(GpuRun *g, const char *script, Kern *k, char *why, size_t n)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char ptx[512], meta[512], cmd[2048];
	snprintf(ptx, sizeof(ptx), "%s/gpu/tma_%d.ptx", build, (int)getpid());
	snprintf(meta, sizeof(meta), "%s/gpu/tma_%d.json", build, (int)getpid());
	snprintf(cmd, sizeof(cmd), "%s/ptxtile compile %s --target sm_90a -o %s "
		 "--meta %s", build, script, ptx, meta);
	memset(k, 0, sizeof(*k));
	if (system(cmd) != 0) {
		snprintf(why, n, "%s does not compile", script);
		return false;
	}
	k->ptx = slurp(ptx);
	k->meta = slurp(meta);
	remove(ptx);
	remove(meta);
	if (!k->ptx || !k->meta) {
		snprintf(why, n, "cannot read the output of %s", script);
		return false;
	}
	return gpu_check(g, ptrt_module_load(g->rt, k->ptx, strlen(k->ptx),
					     k->meta, strlen(k->meta), &k->mod),
			 script, why, n) == PT_OK;
}

static void
kern_free(Kern *k)
{
	if (k->mod)
		ptrt_module_unload(k->mod);
	free(k->ptx);
	free(k->meta);
}

static uint32_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

/* A random finite float16 bit pattern (exponent below 31). */
static uint16_t
rnd_half(uint64_t *s)
{
	uint16_t h = (uint16_t)rnd(s);
	if (((h >> 10) & 31) == 31)
		h &= (uint16_t)~(1u << 14);
	return h;
}

static float
rnd_float(uint64_t *s)
{
	return (float)(rnd(s) % 2000001) / 1000.0f - 1000.0f;
}

/* Device buffers of one case, freed together. */
typedef struct Bufs {
	ptrt_devptr p[4];
	int n;
} Bufs;

static ptrt_devptr
dev_from(GpuRun *g, Bufs *b, const void *host, size_t bytes, char *why,
	 size_t n)
{
	ptrt_devptr d = 0;
	if (gpu_check(g, ptrt_alloc(g->rt, bytes, &d), "alloc", why, n))
		return 0;
	b->p[b->n++] = d;
	if (host)
		gpu_check(g, ptrt_copy_htod(g->rt, d, host, bytes), "copy", why,
			  n);
	else
		gpu_check(g, ptrt_memset(g->rt, d, 0xff, bytes), "memset", why,
			  n);
	return d;
}

static void
bufs_free(GpuRun *g, Bufs *b)
{
	for (int i = 0; i < b->n; i++)
		ptrt_free(g->rt, b->p[i]);
}

static int
run(GpuRun *g, Kern *k, const char *name, const ptrt_arg *args, size_t na,
    char *why, size_t n)
{
	ptrt_kernel *kn = NULL;
	if (gpu_check(g, ptrt_kernel_get(k->mod, name, &kn), name, why, n) ||
	    gpu_check(g, ptrt_launch(kn, args, na, NULL), name, why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync after the kernel", why, n))
		return -1;
	return 0;
}

/* ---- swizzle modes: the shared image byte for byte ---- */

static void
check_swizzle(GpuRun *g, Kern *k, int mode, char *why, size_t n)
{
	enum { R = 64, C = 128 };
	static uint16_t a[R * C], out[16 * 64];
	uint64_t s = 0x9e3779b97f4a7c15ull + (uint64_t)mode;
	for (int i = 0; i < R * C; i++)
		a[i] = rnd_half(&s);
	int w = 16 << (mode - 1); /* inner box: 32/64/128 bytes */
	int r0 = 7 + mode, c0 = 8 * mode;
	Bufs b = {0};
	int64_t sa[2] = {R, C}, so[2] = {16, w};
	ptrt_devptr da = dev_from(g, &b, a, sizeof(a), why, n);
	ptrt_devptr dout = dev_from(g, &b, NULL, sizeof(uint16_t) * 16 * w,
				    why, n);
	char name[8];
	snprintf(name, sizeof(name), "swz%d", mode);
	ptrt_arg args[] = {
		ptrt_arg_tensor(da, PTRT_FLOAT16, 2, sa, NULL),
		ptrt_arg_tensor(dout, PTRT_FLOAT16, 2, so, NULL),
		ptrt_arg_i32(r0), ptrt_arg_i32(c0),
	};
	if (why[0] || run(g, k, name, args, 4, why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, out, dout,
					sizeof(uint16_t) * 16 * w),
		      "copy back", why, n))
		goto done;
	for (int p = 0; p < 16 * w; p++) {
		unsigned a_phys = 2u * (unsigned)p;
		unsigned mask = (1u << mode) - 1;
		unsigned o = a_phys ^ (((a_phys >> 7) & mask) << 4);
		int r = (int)(o / (2u * (unsigned)w));
		int c = (int)(o % (2u * (unsigned)w)) / 2;
		uint16_t want = a[(r0 + r) * C + c0 + c];
		if (out[p] != want) {
			snprintf(why, n, "swizzle %d: storage element %d = 0x%04x,"
				 " expected A[%d][%d] = 0x%04x", mode, p, out[p],
				 r0 + r, c0 + c, want);
			break;
		}
	}
done:
	bufs_free(g, &b);
}

static void
test_swizzle(GpuRun *g, char *why, size_t n)
{
	Kern k;
	if (compile_load(g, "tests/gpu/kernels/tma_modes.py", &k, why, n))
		for (int mode = 1; mode <= 3 && !why[0]; mode++)
			check_swizzle(g, &k, mode, why, n);
	kern_free(&k);
}

/* ---- out-of-bounds fill and element strides ---- */

static void
check_oob(GpuRun *g, Kern *k, bool nan_fill, char *why, size_t n)
{
	enum { M = 100, K = 40 }; /* rows of 160 bytes */
	static float x[M * K], out[32 * 32];
	uint64_t s = 0x1234567ull + nan_fill;
	for (int i = 0; i < M * K; i++)
		x[i] = rnd_float(&s);
	int r0 = 80, c0 = 16;
	Bufs b = {0};
	int64_t sx[2] = {M, K}, so[2] = {32, 32};
	ptrt_devptr dx = dev_from(g, &b, x, sizeof(x), why, n);
	ptrt_devptr dout = dev_from(g, &b, NULL, sizeof(out), why, n);
	ptrt_arg args[] = {
		ptrt_arg_tensor(dx, PTRT_FLOAT32, 2, sx, NULL),
		ptrt_arg_tensor(dout, PTRT_FLOAT32, 2, so, NULL),
		ptrt_arg_i32(r0), ptrt_arg_i32(c0),
	};
	if (why[0] || run(g, k, nan_fill ? "oob_nan" : "oob_zero", args, 4,
			  why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, out, dout, sizeof(out)),
		      "copy back", why, n))
		goto done;
	for (int i = 0; i < 32; i++)
		for (int j = 0; j < 32; j++) {
			float got = out[i * 32 + j];
			bool in = r0 + i < M && c0 + j < K;
			bool ok = in ? got == x[(r0 + i) * K + c0 + j]
				     : nan_fill ? isnan(got)
						: got == 0.0f && !signbit(got);
			if (!ok) {
				snprintf(why, n, "%s fill: out[%d][%d] = %g "
					 "(%s the tensor)", nan_fill ? "NaN"
					 : "zero", i, j, got,
					 in ? "inside" : "outside");
				goto done;
			}
		}
done:
	bufs_free(g, &b);
}

static void
check_estride(GpuRun *g, Kern *k, char *why, size_t n)
{
	static float x[64 * 64], out[8 * 32];
	uint64_t s = 0xabcdefull;
	for (int i = 0; i < 64 * 64; i++)
		x[i] = rnd_float(&s);
	int r0 = 5, c0 = 16;
	Bufs b = {0};
	int64_t sx[2] = {64, 64}, so[2] = {8, 32};
	ptrt_devptr dx = dev_from(g, &b, x, sizeof(x), why, n);
	ptrt_devptr dout = dev_from(g, &b, NULL, sizeof(out), why, n);
	ptrt_arg args[] = {
		ptrt_arg_tensor(dx, PTRT_FLOAT32, 2, sx, NULL),
		ptrt_arg_tensor(dout, PTRT_FLOAT32, 2, so, NULL),
		ptrt_arg_i32(r0), ptrt_arg_i32(c0),
	};
	if (why[0] || run(g, k, "estride", args, 4, why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, out, dout, sizeof(out)),
		      "copy back", why, n))
		goto done;
	for (int i = 0; i < 8 && !why[0]; i++)
		for (int j = 0; j < 32; j++)
			if (out[i * 32 + j] != x[(r0 + 2 * i) * 64 + c0 + j]) {
				snprintf(why, n, "element strides: out[%d][%d] "
					 "= %g, expected X[%d][%d] = %g", i, j,
					 out[i * 32 + j], r0 + 2 * i, c0 + j,
					 x[(r0 + 2 * i) * 64 + c0 + j]);
				break;
			}
done:
	bufs_free(g, &b);
}

/* A region of X (100 x 40): rows 16..55, columns 8..39.  The box at
 * (r0, c0) = (20, 8) of the region runs past its last row (39) and
 * column (31), where X still has data: zero there shows the map covers
 * the region, not the tensor.
 *
 * c0 = 8 keeps the box's first column 16-byte aligned (32 bytes in), as
 * in every TMA test that passed on the H200.  With c0 = 10 (40 bytes) this
 * load trapped there (CUDA_ERROR_ILLEGAL_INSTRUCTION), and so did 14
 * caller-encoded maps of the same box at c0 = 10: starts 16-, 32-, 64-,
 * 128- and 256-byte aligned (one at the tensor's base), bit 85 kept or
 * cleared, L2 promotion none or 128B - the region's start is not the
 * cause.  All were 32 columns wide with a 160-byte row stride; whether
 * the misaligned first column or that padding trapped, this c0 = 8 case
 * (not yet run on a GPU) tells apart. */
static void
check_region(GpuRun *g, Kern *k, char *why, size_t n)
{
	enum { M = 100, K = 40 };
	static float x[M * K], out[32 * 32];
	uint64_t s = 0x5eedull;
	for (int i = 0; i < M * K; i++)
		x[i] = rnd_float(&s);
	int r0 = 20, c0 = 8;
	Bufs b = {0};
	int64_t sx[2] = {M, K}, so[2] = {32, 32};
	ptrt_devptr dx = dev_from(g, &b, x, sizeof(x), why, n);
	ptrt_devptr dout = dev_from(g, &b, NULL, sizeof(out), why, n);
	ptrt_arg args[] = {
		ptrt_arg_tensor(dx, PTRT_FLOAT32, 2, sx, NULL),
		ptrt_arg_tensor(dout, PTRT_FLOAT32, 2, so, NULL),
		ptrt_arg_i32(r0), ptrt_arg_i32(c0),
	};
	if (why[0] || run(g, k, "region", args, 4, why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, out, dout, sizeof(out)),
		      "copy back", why, n))
		goto done;
	for (int i = 0; i < 32; i++)
		for (int j = 0; j < 32; j++) {
			bool in = r0 + i < 40 && c0 + j < 32;
			float want = in ? x[(16 + r0 + i) * K + 8 + c0 + j] : 0;
			if (out[i * 32 + j] != want) {
				snprintf(why, n, "region: out[%d][%d] = %g, "
					 "expected %g (%s the region)", i, j,
					 out[i * 32 + j], want,
					 in ? "inside" : "outside");
				goto done;
			}
		}
done:
	bufs_free(g, &b);
}

static void
test_oob_estride(GpuRun *g, char *why, size_t n)
{
	Kern k;
	if (compile_load(g, "tests/gpu/kernels/tma_modes.py", &k, why, n)) {
		check_oob(g, &k, false, why, n);
		if (!why[0])
			check_oob(g, &k, true, why, n);
		if (!why[0])
			check_estride(g, &k, why, n);
	}
	kern_free(&k);
}

/* Prefixes why (when set) with the map that was being tested, so that a
 * trap reads as that map's failure. */
static void
name_map(const char *what, char *why, size_t n)
{
	char tmp[1024];
	if (!why[0])
		return;
	snprintf(tmp, sizeof(tmp), "%s: %s", what, why);
	snprintf(why, n, "%s", tmp);
}

static void
test_region(GpuRun *g, char *why, size_t n)
{
	Kern k;
	if (compile_load(g, "tests/gpu/kernels/tma_modes.py", &k, why, n))
		check_region(g, &k, why, n);
	kern_free(&k);
	name_map("map of the region X[16:56, 8:40] (runtime-encoded)", why, n);
}

/* ---- interleave 16B through a map the test encodes ---- */

typedef int (*EncodeTiled)(void *map, int dtype, unsigned rank, void *addr,
			   const uint64_t *dims, const uint64_t *strides,
			   const uint32_t *box, const uint32_t *estrides,
			   int interleave, int swizzle, int l2, int oob);

/* One rank-3 interleaved map over A, innermost first as the driver takes
 * it, and the kernel's coords (outermost first) for slice c0, pixels
 * w0.. of image n0. */
typedef struct IlvMap {
	const char *what;
	uint64_t offset; /* bytes from A */
	uint64_t dims[3], strides[2];
	uint32_t box[3];
	int32_t coords[3];
} IlvMap;

enum { IN0 = 1, IC0 = 2, IW0 = 16, ISLICES = 4, IW = 64 };

/* A map independent of the runtime's encoder: the test calls the driver,
 * UINT16, 16B interleave, no swizzle, L2 128B, zero fill, and applies the
 * bit-85 workaround of ptx_facts.md §8 (drivers up to 13.1, A is under
 * 128 KiB). */
static int
encode_ilv(GpuRun *g, ptrt_devptr a, const IlvMap *m, uint64_t map[16],
	   char *why, size_t n)
{
	EncodeTiled enc = NULL;
	void *cu = dlopen("libcuda.so.1", RTLD_NOW);
	if (cu)
		*(void **)&enc = dlsym(cu, "cuTensorMapEncodeTiled");
	const uint32_t es[3] = {1, 1, 1};
	int rc = enc ? enc(map, 1, 3, (void *)(uintptr_t)(a + m->offset),
			   m->dims, m->strides, m->box, es, 1, 0, 2, 0)
		     : -1;
	if (cu)
		dlclose(cu);
	if (rc != 0) {
		snprintf(why, n, "cuTensorMapEncodeTiled: %d", rc);
		return -1;
	}
	int ver = 0, sm = 0;
	const char *name = "";
	ptrt_device_info(g->rt, &ver, &sm, &name);
	if (ver <= 13010)
		map[1] &= ~((uint64_t)1 << 21);
	return 0;
}

/* A = (N, C/8, W, 8) = (2, 4, 64, 8) uint16, random (the same data for
 * every interleave case). */
static void
ilv_fill(uint16_t a[2 * ISLICES * IW * 8])
{
	uint64_t s = 0xc0ffeeull;
	for (int i = 0; i < 2 * ISLICES * IW * 8; i++)
		a[i] = (uint16_t)rnd(&s);
}

/* The expected image, read from A by the documented NC/8WC8 layout (the
 * driver docs' NC/8HWC8, H = 1: channel c of pixel w of image n at
 * A[n][c / 8][w][c % 8]), not from any map: image (w, ci) is channel
 * 8 IC0 + ci of pixel IW0 + w of image IN0. */
static void
ilv_compare(const uint16_t *a, const uint16_t out[8 * 8], char *why,
	    size_t n)
{
	for (int w = 0; w < 8; w++)
		for (int ci = 0; ci < 8; ci++) {
			int c = 8 * IC0 + ci, px = IW0 + w;
			uint16_t want =
				a[((IN0 * ISLICES + c / 8) * IW + px) * 8 + c % 8];
			if (out[w * 8 + ci] != want) {
				snprintf(why, n, "image (%d, %d) = 0x%04x, "
					 "expected channel %d of pixel %d of "
					 "image %d = 0x%04x", w, ci,
					 out[w * 8 + ci], c, px, IN0, want);
				return;
			}
		}
}

static void
check_ilv(GpuRun *g, Kern *k, const IlvMap *m, char *why, size_t n)
{
	static uint16_t a[2 * ISLICES * IW * 8], out[8 * 8];
	_Alignas(64) uint64_t map[16];
	ilv_fill(a);
	Bufs b = {0};
	int64_t so[2] = {8, 8};
	ptrt_devptr da = dev_from(g, &b, a, sizeof(a), why, n);
	ptrt_devptr dout = dev_from(g, &b, NULL, sizeof(out), why, n);
	if (why[0] || encode_ilv(g, da, m, map, why, n))
		goto done;
	ptrt_arg args[] = {
		ptrt_arg_tensormap(map),
		ptrt_arg_tensor(dout, PTRT_UINT16, 2, so, NULL),
		ptrt_arg_i32(m->coords[0]), ptrt_arg_i32(m->coords[1]),
		ptrt_arg_i32(m->coords[2]),
	};
	if (run(g, k, "interleave16", args, 5, why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, out, dout, sizeof(out)),
		      "copy back", why, n))
		goto done;
	ilv_compare(a, out, why, n);
done:
	bufs_free(g, &b);
	name_map(m->what, why, n);
}

/* Image n0's map: dim 0 the 8 channels of one slice (elements), dim 1 the
 * pixels (stride one 16-byte slice), dim 2 the slices (IW slices apart);
 * box one slice of 8 pixels. */
static const IlvMap ilv_channels_first = {
	"interleave 16B map (dims 8, 64, 4; strides 16, 1024; box 8, 8, 1)",
	IN0 * ISLICES * IW * 16, {8, IW, ISLICES}, {16, IW * 16}, {8, 8, 1},
	{IC0, IW0, 0},
};

static void
test_interleave(GpuRun *g, char *why, size_t n)
{
	Kern k;
	if (compile_load(g, "tests/gpu/kernels/tma_interleave.py", &k, why,
			 n))
		check_ilv(g, &k, &ilv_channels_first, why, n);
	kern_free(&k);
}

/* ---- interleave 16B through the map the runtime builds ---- */

/* tma_modes.py's interleave16 takes A as a T.Tensor (N, C_slices, W, Ci):
 * the runtime encodes the rank-3 map itself (the reference's operand
 * model, the Ci slice its unit); box (1, 1, 8) at (IN0, IC0, IW0). */
static void
check_interleave(GpuRun *g, Kern *k, char *why, size_t n)
{
	static uint16_t a[2 * ISLICES * IW * 8], out[8 * 8];
	ilv_fill(a);
	Bufs b = {0};
	int64_t sa[4] = {2, ISLICES, IW, 8}, so[2] = {8, 8};
	ptrt_devptr da = dev_from(g, &b, a, sizeof(a), why, n);
	ptrt_devptr dout = dev_from(g, &b, NULL, sizeof(out), why, n);
	ptrt_arg args[] = {
		ptrt_arg_tensor(da, PTRT_UINT16, 4, sa, NULL),
		ptrt_arg_tensor(dout, PTRT_UINT16, 2, so, NULL),
		ptrt_arg_i32(IN0), ptrt_arg_i32(IC0), ptrt_arg_i32(IW0),
	};
	if (why[0] || run(g, k, "interleave16", args, 5, why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, out, dout, sizeof(out)),
		      "copy back", why, n))
		goto done;
	ilv_compare(a, out, why, n);
done:
	bufs_free(g, &b);
}

static void
test_interleave_runtime(GpuRun *g, char *why, size_t n)
{
	Kern k;
	if (compile_load(g, "tests/gpu/kernels/tma_modes.py", &k, why, n))
		check_interleave(g, &k, why, n);
	kern_free(&k);
	name_map("interleave 16B map of A (2, 4, 64, 8) (runtime-encoded)",
		 why, n);
}

/* ---- the examples ---- */

static void
test_load_consumer(GpuRun *g, char *why, size_t n)
{
	enum { M = 256 };
	static uint16_t a[M * 64], bo[M * 64], raw[M * 64];
	Kern k;
	Bufs b = {0};
	if (!compile_load(g, "examples/tma_load_swizzle.py", &k, why, n))
		goto done;
	uint64_t s = 77;
	for (int i = 0; i < M * 64; i++)
		a[i] = rnd_half(&s);
	int64_t sh[2] = {M, 64};
	ptrt_devptr da = dev_from(g, &b, a, sizeof(a), why, n);
	ptrt_devptr db = dev_from(g, &b, NULL, sizeof(bo), why, n);
	ptrt_devptr dr = dev_from(g, &b, NULL, sizeof(raw), why, n);
	ptrt_arg args[] = {
		ptrt_arg_tensor(da, PTRT_FLOAT16, 2, sh, NULL),
		ptrt_arg_tensor(db, PTRT_FLOAT16, 2, sh, NULL),
		ptrt_arg_tensor(dr, PTRT_FLOAT16, 2, sh, NULL),
	};
	if (why[0] || run(g, &k, "tma_load_swizzle", args, 3, why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, bo, db, sizeof(bo)), "copy",
		      why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, raw, dr, sizeof(raw)), "copy",
		      why, n))
		goto done;
	for (int t = 0; t < M / 64 && !why[0]; t++)
		for (int p = 0; p < 4096; p++) {
			unsigned ab = 2u * (unsigned)p;
			unsigned o = ab ^ (((ab >> 7) & 7u) << 4);
			int r = (int)(o / 128), c = (int)(o % 128) / 2;
			int gi = (64 * t + r) * 64 + c;
			if (raw[64 * 64 * t + p] != a[gi] ||
			    bo[64 * 64 * t + p] != a[64 * 64 * t + p]) {
				snprintf(why, n, "tile %d element %d: raw 0x%04x "
					 "(want 0x%04x), B 0x%04x (want 0x%04x)",
					 t, p, raw[64 * 64 * t + p], a[gi],
					 bo[64 * 64 * t + p],
					 a[64 * 64 * t + p]);
				break;
			}
		}
done:
	bufs_free(g, &b);
	kern_free(&k);
}

static void
test_store_reduce(GpuRun *g, char *why, size_t n)
{
	enum { M = 128 };
	static float c[M * 64], x[M * 64], d0[M * 64], d[M * 64];
	Kern ks, kr;
	Bufs b = {0};
	bool ok = compile_load(g, "examples/tma_store.py", &ks, why, n) &&
		  compile_load(g, "examples/tma_reduce_add.py", &kr, why, n);
	if (!ok)
		goto done;
	uint64_t s = 4242;
	for (int i = 0; i < M * 64; i++) {
		x[i] = rnd_float(&s);
		d0[i] = rnd_float(&s);
	}
	int64_t sh[2] = {M, 64};
	ptrt_devptr dc = dev_from(g, &b, NULL, sizeof(c), why, n);
	ptrt_devptr dx = dev_from(g, &b, x, sizeof(x), why, n);
	ptrt_devptr dd = dev_from(g, &b, d0, sizeof(d0), why, n);
	ptrt_arg sa[] = {ptrt_arg_tensor(dc, PTRT_FLOAT32, 2, sh, NULL)};
	ptrt_arg ra[] = {ptrt_arg_tensor(dx, PTRT_FLOAT32, 2, sh, NULL),
			 ptrt_arg_tensor(dd, PTRT_FLOAT32, 2, sh, NULL)};
	if (why[0] || run(g, &ks, "tma_store", sa, 1, why, n) ||
	    run(g, &kr, "tma_reduce_add", ra, 2, why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, c, dc, sizeof(c)), "copy",
		      why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, d, dd, sizeof(d)), "copy",
		      why, n))
		goto done;
	for (int i = 0; i < M * 64; i++) {
		int row = i / 64, col = i % 64;
		float want = (float)((row / 32) * 1000 + (row % 32) * 64 + col);
		float sum = d0[i] + x[i];
		if (c[i] != want) {
			snprintf(why, n, "store: C[%d][%d] = %g, expected %g",
				 row, col, c[i], want);
			break;
		}
		if (d[i] != sum) {
			snprintf(why, n, "add-reduction: D[%d][%d] = %g, "
				 "expected %g + %g = %g", row, col, d[i], d0[i],
				 x[i], sum);
			break;
		}
	}
done:
	bufs_free(g, &b);
	kern_free(&ks);
	kern_free(&kr);
}

static void
test_coord_steps(GpuRun *g, char *why, size_t n)
{
	enum { P = 8 };
	static float x[P * 64 * 32], y[P * 64 * 32];
	Kern k;
	Bufs b = {0};
	if (!compile_load(g, "examples/tma_load_3d_steps.py", &k, why, n))
		goto done;
	uint64_t s = 99;
	for (int i = 0; i < P * 64 * 32; i++)
		x[i] = rnd_float(&s);
	int64_t sh[3] = {P, 64, 32};
	ptrt_devptr dx = dev_from(g, &b, x, sizeof(x), why, n);
	ptrt_devptr dy = dev_from(g, &b, NULL, sizeof(y), why, n);
	ptrt_arg args[] = {ptrt_arg_tensor(dx, PTRT_FLOAT32, 3, sh, NULL),
			   ptrt_arg_tensor(dy, PTRT_FLOAT32, 3, sh, NULL)};
	if (why[0] || run(g, &k, "tma_load_3d_steps", args, 2, why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, y, dy, sizeof(y)), "copy",
		      why, n))
		goto done;
	for (int i = 0; i < P * 64 * 32; i++)
		if (y[i] != x[i]) {
			snprintf(why, n, "Y[%d][%d][%d] = %g, expected %g",
				 i / 2048, i / 32 % 64, i % 32, y[i], x[i]);
			break;
		}
done:
	bufs_free(g, &b);
	kern_free(&k);
}

static void
test_multicast(GpuRun *g, char *why, size_t n)
{
	enum { M = 128 }; /* 4 clusters of 2 CTAs */
	static float a[M * 64], out[2 * M * 64];
	Kern k;
	Bufs b = {0};
	if (!compile_load(g, "examples/tma_multicast.py", &k, why, n))
		goto done;
	uint64_t s = 31337;
	for (int i = 0; i < M * 64; i++)
		a[i] = rnd_float(&s);
	int64_t sa[2] = {M, 64}, so[2] = {2 * M, 64};
	ptrt_devptr da = dev_from(g, &b, a, sizeof(a), why, n);
	ptrt_devptr dout = dev_from(g, &b, NULL, sizeof(out), why, n);
	ptrt_arg args[] = {ptrt_arg_tensor(da, PTRT_FLOAT32, 2, sa, NULL),
			   ptrt_arg_tensor(dout, PTRT_FLOAT32, 2, so, NULL)};
	if (why[0] || run(g, &k, "tma_multicast", args, 2, why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, out, dout, sizeof(out)), "copy",
		      why, n))
		goto done;
	/* rows 32 (2 c + rank) + r of out hold A[32 c + r] */
	for (int i = 0; i < 2 * M * 64; i++) {
		int row = i / 64, col = i % 64;
		int c = row / 64, r = row % 32;
		float want = a[(32 * c + r) * 64 + col];
		if (out[i] != want) {
			snprintf(why, n, "cluster %d CTA %d row %d col %d: %g, "
				 "expected %g", c, row / 32 % 2, r, col, out[i],
				 want);
			break;
		}
	}
done:
	bufs_free(g, &b);
	kern_free(&k);
}

int
main(void)
{
	int isolated_failed =
		gpu_case_isolated("tma", "tma/region_map", test_region) +
		gpu_case_isolated("tma", "tma/interleave16_caller_map",
				  test_interleave) +
		gpu_case_isolated("tma", "tma/interleave16",
				  test_interleave_runtime);
	GpuRun g;
	gpu_open(&g, "tma");
	g.failed += isolated_failed;
	GPU_CASE(&g, "tma/swizzle_modes", test_swizzle);
	GPU_CASE(&g, "tma/oob_fill_element_strides", test_oob_estride);
	GPU_CASE(&g, "tma/load_swizzle_consumer", test_load_consumer);
	GPU_CASE(&g, "tma/store_and_add_reduce", test_store_reduce);
	GPU_CASE(&g, "tma/coord_steps_3d", test_coord_steps);
	GPU_CASE(&g, "tma/multicast_2cta", test_multicast);
	return gpu_finish(&g);
}
