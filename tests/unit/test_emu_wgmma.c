/*
 * test_emu_wgmma.c - wgmma.mma_async in the emulator against products
 * computed here.  One kernel template (128 threads = one warpgroup):
 * copy a 16 KiB shared-memory image from global memory, load each
 * thread's D (and A) registers from global memory, fence, one wgmma,
 * commit, wait_group 0, store D.  The host builds the images from the
 * ISA's canonical-layout table (§9.7.15.5.1.2, written as shape:stride
 * modes in bytes and evaluated mixed-radix, then Swizzle<B,4,3> on the
 * byte offset), spreads the register fragments by CuTe-style
 * thread/value strides of the ISA's fragment figures, and computes every
 * D element as an exact sum.  Values are chosen so every sum is exact in
 * the destination format.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "ptxtile.h"
#include "ptxtile_emu.h"

enum { F_F16, F_BF16, F_TF32, F_E4M3, F_E5M2, F_S8, F_U8, F_F32, F_S32 };

typedef struct Operand {
	bool mn_major;
	unsigned swz;      /* 0, 32, 64, 128 */
	uint32_t lbo, sbo; /* bytes */
} Operand;

typedef struct Case {
	const char *insn;  /* mnemonic */
	const char *tail;  /* immediates after scale-d */
	int af, bf, df;
	unsigned n, k;
	bool a_regs, scale_d;
	int sa, sb;
	bool satf;
	Operand a, b;
} Case;

static unsigned
esize(int f)
{
	return f <= F_BF16 ? 2 : f == F_TF32 || f >= F_F32 ? 4 : 1;
}

/* The decoders, from the format definitions. */
static double
dec_float(uint32_t v, int ebits, int mbits)
{
	uint32_t e = (v >> mbits) & ((1u << ebits) - 1);
	uint32_t m = v & ((1u << mbits) - 1);
	int bias = (1 << (ebits - 1)) - 1;
	double x = e ? ldexp(1.0 + ldexp(m, -mbits), (int)e - bias)
		     : ldexp(ldexp(m, -mbits), 1 - bias);
	return (v >> (ebits + mbits)) & 1 ? -x : x;
}

static double
value(int f, uint32_t v)
{
	switch (f) {
	case F_F16: return dec_float(v, 5, 10);
	case F_BF16: return dec_float(v, 8, 7);
	case F_TF32: return dec_float(v >> 13, 8, 10);
	case F_E4M3: return dec_float(v, 4, 3);
	case F_E5M2: return dec_float(v, 5, 2);
	case F_S8: return (int8_t)v;
	default: return (uint8_t)v;
	}
}

/* x rounded to f16, nearest-even (x within the f16 range) */
static uint32_t
to_f16(double x)
{
	uint32_t sign = signbit(x) ? 0x8000 : 0;
	x = fabs(x);
	if (x == 0)
		return sign;
	int e = ilogb(x);
	if (e < -14)
		return sign | (uint32_t)nearbyint(ldexp(x, 24));
	uint32_t q = (uint32_t)nearbyint(ldexp(x, 10 - e));
	if (q == 2048) {
		q = 1024;
		e++;
	}
	return sign | (uint32_t)(e + 15) << 10 | (q - 1024);
}

static uint32_t
rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* A random element whose products and sums stay exact in f32 (f16 D is
 * rounded once, as here): 16-bit floats
 * multiples of 1/8 in [-2, 2); tf32 the same with random low 13 bits
 * (ignored by the format); fp8 any finite code with 1/64 <= |x| <= 16
 * or zero; integers any byte. */
static uint32_t
gen(int f, uint32_t *s)
{
	for (;;) {
		uint32_t r = rnd(s);
		if (f == F_S8 || f == F_U8)
			return r & 0xff;
		if (f == F_E4M3 || f == F_E5M2) {
			uint32_t b = r & 0xff;
			double x = fabs(value(f, b));
			bool special = f == F_E4M3 ? (b & 0x7f) == 0x7f
						    : ((b >> 2) & 31) == 31;
			if (!special && (x == 0 || (x >= 1.0 / 64 && x <= 16)))
				return b;
			continue;
		}
		float x = (float)((int)(r % 32) - 16) / 8.0f;
		uint32_t u;
		memcpy(&u, &x, 4);
		if (f == F_TF32)
			return u | (rnd(s) & 0x1fff);
		if (f == F_BF16)
			return u >> 16;
		return to_f16(x);
	}
}

/* Byte offset of element (mn, k): the ISA's canonical layout table as
 * (size, stride-in-bytes) modes, T = 16 / element bytes, W = swizzle
 * width, Wn = W / 16:
 *   K-major  none ((8,m),(T,2)):((16,SBO),(e,LBO))
 *            W    ((8,m),(T,2)):((W,SBO),(e,16))
 *   MN-major none ((T,1,m),(8,k)):((e,16,SBO),(16,LBO))
 *            W    ((T,Wn,m),(8,k)):((e,16,LBO),(W,SBO))
 * then Swizzle<log2 Wn,4,3>. */
static uint32_t
canon(const Operand *o, unsigned e, uint32_t mn, uint32_t k)
{
	uint32_t t = 16 / e, w = o->swz, wn = w ? w / 16 : 1;
	uint32_t ms[3][2], ks[2][2];
	unsigned nm;
	if (!o->mn_major) {
		uint32_t m0[3][2] = {{8, w ? w : 16}, {1u << 30, o->sbo}, {1, 0}};
		uint32_t k0[2][2] = {{t, e}, {1u << 30, w ? 16 : o->lbo}};
		memcpy(ms, m0, sizeof(ms));
		memcpy(ks, k0, sizeof(ks));
		nm = 2;
	} else {
		uint32_t m0[3][2] = {{t, e}, {wn, 16},
				     {1u << 30, w ? o->lbo : o->sbo}};
		uint32_t k0[2][2] = {{8, w ? w : 16},
				     {1u << 30, w ? o->sbo : o->lbo}};
		memcpy(ms, m0, sizeof(ms));
		memcpy(ks, k0, sizeof(ks));
		nm = 3;
	}
	uint32_t off = 0;
	for (unsigned i = 0; i < nm; i++) {
		off += (mn % ms[i][0]) * ms[i][1];
		mn /= ms[i][0];
	}
	for (unsigned i = 0; i < 2; i++) {
		off += (k % ks[i][0]) * ks[i][1];
		k /= ks[i][0];
	}
	return off ^ (((off >> 7) & (wn - 1)) << 4);
}

/* Fragment coordinates of value v of warpgroup thread tid, as CuTe-style
 * ((4,8,4),(values)):((thread strides),(value strides)) over a
 * column-major 64 x cols matrix (index m + 64 col). */
static void
frag(const uint32_t *tstr, const uint32_t *vsz, const uint32_t *vstr,
     unsigned nv, uint32_t tid, uint32_t v, uint32_t *m, uint32_t *col)
{
	uint32_t idx = (tid % 4) * tstr[0] + ((tid / 4) % 8) * tstr[1] +
		       (tid / 32) * tstr[2];
	for (unsigned i = 0; i < nv; i++) {
		idx += (v % vsz[i]) * vstr[i];
		v /= vsz[i];
	}
	*m = idx % 64;
	*col = idx / 64;
}

static void
d_frag(uint32_t tid, uint32_t v, uint32_t *m, uint32_t *n)
{
	static const uint32_t ts[] = {128, 1, 16}, vz[] = {2, 2, 64},
			      vs[] = {64, 8, 512};
	frag(ts, vz, vs, 3, tid, v, m, n);
}

static void
a_frag(int f, uint32_t tid, uint32_t v, uint32_t *m, uint32_t *k)
{
	static const uint32_t t16[] = {128, 1, 16}, z16[] = {2, 2, 2},
			      s16[] = {64, 8, 512};
	static const uint32_t t8[] = {256, 1, 16}, z8[] = {4, 2, 2},
			      s8[] = {64, 8, 1024};
	static const uint32_t t32[] = {64, 1, 16}, z32[] = {2, 2},
			      s32[] = {8, 256};
	if (f <= F_BF16)
		frag(t16, z16, s16, 3, tid, v, m, k);
	else if (f == F_TF32)
		frag(t32, z32, s32, 2, tid, v, m, k);
	else
		frag(t8, z8, s8, 3, tid, v, m, k);
}

static const char head[] =
	".version 8.4\n.target sm_90a\n.address_size 64\n"
	".visible .entry k(.param .u64 img, .param .u64 areg, .param .u64 din,\n"
	"  .param .u64 dout, .param .u64 da, .param .u64 db, .param .u32 sc)\n"
	".reqntid 128, 1, 1\n{\n"
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<32>;\n"
	"\t.reg .f32 %f<130>;\n\t.reg .b32 %d<130>;\n"
	"\t.shared .align 1024 .b8 sm[16384];\n"
	"\tld.param.u64 %rd1, [img];\n\tld.param.u64 %rd2, [areg];\n"
	"\tld.param.u64 %rd3, [din];\n\tld.param.u64 %rd4, [dout];\n"
	"\tld.param.u64 %rd5, [da];\n\tld.param.u64 %rd6, [db];\n"
	"\tld.param.u32 %r7, [sc];\n\tmov.u32 %r1, %tid.x;\n"
	"\tmov.u32 %r3, %r1;\n"
	"$L_c:\n\tmul.wide.u32 %rd8, %r3, 16;\n\tadd.s64 %rd9, %rd1, %rd8;\n"
	"\tld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd9];\n"
	"\tmov.u32 %r4, sm;\n\tshl.b32 %r5, %r3, 4;\n\tadd.s32 %r4, %r4, %r5;\n"
	"\tst.shared.v4.u32 [%r4], {%r10, %r11, %r12, %r13};\n"
	"\tadd.s32 %r3, %r3, 128;\n\tsetp.lt.u32 %p1, %r3, 1024;\n"
	"\t@%p1 bra $L_c;\n\tfence.proxy.async.shared::cta;\n\tbar.sync 0;\n"
	"\tmov.u32 %r6, sm;\n\tshr.u32 %r6, %r6, 4;\n\tcvt.u64.u32 %rd10, %r6;\n"
	"\tadd.s64 %rd11, %rd5, %rd10;\n\tadd.s64 %rd12, %rd6, %rd10;\n"
	"\tmul.wide.u32 %rd15, %r1, 16;\n\tadd.s64 %rd16, %rd2, %rd15;\n"
	"\tld.global.v4.b32 {%r20, %r21, %r22, %r23}, [%rd16];\n"
	"\tsetp.ne.u32 %p2, %r7, 0;\n";

/* The kernel text for case c (nd D registers %fN or %dN). */
static void
kernel_text(char *buf, size_t cap, const Case *c, unsigned nd,
	    const char *before, const char *after)
{
	char rn = c->df == F_F32 ? 'f' : 'd';
	size_t n = (size_t)snprintf(buf, cap,
		"%s\tmul.wide.u32 %%rd13, %%r1, %u;\n"
		"\tadd.s64 %%rd14, %%rd3, %%rd13;\n\tadd.s64 %%rd17, %%rd4, %%rd13;\n",
		head, nd * 4);
	for (unsigned j = 0; j < nd; j++)
		n += (size_t)snprintf(buf + n, cap - n,
				      "\tld.global.b32 %%%c%u, [%%rd14+%u];\n",
				      rn, j, 4 * j);
	n += (size_t)snprintf(buf + n, cap - n,
			      "%s\twgmma.fence.sync.aligned;\n\t%s {", before,
			      c->insn);
	for (unsigned j = 0; j < nd; j++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%%%c%u", j ? ", " : "",
				      rn, j);
	n += (size_t)snprintf(buf + n, cap - n, "}, %s, %%rd12, %%p2%s;\n%s"
			      "\twgmma.commit_group.sync.aligned;\n"
			      "\twgmma.wait_group.sync.aligned 0;\n",
			      c->a_regs ? "{%r20, %r21, %r22, %r23}" : "%rd11",
			      c->tail, after);
	for (unsigned j = 0; j < nd; j++)
		n += (size_t)snprintf(buf + n, cap - n,
				      "\tst.global.b32 [%%rd17+%u], %%%c%u;\n",
				      4 * j, rn, j);
	snprintf(buf + n, cap - n, "\tret;\n}\n");
}

static uint64_t
desc(const Operand *o, uint32_t start)
{
	static const uint64_t mode[] = {[0] = 0, [1] = 3, [2] = 2, [4] = 1};
	return (uint64_t)(start >> 4) | (uint64_t)(o->lbo >> 4) << 16 |
	       (uint64_t)(o->sbo >> 4) << 32 | mode[o->swz / 32] << 62;
}

/* Runs case c (with before/after injected around the wgmma); returns
 * the status, and checks D when it is PT_OK. */
static int
run_case_with(TestCtx *t, const Case *c, unsigned flags, const char *before,
	      const char *after, uint64_t desc_or)
{
	enum { BOFF = 8192 };
	unsigned ea = esize(c->af), eb = esize(c->bf);
	unsigned nd = c->df == F_F16 ? c->n / 4 : c->n / 2;
	uint32_t seed = 12345u + c->n * 7 + c->k;
	static uint8_t img[16384];
	static uint32_t areg[128][4], din[128 * 128], want[128 * 128];
	static uint32_t av[64][32], bv[256][32];
	memset(img, 0, sizeof(img));
	for (uint32_t m = 0; m < 64; m++)
		for (uint32_t k = 0; k < c->k; k++) {
			av[m][k] = gen(c->af, &seed);
			if (!c->a_regs)
				memcpy(img + canon(&c->a, ea, m, k), &av[m][k], ea);
		}
	for (uint32_t j = 0; j < c->n; j++)
		for (uint32_t k = 0; k < c->k; k++) {
			bv[j][k] = gen(c->bf, &seed);
			memcpy(img + BOFF + canon(&c->b, eb, j, k), &bv[j][k], eb);
		}
	if (c->a_regs) {
		unsigned per = 4 / ea;
		memset(areg, 0, sizeof(areg));
		for (uint32_t tid = 0; tid < 128; tid++)
			for (uint32_t v = 0; v < 4 * per; v++) {
				uint32_t m, k;
				a_frag(c->af, tid, v, &m, &k);
				areg[tid][v / per] |= av[m][k] << (8 * ea * (v % per));
			}
	}
	/* D in: f32 multiples of 1/8; f16 pairs of them; s32 near the
	 * limits for some (saturation / wrap) */
	for (uint32_t tid = 0; tid < 128; tid++)
		for (uint32_t v = 0; v < c->n / 2; v++) {
			uint32_t m, n, r = rnd(&seed);
			d_frag(tid, v, &m, &n);
			uint32_t *w = &din[tid * nd + (c->df == F_F16 ? v / 2 : v)];
			double s = 0;
			for (uint32_t k = 0; k < c->k; k++)
				s += value(c->af, av[m][k]) * value(c->bf, bv[n][k]);
			s *= c->sa * c->sb;
			if (c->df == F_S32) {
				int32_t d0 = (int32_t)(r % 2000) - 1000;
				if (r % 7 == 0)
					d0 = r % 2 ? INT32_MAX - 5 : INT32_MIN + 5;
				*w = (uint32_t)d0;
				int64_t x = (int64_t)s + (c->scale_d ? d0 : 0);
				if (c->satf)
					x = x > INT32_MAX ? INT32_MAX
					    : x < INT32_MIN ? INT32_MIN : x;
				want[tid * nd + v] = (uint32_t)x;
			} else if (c->df == F_F16) {
				/* d0 a multiple of 1/8 in [-2, 2): f16 bits */
				uint32_t h = gen(F_F16, &seed);
				*w |= h << (16 * (v % 2));
				double x = s + (c->scale_d ? value(F_F16, h) : 0);
				want[tid * nd + v / 2] |= to_f16(x) << (16 * (v % 2));
			} else {
				float d0 = (float)((int)(r % 64) - 32) / 8.0f;
				memcpy(w, &d0, 4);
				float x = (float)(s + (c->scale_d ? d0 : 0));
				memcpy(&want[tid * nd + v], &x, 4);
			}
		}
	ptem *e = ptem_new();
	static char ptx[16384];
	kernel_text(ptx, sizeof(ptx), c, nd, before, after);
	uint64_t gi = 0, ga = 0, gdi = 0, gdo = 0;
	int st = ptem_load(e, ptx, strlen(ptx));
	if (!st)
		st = ptem_alloc(e, sizeof(img), &gi);
	if (!st)
		st = ptem_alloc(e, sizeof(areg), &ga);
	if (!st)
		st = ptem_alloc(e, 128 * nd * 4, &gdi);
	if (!st)
		st = ptem_alloc(e, 128 * nd * 4, &gdo);
	if (!st) {
		memcpy(ptem_host(e, gi, sizeof(img)), img, sizeof(img));
		memcpy(ptem_host(e, ga, sizeof(areg)), areg, sizeof(areg));
		memcpy(ptem_host(e, gdi, 128 * nd * 4), din, 128 * nd * 4);
		uint64_t dda = c->a_regs ? 0 : desc(&c->a, 0);
		uint64_t ddb = desc(&c->b, BOFF) | desc_or;
		uint32_t sc = c->scale_d;
		ptem_arg args[] = {{&gi, 8}, {&ga, 8}, {&gdi, 8}, {&gdo, 8},
				   {&dda, 8}, {&ddb, 8}, {&sc, 4}};
		ptem_launch l = {{1, 1, 1}, {128, 1, 1}, {1, 1, 1}, 0, flags, 0};
		st = ptem_run(e, "k", &l, args, 7);
	}
	if (st) {
		if (!*before && !*after && !desc_or)
			test_fail(t, __FILE__, __LINE__, "%s: %s", c->insn,
				  ptem_errmsg(e));
	} else {
		const uint32_t *o = ptem_host(e, gdo, 128 * nd * 4);
		int bad = 0;
		for (unsigned i = 0; i < 128 * nd; i++)
			if (o[i] != want[i] && bad++ < 3)
				test_fail(t, __FILE__, __LINE__,
					  "%s: D word %u of thread %u is 0x%08x, "
					  "expected 0x%08x", c->insn, i % nd,
					  i / nd, o[i], want[i]);
		CHECK_INT(bad, 0);
	}
	memset(want, 0, sizeof(want));
	memset(din, 0, sizeof(din));
	ptem_free(e);
	return st;
}

static void
run_case(TestCtx *t, const Case *c, unsigned flags)
{
	run_case_with(t, c, flags, "", "", 0);
}

#define WG "wgmma.mma_async.sync.aligned."

static const Case cases[] = {
	/* bf16 -> f32, A and B K-major 128B (SBO 1024), accumulate */
	{WG "m64n64k16.f32.bf16.bf16", ", 1, 1, 0, 0", F_BF16, F_BF16, F_F32,
	 64, 16, false, true, 1, 1, false,
	 {false, 128, 16, 1024}, {false, 128, 16, 1024}},
	/* f16 -> f16, A in registers, B MN-major 64B (SBO 512 between 8-k
	 * groups), B negated */
	{WG "m64n32k16.f16.f16.f16", ", 1, -1, 1", F_F16, F_F16, F_F16,
	 32, 16, true, true, 1, -1, false,
	 {false, 0, 0, 0}, {true, 64, 2048, 512}},
	/* tf32, interleaved K-major (LBO 128 between the two 16-byte K
	 * halves, SBO 256 between 8-row groups), A negated, D not read */
	{WG "m64n16k8.f32.tf32.tf32", ", -1, 1", F_TF32, F_TF32, F_F32,
	 16, 8, false, false, -1, 1, false,
	 {false, 0, 128, 256}, {false, 0, 128, 256}},
	/* e4m3 x e5m2 -> f32, K-major 32B (SBO 256) */
	{WG "m64n32k32.f32.e4m3.e5m2", ", 1, 1", F_E4M3, F_E5M2, F_F32,
	 32, 32, false, true, 1, 1, false,
	 {false, 32, 16, 256}, {false, 32, 16, 256}},
	/* s8 x u8 -> s32 .satfinite, A in registers, B interleaved */
	{WG "m64n24k32.satfinite.s32.s8.u8", "", F_S8, F_U8, F_S32,
	 24, 32, true, true, 1, 1, true,
	 {false, 0, 0, 0}, {false, 0, 128, 256}},
	/* u8 x s8 -> s32 wrapping, K-major 64B (SBO 512) */
	{WG "m64n8k32.s32.u8.s8", "", F_U8, F_S8, F_S32,
	 8, 32, false, true, 1, 1, false,
	 {false, 64, 16, 512}, {false, 64, 16, 512}},
	/* bf16, A MN-major 128B (SBO 1024 between 8-k groups), B MN-major
	 * interleaved (SBO 128 between 8-column groups, LBO 256 between
	 * 8-k groups) */
	{WG "m64n16k16.f32.bf16.bf16", ", 1, 1, 1, 1", F_BF16, F_BF16, F_F32,
	 16, 16, false, true, 1, 1, false,
	 {true, 128, 8192, 1024}, {true, 0, 256, 128}},
	/* tf32 with A in registers (one element per register) */
	{WG "m64n8k8.f32.tf32.tf32", ", 1, 1", F_TF32, F_TF32, F_F32,
	 8, 8, true, true, 1, 1, false,
	 {false, 0, 0, 0}, {false, 32, 16, 256}},
	/* e5m2 x e4m3 -> f16, A in registers */
	{WG "m64n8k32.f16.e5m2.e4m3", ", 1, 1", F_E5M2, F_E4M3, F_F16,
	 8, 32, true, true, 1, 1, false,
	 {false, 0, 0, 0}, {false, 128, 16, 1024}},
};

TEST(emu_wgmma_forms)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		run_case(t, &cases[i], 0);
		run_case(t, &cases[i], PTEM_LATE_COMPLETION | PTEM_CHECK_RACES);
	}
}

TEST(emu_wgmma_errors)
{
	const Case *c = &cases[0];
	const unsigned late = PTEM_LATE_COMPLETION;
	/* a write to B's shared memory while the wgmma is pending: fine
	 * when it completes at issue (D still the product of the old
	 * values), EMU_ASYNC in late mode */
	static const char clobber[] =
		"\tmov.u32 %r8, sm;\n\tst.shared.u32 [%r8+8192], %r1;\n";
	CHECK_INT(run_case_with(t, c, 0, "", clobber, 0), PT_OK);
	CHECK_INT(run_case_with(t, c, late, "", clobber, 0), PT_E_EMU_ASYNC);
	/* a nonzero base offset is not modelled */
	CHECK_INT(run_case_with(t, c, 0, "", "", 1ull << 49),
		  PT_E_EMU_UNSUPPORTED);
	/* descriptors must agree across the warp */
	static const char skew[] = "\tcvt.u64.u32 %rd20, %r1;\n"
				   "\tadd.s64 %rd12, %rd12, %rd20;\n";
	CHECK_INT(run_case_with(t, c, 0, skew, "", 0), PT_E_EMU_COLLECTIVE);
	/* setmaxnreg: a multiple of 8 in [24, 256] */
	CHECK_INT(run_case_with(t, c, 0,
				"\tsetmaxnreg.dec.sync.aligned.u32 40;\n",
				"", 0), PT_OK);
	CHECK_INT(run_case_with(t, c, 0,
				"\tsetmaxnreg.inc.sync.aligned.u32 20;\n",
				"", 0), PT_E_EMU_UNSUPPORTED);
	CHECK_INT(run_case_with(t, c, 0,
				"\tsetmaxnreg.inc.sync.aligned.u32 244;\n",
				"", 0), PT_E_EMU_UNSUPPORTED);
	/* wait_group takes 0..7 */
	CHECK_INT(run_case_with(t, c, 0, "",
				"\twgmma.wait_group.sync.aligned 8;\n", 0),
		  PT_E_EMU_UNSUPPORTED);
	/* a wgmma with only half the warp */
	static const char half[] = "\tsetp.ge.u32 %p3, %r1, 16;\n"
				   "\t@%p3 ret;\n";
	CHECK_INT(run_case_with(t, c, 0, half, "", 0), PT_E_EMU_COLLECTIVE);
}
