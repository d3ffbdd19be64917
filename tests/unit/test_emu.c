/*
 * test_emu.c - the PTX emulator (src/emu): one-instruction kernels whose
 * expected values are worked out here from the PTX ISA's definitions (host
 * arithmetic, or constants derived in the comments), every emulator status
 * code, and whole scripts compiled by ptxtile and run end to end with
 * expected outputs computed on the host from what each script states.
 */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "ptxtile.h"
#include "ptxtile_emu.h"
#include "ptxtile_rt.h"
#include "base/base.h"
#include "emu/emu.h"
#include "rt/rt.h"
#include "emu/from_rt.h"
#include "emu/emu.h"

/* ---- one-instruction kernels ----
 * Inputs a, b, c arrive as 64-bit parameters and are spread to every
 * register width (%rdN, %rN, %rsN, %fN, %fdN, %pN for N = 1..3); the
 * instruction writes one of %rd4 %r4 %f4 %fd4 %rs4 %p4, all of which are
 * stored. */
enum { R64, R32, RF32, RF64, R16, RPRED };

static const char insn_head[] =
	".version 8.0\n.target sm_90a\n.address_size 64\n"
	".visible .entry k(.param .u64 out, .param .u64 a, .param .u64 b,\n"
	"  .param .u64 c)\n{\n"
	"\t.reg .pred %p<5>;\n\t.reg .b16 %rs<5>;\n\t.reg .b32 %r<5>;\n"
	"\t.reg .f32 %f<5>;\n\t.reg .b64 %rd<8>;\n\t.reg .f64 %fd<5>;\n"
	"\tld.param.u64 %rd5, [out];\n\tld.param.u64 %rd1, [a];\n"
	"\tld.param.u64 %rd2, [b];\n\tld.param.u64 %rd3, [c];\n"
	"\tcvt.u32.u64 %r1, %rd1;\n\tcvt.u32.u64 %r2, %rd2;\n"
	"\tcvt.u32.u64 %r3, %rd3;\n\tcvt.u16.u64 %rs1, %rd1;\n"
	"\tcvt.u16.u64 %rs2, %rd2;\n\tcvt.u16.u64 %rs3, %rd3;\n"
	"\tmov.b32 %f1, %r1;\n\tmov.b32 %f2, %r2;\n\tmov.b32 %f3, %r3;\n"
	"\tmov.b64 %fd1, %rd1;\n\tmov.b64 %fd2, %rd2;\n\tmov.b64 %fd3, %rd3;\n"
	"\tsetp.ne.u64 %p1, %rd1, 0;\n\tsetp.ne.u64 %p2, %rd2, 0;\n"
	"\tsetp.ne.u64 %p3, %rd3, 0;\n";
static const char insn_tail[] =
	"\tst.global.u64 [%rd5], %rd4;\n\tst.global.u32 [%rd5+8], %r4;\n"
	"\tst.global.f32 [%rd5+12], %f4;\n\tst.global.f64 [%rd5+16], %fd4;\n"
	"\tst.global.u16 [%rd5+24], %rs4;\n\tselp.u32 %r0, 1, 0, %p4;\n"
	"\tst.global.u32 [%rd5+28], %r0;\n\tret;\n}\n";

static uint64_t
run1(TestCtx *t, const char *text, uint64_t a, uint64_t b, uint64_t c,
     int slot)
{
	char ptx[4096];
	snprintf(ptx, sizeof(ptx), "%s\t%s\n%s", insn_head, text, insn_tail);
	ptem *e = ptem_new();
	uint64_t out = 0, v = 0;
	int st = ptem_load(e, ptx, strlen(ptx));
	if (st == PT_OK)
		st = ptem_alloc(e, 32, &out);
	ptem_arg args[] = {{&out, 8}, {&a, 8}, {&b, 8}, {&c, 8}};
	ptem_launch l = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 0, 0, 0};
	if (st == PT_OK)
		st = ptem_run(e, "k", &l, args, 4);
	if (st != PT_OK) {
		test_fail(t, __FILE__, __LINE__, "%s: %s", text, ptem_errmsg(e));
		ptem_free(e);
		return 0xdeadbeef;
	}
	const uint8_t *p = ptem_host(e, out, 32);
	static const int off[] = {0, 8, 12, 16, 24, 28}, size[] = {8, 4, 4, 8, 2, 4};
	for (int i = 0; i < size[slot]; i++)
		v |= (uint64_t)p[off[slot] + i] << (8 * i);
	ptem_free(e);
	return v;
}

static uint64_t
fbits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float
bitsf(uint64_t b)
{
	uint32_t u = (uint32_t)b;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint64_t
dbits(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

#define CHECK_HEX(a, b)                                                    \
	do {                                                               \
		unsigned long long a_ = (a), b_ = (b);                     \
		if (a_ != b_)                                              \
			test_fail(t, __FILE__, __LINE__,                   \
				  "%s == 0x%llx, expected 0x%llx", #a, a_, b_); \
	} while (0)

TEST(emu_integer_arithmetic)
{
	/* two's complement wrap, .sat clamps (ISA add/sub) */
	CHECK_HEX(run1(t, "add.s32 %r4, %r1, %r2;", 0x7fffffff, 1, 0, R32),
		  0x80000000u);
	CHECK_HEX(run1(t, "add.sat.s32 %r4, %r1, %r2;", 0x7fffffff, 1, 0, R32),
		  0x7fffffffu);
	CHECK_HEX(run1(t, "sub.u32 %r4, %r1, %r2;", 0, 1, 0, R32), 0xffffffffu);
	CHECK_HEX(run1(t, "add.s16 %rs4, %rs1, 100;", 0x7f00, 0, 0, R16),
		  0x7f64u);
	/* mul.lo/hi/wide: the low, high half of the double-width product */
	int64_t p = (int64_t)-123456789 * 987654;
	CHECK_HEX(run1(t, "mul.lo.s32 %r4, %r1, %r2;", (uint32_t)-123456789,
		       987654, 0, R32), (uint32_t)p);
	CHECK_HEX(run1(t, "mul.hi.s32 %r4, %r1, %r2;", (uint32_t)-123456789,
		       987654, 0, R32), (uint32_t)(p >> 32));
	CHECK_HEX(run1(t, "mul.wide.s32 %rd4, %r1, %r2;", (uint32_t)-123456789,
		       987654, 0, R64), (uint64_t)p);
	CHECK_HEX(run1(t, "mul.wide.u32 %rd4, %r1, %r2;", 0xffffffffu,
		       0xffffffffu, 0, R64), 0xfffffffe00000001ull);
	CHECK_HEX(run1(t, "mul.hi.u64 %rd4, %rd1, %rd2;", ~0ull, ~0ull, 0, R64),
		  0xfffffffffffffffeull);
	CHECK_HEX(run1(t, "mad.lo.s32 %r4, %r1, %r2, %r3;", 7, 6, 0xffffffff,
		       R32), 41);
	/* div truncates toward zero; rem takes the dividend's sign */
	CHECK_HEX(run1(t, "div.s32 %r4, %r1, %r2;", (uint32_t)-7, 2, 0, R32),
		  (uint32_t)-3);
	CHECK_HEX(run1(t, "rem.s32 %r4, %r1, %r2;", (uint32_t)-7, 2, 0, R32),
		  (uint32_t)-1);
	CHECK_HEX(run1(t, "div.u32 %r4, %r1, 3;", 0xffffffffu, 0, 0, R32),
		  0x55555555u);
	CHECK_HEX(run1(t, "div.s32 %r4, %r1, %r2;", 0x80000000u, 0xffffffffu,
		       0, R32), 0x80000000u);
	/* shift amounts past the width clamp to the width */
	CHECK_HEX(run1(t, "shl.b32 %r4, %r1, %r2;", 1, 33, 0, R32), 0);
	CHECK_HEX(run1(t, "shr.s32 %r4, %r1, %r2;", (uint32_t)-8, 40, 0, R32),
		  0xffffffffu);
	CHECK_HEX(run1(t, "shr.u32 %r4, %r1, %r2;", 0x80000000u, 31, 0, R32), 1);
	CHECK_HEX(run1(t, "shr.s64 %rd4, %rd1, 4;", (uint64_t)-256, 0, 0, R64),
		  (uint64_t)-16);
	CHECK_HEX(run1(t, "min.s64 %rd4, %rd1, %rd2;", (uint64_t)-5, 3, 0, R64),
		  (uint64_t)-5);
	CHECK_HEX(run1(t, "max.u32 %r4, %r1, %r2;", 0xfffffffbu, 3, 0, R32),
		  0xfffffffbu);
	CHECK_HEX(run1(t, "abs.s64 %rd4, %rd1;", (uint64_t)-9, 0, 0, R64), 9);
}

TEST(emu_bit_operations)
{
	CHECK_HEX(run1(t, "popc.b32 %r4, %r1;", 0xf0f00001u, 0, 0, R32), 9);
	CHECK_HEX(run1(t, "clz.b32 %r4, %r1;", 0x00010000u, 0, 0, R32), 15);
	CHECK_HEX(run1(t, "clz.b32 %r4, %r1;", 0, 0, 0, R32), 32);
	CHECK_HEX(run1(t, "brev.b32 %r4, %r1;", 0x00000001u, 0, 0, R32),
		  0x80000000u);
	/* bfe: len bits from pos; .s32 sign-extends from the field's top */
	CHECK_HEX(run1(t, "bfe.u32 %r4, %r1, 4, 8;", 0x12345678u, 0, 0, R32),
		  0x67);
	CHECK_HEX(run1(t, "bfe.s32 %r4, %r1, 4, 8;", 0x12345f80u, 0, 0, R32),
		  0xfffffff8u);
	CHECK_HEX(run1(t, "bfi.b32 %r4, %r1, %r2, 8, 8;", 0xab, 0x11223344u,
		       0, R32), 0x1122ab44u);
	/* prmt: selector nibbles pick bytes of {b, a} */
	CHECK_HEX(run1(t, "prmt.b32 %r4, %r1, %r2, 0x3210;", 0x44332211u,
		       0x88776655u, 0, R32), 0x44332211u);
	CHECK_HEX(run1(t, "prmt.b32 %r4, %r1, %r2, 0x4567;", 0x44332211u,
		       0x88776655u, 0, R32), 0x55667788u);
	CHECK_HEX(run1(t, "lop3.b32 %r4, %r1, %r2, %r3, 0x96;", 0xf0f0f0f0u,
		       0xcccccccc, 0xaaaaaaaau, R32),
		  0xf0f0f0f0u ^ 0xccccccccu ^ 0xaaaaaaaau);
	CHECK_HEX(run1(t, "not.b32 %r4, %r1;", 0x0f0f0f0fu, 0, 0, R32),
		  0xf0f0f0f0u);
	CHECK_HEX(run1(t, "and.pred %p4, %p1, %p2;", 1, 0, 0, RPRED), 0);
	CHECK_HEX(run1(t, "or.pred %p4, %p1, %p2;", 1, 0, 0, RPRED), 1);
	CHECK_HEX(run1(t, "xor.b16 %rs4, %rs1, %rs2;", 0xff00, 0x0ff0, 0, R16),
		  0xf0f0);
	/* pack and unpack: element 0 is the low half */
	CHECK_HEX(run1(t, "mov.b64 %rd4, {%r1, %r2};", 0x11111111u,
		       0x22222222u, 0, R64), 0x2222222211111111ull);
	CHECK_HEX(run1(t, "mov.b64 {%r0, %r4}, %rd1;", 0xaaaabbbbccccddddull,
		       0, 0, R32), 0xaaaabbbbu);
	CHECK_HEX(run1(t, "mov.b32 %r4, {%rs1, %rs2};", 0x1234, 0x5678, 0, R32),
		  0x56781234u);
}

TEST(emu_compare_select)
{
	CHECK_HEX(run1(t, "setp.lt.s32 %p4, %r1, %r2;", (uint32_t)-1, 1, 0,
		       RPRED), 1);
	CHECK_HEX(run1(t, "setp.lt.u32 %p4, %r1, %r2;", (uint32_t)-1, 1, 0,
		       RPRED), 0);
	CHECK_HEX(run1(t, "setp.hi.u32 %p4, %r1, %r2;", (uint32_t)-1, 1, 0,
		       RPRED), 1);
	/* ordered comparisons are false with a NaN, unordered ones true */
	CHECK_HEX(run1(t, "setp.lt.f32 %p4, %f1, %f2;", 0x7fc00000u,
		       fbits(1.0f), 0, RPRED), 0);
	CHECK_HEX(run1(t, "setp.ltu.f32 %p4, %f1, %f2;", 0x7fc00000u,
		       fbits(1.0f), 0, RPRED), 1);
	CHECK_HEX(run1(t, "setp.neu.f32 %p4, %f1, %f2;", 0x7fc00000u,
		       0x7fc00000u, 0, RPRED), 1);
	CHECK_HEX(run1(t, "setp.eq.and.s32 %p4, %r1, %r2, %p3;", 5, 5, 0,
		       RPRED), 0);
	CHECK_HEX(run1(t, "setp.eq.or.s32 %p4, %r1, %r2, %p3;", 5, 6, 1,
		       RPRED), 1);
	CHECK_HEX(run1(t, "selp.b32 %r4, %r1, %r2, %p3;", 11, 22, 1, R32), 11);
	CHECK_HEX(run1(t, "selp.b64 %rd4, %rd1, %rd2, %p3;", 11, 22, 0, R64),
		  22);
}

TEST(emu_float_arithmetic)
{
	/* one rounding per operation; the host FPU is IEEE */
	volatile float x = 1.1f, y = 2.3f, z = -0.7f;
	CHECK_HEX(run1(t, "add.f32 %f4, %f1, %f2;", fbits(x), fbits(y), 0, RF32),
		  fbits(x + y));
	CHECK_HEX(run1(t, "mul.rn.f32 %f4, %f1, %f2;", fbits(x), fbits(y), 0,
		       RF32), fbits(x * y));
	CHECK_HEX(run1(t, "fma.rn.f32 %f4, %f1, %f2, %f3;", fbits(x), fbits(y),
		       fbits(z), RF32), fbits(fmaf(x, y, z)));
	CHECK_HEX(run1(t, "div.rn.f32 %f4, %f1, %f2;", fbits(x), fbits(y), 0,
		       RF32), fbits(x / y));
	CHECK_HEX(run1(t, "sqrt.rn.f32 %f4, %f1;", fbits(2.0f), 0, 0, RF32),
		  fbits(sqrtf(2.0f)));
	CHECK_HEX(run1(t, "rcp.rn.f32 %f4, %f1;", fbits(3.0f), 0, 0, RF32),
		  fbits(1.0f / 3.0f));
	/* 1 + 2^-30: nearest and toward zero give 1, upward the next float */
	uint64_t one = fbits(1.0f), tiny = fbits(ldexpf(1, -30));
	CHECK_HEX(run1(t, "add.rn.f32 %f4, %f1, %f2;", one, tiny, 0, RF32), one);
	CHECK_HEX(run1(t, "add.rz.f32 %f4, %f1, %f2;", one, tiny, 0, RF32), one);
	CHECK_HEX(run1(t, "add.rp.f32 %f4, %f1, %f2;", one, tiny, 0, RF32),
		  one + 1);
	CHECK_HEX(run1(t, "sub.rm.f32 %f4, %f1, %f2;", one, tiny, 0, RF32),
		  fbits(nextafterf(1.0f, 0.0f)));
	/* the GPU's canonical NaN; .ftz flushes subnormal inputs */
	CHECK_HEX(run1(t, "add.f32 %f4, %f1, %f2;", fbits(INFINITY),
		       fbits(-INFINITY), 0, RF32), 0x7fffffffu);
	CHECK_HEX(run1(t, "add.ftz.f32 %f4, %f1, %f2;", 0x00000001u, 0, 0, RF32),
		  0);
	CHECK_HEX(run1(t, "add.f32 %f4, %f1, %f2;", 0x00000001u, 0, 0, RF32),
		  1);
	/* min/max: a NaN operand loses unless .NaN; -0 < +0 */
	CHECK_HEX(run1(t, "min.f32 %f4, %f1, %f2;", 0x7fc00000u, fbits(2.0f),
		       0, RF32), fbits(2.0f));
	CHECK_HEX(run1(t, "max.NaN.f32 %f4, %f1, %f2;", 0x7fc00000u,
		       fbits(2.0f), 0, RF32), 0x7fffffffu);
	CHECK_HEX(run1(t, "min.f32 %f4, %f1, %f2;", fbits(0.0f), fbits(-0.0f),
		       0, RF32), 0x80000000u);
	CHECK_HEX(run1(t, "neg.f32 %f4, %f1;", fbits(1.5f), 0, 0, RF32),
		  fbits(-1.5f));
	CHECK_HEX(run1(t, "abs.f32 %f4, %f1;", fbits(-1.5f), 0, 0, RF32),
		  fbits(1.5f));
	volatile double dx = 1.0, dy = 3.0;
	CHECK_HEX(run1(t, "div.rn.f64 %fd4, %fd1, %fd2;", dbits(dx), dbits(dy),
		       0, RF64), dbits(dx / dy));
	CHECK_HEX(run1(t, "fma.rn.f64 %fd4, %fd1, %fd2, %fd3;", dbits(0.1),
		       dbits(10.0), dbits(-1.0), RF64),
		  dbits(fma(0.1, 10.0, -1.0)));
	/* .approx within the ISA's bounds: ex2 2^-22 relative (ftz), tanh
	 * 2^-10.987 relative, rsqrt and lg2 2^-22 */
	float e = bitsf(run1(t, "ex2.approx.ftz.f32 %f4, %f1;", fbits(0.5f), 0,
			     0, RF32));
	CHECK(fabsf(e - 1.41421356f) <= ldexpf(1.41421356f, -22));
	float th = bitsf(run1(t, "tanh.approx.f32 %f4, %f1;", fbits(0.5f), 0, 0,
			      RF32));
	CHECK(fabsf(th - 0.462117157f) <= ldexpf(0.462117157f, -10));
	float rs = bitsf(run1(t, "rsqrt.approx.ftz.f32 %f4, %f1;", fbits(4.0f),
			      0, 0, RF32));
	CHECK(fabsf(rs - 0.5f) <= ldexpf(0.5f, -22));
	float lg = bitsf(run1(t, "lg2.approx.ftz.f32 %f4, %f1;", fbits(8.0f), 0,
			      0, RF32));
	CHECK(fabsf(lg - 3.0f) <= ldexpf(3.0f, -22));
}

TEST(emu_half_arithmetic)
{
	/* f16: 1.0 = 0x3c00, 2.0 = 0x4000, 1.5 = 0x3e00; bf16 = f32 >> 16 */
	CHECK_HEX(run1(t, "add.rn.f16x2 %r4, %r1, %r2;", 0x3c003e00u,
		       0x40003c00u, 0, R32), 0x42004100u); /* {3, 2.5} */
	CHECK_HEX(run1(t, "mul.rn.bf16x2 %r4, %r1, %r2;", 0x3fc04000u,
		       0x40004040u, 0, R32), 0x404040c0u); /* {1.5*2, 2*3} */
	/* 1 + 2^-11 rounds to 1 in f16 (tie to even), 2049 * 2^-11 + tiny
	 * upward */
	CHECK_HEX(run1(t, "add.rn.f16x2 %r4, %r1, %r2;", 0x3c00u, 0x0c00u, 0,
		       R32), 0x3c00u);
	CHECK_HEX(run1(t, "fma.rn.f32x2 %rd4, %rd1, %rd2, %rd3;",
		       fbits(2.0f) << 32 | fbits(3.0f),
		       fbits(4.0f) << 32 | fbits(5.0f),
		       fbits(1.0f) << 32 | fbits(1.0f), R64),
		  fbits(9.0f) << 32 | fbits(16.0f));
}

TEST(emu_conversions)
{
	/* f32 -> f16, from the binary16 format: 1 + 2^-11 is a tie (even:
	 * 1.0), 1 + 3 * 2^-11 a tie rounding up to 1 + 2^-9; 65520 is the
	 * midpoint of 65504 and 2^16: nearest overflows to inf, toward zero
	 * stays 65504 (0x7bff); 2^-24 is the least subnormal, 2^-25 a tie
	 * to 0 */
	CHECK_HEX(run1(t, "cvt.rn.f16.f32 %rs4, %f1;", fbits(1 + ldexpf(1, -11)),
		       0, 0, R16), 0x3c00);
	CHECK_HEX(run1(t, "cvt.rn.f16.f32 %rs4, %f1;",
		       fbits(1 + 3 * ldexpf(1, -11)), 0, 0, R16), 0x3c02);
	CHECK_HEX(run1(t, "cvt.rn.f16.f32 %rs4, %f1;", fbits(65520.0f), 0, 0,
		       R16), 0x7c00);
	CHECK_HEX(run1(t, "cvt.rz.f16.f32 %rs4, %f1;", fbits(65520.0f), 0, 0,
		       R16), 0x7bff);
	CHECK_HEX(run1(t, "cvt.rn.f16.f32 %rs4, %f1;", fbits(ldexpf(1, -24)), 0,
		       0, R16), 0x0001);
	CHECK_HEX(run1(t, "cvt.rn.f16.f32 %rs4, %f1;", fbits(ldexpf(1, -25)), 0,
		       0, R16), 0x0000);
	CHECK_HEX(run1(t, "cvt.rn.f16.f32 %rs4, %f1;", fbits(ldexpf(3, -25)), 0,
		       0, R16), 0x0002);
	CHECK_HEX(run1(t, "cvt.rp.f16.f32 %rs4, %f1;", fbits(ldexpf(1, -30)), 0,
		       0, R16), 0x0001);
	CHECK_HEX(run1(t, "cvt.rm.f16.f32 %rs4, %f1;", fbits(-ldexpf(1, -30)), 0,
		       0, R16), 0x8001);
	/* bf16 keeps the top half of an f32: 0x3f808000 is a tie (even),
	 * 0x3f818000 a tie rounding up; NaN is canonical */
	CHECK_HEX(run1(t, "cvt.rn.bf16.f32 %rs4, %f1;", 0x3f808000u, 0, 0, R16),
		  0x3f80);
	CHECK_HEX(run1(t, "cvt.rn.bf16.f32 %rs4, %f1;", 0x3f818000u, 0, 0, R16),
		  0x3f82);
	CHECK_HEX(run1(t, "cvt.rn.bf16.f32 %rs4, %f1;", 0x7fc00001u, 0, 0, R16),
		  0x7fff);
	CHECK_HEX(run1(t, "cvt.f32.f16 %f4, %rs1;", 0x0001, 0, 0, RF32),
		  fbits(ldexpf(1, -24)));
	CHECK_HEX(run1(t, "cvt.rn.f16x2.f32 %r4, %f1, %f2;", fbits(1.0f),
		       fbits(2.0f), 0, R32), 0x3c004000u);
	CHECK_HEX(run1(t, "cvt.rn.bf16x2.f32 %r4, %f1, %f2;", fbits(1.0f),
		       fbits(-2.0f), 0, R32), 0x3f80c000u);
	/* float -> int: the rounding mode, then saturation; NaN is 0 */
	CHECK_HEX(run1(t, "cvt.rzi.s32.f32 %r4, %f1;", fbits(-2.7f), 0, 0, R32),
		  (uint32_t)-2);
	CHECK_HEX(run1(t, "cvt.rni.s32.f32 %r4, %f1;", fbits(2.5f), 0, 0, R32),
		  2);
	CHECK_HEX(run1(t, "cvt.rni.s32.f32 %r4, %f1;", fbits(3.5f), 0, 0, R32),
		  4);
	CHECK_HEX(run1(t, "cvt.rmi.s32.f32 %r4, %f1;", fbits(-2.5f), 0, 0, R32),
		  (uint32_t)-3);
	CHECK_HEX(run1(t, "cvt.rzi.s32.f32 %r4, %f1;", fbits(1e10f), 0, 0, R32),
		  0x7fffffffu);
	CHECK_HEX(run1(t, "cvt.rzi.s32.f32 %r4, %f1;", 0x7fc00000u, 0, 0, R32),
		  0);
	CHECK_HEX(run1(t, "cvt.rzi.u32.f32 %r4, %f1;", fbits(-1.0f), 0, 0, R32),
		  0);
	CHECK_HEX(run1(t, "cvt.rzi.s64.f32 %rd4, %f1;", fbits(-3e9f), 0, 0, R64),
		  (uint64_t)(int64_t)-3e9);
	CHECK_HEX(run1(t, "cvt.rmi.f32.f32 %f4, %f1;", fbits(-1.5f), 0, 0, RF32),
		  fbits(-2.0f));
	/* int -> float: 2^24 + 1 is a tie between 2^24 and 2^24 + 2 */
	CHECK_HEX(run1(t, "cvt.rn.f32.s32 %f4, %r1;", 16777217, 0, 0, RF32),
		  fbits(16777216.0f));
	CHECK_HEX(run1(t, "cvt.rp.f32.s32 %f4, %r1;", 16777217, 0, 0, RF32),
		  fbits(16777218.0f));
	CHECK_HEX(run1(t, "cvt.rn.f32.u32 %f4, %r1;", 0xffffffffu, 0, 0, RF32),
		  fbits(4294967296.0f));
	CHECK_HEX(run1(t, "cvt.rn.f16.s32 %rs4, %r1;", 2049, 0, 0, R16), 0x6800);
	/* f64 -> f32: 1 + 2^-24 is a tie to 1, 1 + 3 * 2^-24 rounds up */
	CHECK_HEX(run1(t, "cvt.rn.f32.f64 %f4, %fd1;", dbits(1 + ldexp(1, -24)),
		       0, 0, RF32), fbits(1.0f));
	CHECK_HEX(run1(t, "cvt.rn.f32.f64 %f4, %fd1;",
		       dbits(1 + 3 * ldexp(1, -24)), 0, 0, RF32),
		  fbits(1 + ldexpf(1, -22)));
	CHECK_HEX(run1(t, "cvt.f64.f32 %fd4, %f1;", fbits(0.1f), 0, 0, RF64),
		  dbits((double)0.1f));
	/* int -> int: extend by the source type, truncate or clamp */
	CHECK_HEX(run1(t, "cvt.s16.s8 %rs4, %rs1;", 0x80, 0, 0, R16), 0xff80);
	CHECK_HEX(run1(t, "cvt.u32.s16 %r4, %rs1;", 0x8000, 0, 0, R32),
		  0xffff8000u);
	CHECK_HEX(run1(t, "cvt.u32.u16 %r4, %rs1;", 0x8000, 0, 0, R32), 0x8000);
	CHECK_HEX(run1(t, "cvt.u64.s32 %rd4, %r1;", 0xfffffffeu, 0, 0, R64),
		  (uint64_t)-2);
	CHECK_HEX(run1(t, "cvt.sat.u8.s32 %rs4, %r1;", (uint32_t)-5, 0, 0, R16),
		  0);
	CHECK_HEX(run1(t, "cvt.sat.u8.s32 %rs4, %r1;", 300, 0, 0, R16), 255);
	CHECK_HEX(run1(t, "cvt.sat.s8.s32 %rs4, %r1;", (uint32_t)-300, 0, 0,
		       R16), 0xff80);
}

/* .sat (PTX ISA: clamp to [0.0, 1.0], NaN to +0.0), .relu (negative to
 * 0, NaN canonical), min/max .xorsign.abs (the min/max of the magnitudes,
 * the XOR of the signs; a NaN result ignores both) */
TEST(emu_sat_relu_xorsign)
{
	CHECK_HEX(run1(t, "add.sat.f32 %f4, %f1, %f2;", fbits(0.75f),
		       fbits(0.5f), 0, RF32), fbits(1.0f));
	CHECK_HEX(run1(t, "add.sat.f32 %f4, %f1, %f2;", fbits(-0.5f),
		       fbits(0.25f), 0, RF32), 0);
	CHECK_HEX(run1(t, "sub.sat.f32 %f4, %f1, %f2;", fbits(INFINITY),
		       fbits(INFINITY), 0, RF32), 0);
	CHECK_HEX(run1(t, "fma.rn.sat.f32 %f4, %f1, %f2, %f3;", fbits(0.5f),
		       fbits(0.5f), fbits(0.125f), RF32), fbits(0.375f));
	/* f16: 1.0 = 0x3c00, 0.5 = 0x3800, 2.0 = 0x4000 */
	CHECK_HEX(run1(t, "mul.rn.sat.f16 %rs4, %rs1, %rs2;", 0x3c00, 0x3800, 0,
		       R16), 0x3800);
	CHECK_HEX(run1(t, "mul.rn.sat.f16 %rs4, %rs1, %rs2;", 0x4000, 0x4000, 0,
		       R16), 0x3c00);
	CHECK_HEX(run1(t, "mul.rn.sat.f16x2 %r4, %r1, %r2;", 0x4000bc00u,
		       0x40003c00u, 0, R32), 0x3c000000u);
	/* bf16: -1.0 = 0xbf80, 2.0 = 0x4000, 0.5 = 0x3f00 */
	CHECK_HEX(run1(t, "fma.rn.relu.bf16 %rs4, %rs1, %rs2, %rs3;", 0xbf80,
		       0x4000, 0x3f00, R16), 0);
	CHECK_HEX(run1(t, "fma.rn.relu.bf16 %rs4, %rs1, %rs2, %rs3;", 0x3f80,
		       0x4000, 0x3f00, R16), 0x4020); /* 2.5 */
	CHECK_HEX(run1(t, "fma.rn.relu.bf16 %rs4, %rs1, %rs2, %rs3;", 0x7fc1,
		       0x4000, 0x3f00, R16), 0x7fff);
	CHECK_HEX(run1(t, "max.xorsign.abs.f32 %f4, %f1, %f2;", fbits(-3.0f),
		       fbits(2.0f), 0, RF32), fbits(-3.0f));
	CHECK_HEX(run1(t, "min.xorsign.abs.f32 %f4, %f1, %f2;", fbits(-3.0f),
		       fbits(-2.0f), 0, RF32), fbits(2.0f));
	CHECK_HEX(run1(t, "max.NaN.xorsign.abs.bf16 %rs4, %rs1, %rs2;", 0xffc0,
		       0x3f80, 0, R16), 0x7fff);
}

/* Results the ISA leaves open (NaN payloads, .ftz and .relu/.sat of -0,
 * the approximations' ranges), as measured on the H200 by the randomised
 * differential (tools/emu_fuzz.py; each input below is one it drew), and
 * one exact rounding the ISA does define: fma.rn.bf16 rounds the exact
 * a * b + c once. */
TEST(emu_h200_float_specials)
{
	/* abs/neg: f32 and 16-bit NaNs become canonical, f64 NaNs are
	 * quieted with their sign kept; .ftz flushes before the sign op */
	CHECK_HEX(run1(t, "abs.f32 %f4, %f1;", 0xff800001u, 0, 0, RF32),
		  0x7fffffffu);
	CHECK_HEX(run1(t, "neg.f32 %f4, %f1;", 0x7fc6b63fu, 0, 0, RF32),
		  0x7fffffffu);
	CHECK_HEX(run1(t, "neg.ftz.f32 %f4, %f1;", 0x80000001u, 0, 0, RF32), 0);
	CHECK_HEX(run1(t, "neg.ftz.f32 %f4, %f1;", 0x00000001u, 0, 0, RF32),
		  0x80000000u);
	CHECK_HEX(run1(t, "abs.ftz.f16 %rs4, %rs1;", 0x8001, 0, 0, R16), 0);
	CHECK_HEX(run1(t, "abs.f16 %rs4, %rs1;", 0x7e3a, 0, 0, R16), 0x7fff);
	CHECK_HEX(run1(t, "neg.bf16 %rs4, %rs1;", 0x7f81, 0, 0, R16), 0x7fff);
	CHECK_HEX(run1(t, "abs.f64 %fd4, %fd1;", 0xfff0000000000001ull, 0, 0,
		       RF64), 0xfff8000000000001ull);
	CHECK_HEX(run1(t, "neg.f64 %fd4, %fd1;", 0x7ff0000000000001ull, 0, 0,
		       RF64), 0x7ff8000000000001ull);
	/* f64 NaN operands: fma returns b before a or c, quieted; min
	 * of two NaNs returns b */
	CHECK_HEX(run1(t, "fma.rz.f64 %fd4, %fd1, %fd2, %fd3;",
		       0xfff7d953e0b72983ull, 0x7fffffffffffffffull,
		       0xd7d2f9f22007636dull, RF64), 0x7fffffffffffffffull);
	CHECK_HEX(run1(t, "fma.rz.f64 %fd4, %fd1, %fd2, %fd3;",
		       0x7fffffffffffffffull, 0x3f99c80000000000ull,
		       0x7ff0000000000001ull, RF64), 0x7ff8000000000001ull);
	CHECK_HEX(run1(t, "add.f64 %fd4, %fd1, %fd2;", 0x7ff0000000000001ull,
		       0xfffb18d284ccc249ull, 0, RF64), 0xfffb18d284ccc249ull);
	CHECK_HEX(run1(t, "min.f64 %fd4, %fd1, %fd2;", 0xffffffffffffffffull,
		       0x7fffc3424dd764d4ull, 0, RF64), 0x7fffc3424dd764d4ull);
	/* 16-bit .ftz flushes inputs: 2^-24 * 65504 is 0, not 2^-8 */
	CHECK_HEX(run1(t, "mul.rn.ftz.f16 %rs4, %rs1, %rs2;", 0x0001, 0x7bff, 0,
		       R16), 0);
	CHECK_HEX(run1(t, "mul.rn.f16 %rs4, %rs1, %rs2;", 0x0001, 0x7bff, 0,
		       R16), 0x1bff);
	/* 1.5 * (1 + 2^-7) = 1.51171875, the midpoint of the bf16 values
	 * 193/128 and 194/128; minus 2^-100 it rounds down to 193/128
	 * (0x3fc1).  Rounded first to double it would be the tie itself,
	 * then even (0x3fc2). */
	CHECK_HEX(run1(t, "fma.rn.bf16 %rs4, %rs1, %rs2, %rs3;", 0x3fc0, 0x3f81,
		       0x8d80, R16), 0x3fc1);
	CHECK_HEX(run1(t, "fma.rn.bf16 %rs4, %rs1, %rs2, %rs3;", 0x3fc0, 0x3f81,
		       0x0d80, R16), 0x3fc2);
	/* cvt: .sat and .relu of -0 (or of a value rounding to -0) are +0;
	 * u64 -> s64 saturates; NaN to s64 is the most negative value; f32
	 * subnormals flush under .ftz also when widening; NaNs between f32
	 * and f64 */
	CHECK_HEX(run1(t, "cvt.sat.s64.u64 %rd4, %rd1;", 0xfffffffffffffffeull,
		       0, 0, R64), 0x7fffffffffffffffull);
	CHECK_HEX(run1(t, "cvt.rz.relu.bf16.f32 %rs4, %f1;", 0xbd3ad000u, 0, 0,
		       R16), 0);
	CHECK_HEX(run1(t, "cvt.rn.relu.f16x2.f32 %r4, %f1, %f2;", 0x80000000u,
		       0x9063abefu, 0, R32), 0);
	CHECK_HEX(run1(t, "cvt.rz.sat.f16.f32 %rs4, %f1;", 0x80000000u, 0, 0,
		       R16), 0);
	CHECK_HEX(run1(t, "cvt.rzi.sat.s64.f32 %rd4, %f1;", 0x7ffd0919u, 0, 0,
		       R64), 0x8000000000000000ull);
	/* NaN to integers: from f64 the top bit of the width, from f32 0
	 * unless the destination is 64-bit */
	CHECK_HEX(run1(t, "cvt.rzi.u16.f64 %rs4, %fd1;", 0x7ff8000000000000ull,
		       0, 0, R16), 0x8000);
	CHECK_HEX(run1(t, "cvt.rmi.s32.f64 %r4, %fd1;", 0xfff8000000000001ull,
		       0, 0, R32), 0x80000000u);
	CHECK_HEX(run1(t, "cvt.rzi.sat.u8.f32 %rs4, %f1;", 0x7fc00000u, 0, 0,
		       R16), 0);
	/* .sat on an integer source clamps to [0, 1]; bf16 -> f32 is exact
	 * for NaNs too (0xff9d, signalling, stays 0xff9d0000) */
	CHECK_HEX(run1(t, "cvt.rm.sat.f64.u64 %fd4, %rd1;", 21, 0, 0, RF64),
		  dbits(1.0));
	CHECK_HEX(run1(t, "cvt.f32.bf16 %f4, %rs1;", 0xff9d, 0, 0, RF32),
		  0xff9d0000u);
	CHECK_HEX(run1(t, "cvt.ftz.f64.f32 %fd4, %f1;", 0x807fffffu, 0, 0, RF64),
		  0x8000000000000000ull);
	CHECK_HEX(run1(t, "cvt.ftz.f64.f32 %fd4, %f1;", 0xffce3b85u, 0, 0, RF64),
		  0x7fffffffe0000000ull);
	CHECK_HEX(run1(t, "cvt.rz.f32.f64 %f4, %fd1;", 0xfff0000000000001ull, 0,
		       0, RF32), 0xffc00000u);
	/* div.approx is a * (1/b): |b| = 2^127 makes 1/b a flushed 0 */
	CHECK_HEX(run1(t, "div.approx.ftz.f32 %f4, %f1, %f2;", 0xc0383d13u,
		       0x7f000000u, 0, RF32), 0x80000000u);
	/* rcp.approx.ftz.f64 reads and writes only the upper 32 bits: an
	 * input 0x7ff00000_00000001 is infinity, its reciprocal 0 */
	CHECK_HEX(run1(t, "rcp.approx.ftz.f64 %fd4, %fd1;",
		       0x7ff0000000000001ull, 0, 0, RF64), 0);
	CHECK_HEX(run1(t, "rcp.approx.ftz.f64 %fd4, %fd1;", dbits(3.0), 0, 0,
		       RF64) & 0xffffffffull, 0);
}

/* fp8 and .satfinite conversions, from the formats: e4m3 has bias 7,
 * 3 mantissa bits, no infinities (largest finite 448 = 0x7e, NaN 0x7f),
 * subnormals in steps of 2^-9; e5m2 is IEEE-like (largest finite 57344 =
 * 0x7b); .satfinite takes out-of-range values to the largest finite one.
 * The first f32 source lands in the upper byte/half. */
TEST(emu_fp8_satfinite)
{
	/* 1000 -> 448; -0.3 = -9.6 quanta of 2^-5 -> -10 quanta = -1.25 *
	 * 2^-2: S.0101.010 = 0xaa */
	CHECK_HEX(run1(t, "cvt.rn.satfinite.e4m3x2.f32 %rs4, %f1, %f2;",
		       fbits(1000.0f), fbits(-0.3f), 0, R16), 0x7eaa);
	/* 2^-9 is the least subnormal; 2^-10 a tie to 0; 3 * 2^-10 a tie
	 * to 2 quanta */
	CHECK_HEX(run1(t, "cvt.rn.satfinite.e4m3x2.f32 %rs4, %f1, %f2;",
		       fbits(ldexpf(1, -9)), fbits(ldexpf(1, -10)), 0, R16),
		  0x0100);
	CHECK_HEX(run1(t, "cvt.rn.satfinite.e4m3x2.f32 %rs4, %f1, %f2;",
		       fbits(3 * ldexpf(1, -10)), fbits(NAN), 0, R16), 0x027f);
	CHECK_HEX(run1(t, "cvt.rn.satfinite.e5m2x2.f32 %rs4, %f1, %f2;",
		       fbits(INFINITY), fbits(-1.5f), 0, R16), 0x7bbe);
	CHECK_HEX(run1(t, "cvt.rn.satfinite.relu.e5m2x2.f32 %rs4, %f1, %f2;",
		       fbits(-2.0f), fbits(0.75f), 0, R16), 0x003a);
	/* back to f16x2: 448 = 1.75 * 2^8 (0x5f00), -0.3125 = -1.25 * 2^-2
	 * (0xb500) */
	CHECK_HEX(run1(t, "cvt.rn.f16x2.e4m3x2 %r4, %rs1;", 0x7eaa, 0, 0, R32),
		  0x5f00b500u);
	/* f16x2 -> e4m3x2: 1.0 (0x3c00) -> 0x38, 2^-16 -> 0 */
	CHECK_HEX(run1(t, "cvt.rn.satfinite.e4m3x2.f16x2 %rs4, %r1;",
		       0x3c000001u, 0, 0, R16), 0x3800);
	/* bf16 .satfinite: infinity -> 0x7f7f; with .relu -inf -> 0 */
	CHECK_HEX(run1(t, "cvt.rn.satfinite.bf16.f32 %rs4, %f1;",
		       fbits(INFINITY), 0, 0, R16), 0x7f7f);
	CHECK_HEX(run1(t, "cvt.rn.relu.satfinite.bf16x2.f32 %r4, %f1, %f2;",
		       fbits(-INFINITY), fbits(INFINITY), 0, R32), 0x00007f7fu);
}

/* cvt.frnd2{.relu}{.satfinite}.f16.f32 (PTX ISA, cvt): .relu clamps a
 * negative result to +0, .satfinite takes an out-of-range one to the
 * largest finite f16, 65504 = 0x7bff, and keeps NaN a NaN */
TEST(emu_cvt_f16_relu_satfinite)
{
	CHECK_HEX(run1(t, "cvt.rn.relu.f16.f32 %rs4, %f1;", fbits(-1.5f), 0,
		       0, R16), 0x0000);
	/* 1.5 = 0x3e00 passes .relu */
	CHECK_HEX(run1(t, "cvt.rz.relu.f16.f32 %rs4, %f1;", fbits(1.5f), 0, 0,
		       R16), 0x3e00);
	CHECK_HEX(run1(t, "cvt.rn.satfinite.f16.f32 %rs4, %f1;",
		       fbits(1.0e6f), 0, 0, R16), 0x7bff);
	CHECK_HEX(run1(t, "cvt.rn.satfinite.f16.f32 %rs4, %f1;",
		       fbits(-INFINITY), 0, 0, R16), 0xfbff);
	CHECK_HEX(run1(t, "cvt.rn.relu.satfinite.f16.f32 %rs4, %f1;",
		       fbits(-INFINITY), 0, 0, R16), 0x0000);
	/* without .satfinite an overflow is infinity */
	CHECK_HEX(run1(t, "cvt.rn.f16.f32 %rs4, %f1;", fbits(1.0e6f), 0, 0,
		       R16), 0x7c00);
}

/* ---- memory, sizes and statuses ---- */

static const char *const kernel_head =
	".version 8.0\n.target sm_90a\n.address_size 64\n";

/* Loads and runs ptx (kernel k, one param out, a 256-byte buffer); the
 * status, with the host view of the buffer in *buf. */
static int
run_small(const char *body, unsigned threads, unsigned flags, ptem **pe,
	  uint8_t **buf)
{
	char ptx[8192];
	snprintf(ptx, sizeof(ptx), "%s.visible .entry k(.param .u64 out)\n{\n%s}\n",
		 kernel_head, body);
	ptem *e = ptem_new();
	*pe = e;
	int st = ptem_load(e, ptx, strlen(ptx));
	uint64_t out = 0;
	if (st == PT_OK)
		st = ptem_alloc(e, 256, &out);
	ptem_arg args[] = {{&out, 8}};
	ptem_launch l = {{1, 1, 1}, {threads, 1, 1}, {1, 1, 1}, 0, flags,
			 1000000};
	if (st == PT_OK)
		st = ptem_run(e, "k", &l, args, 1);
	*buf = ptem_host(e, out, 256);
	return st;
}

static const char regs[] =
	"\t.reg .pred %p<5>;\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<20>;\n"
	"\t.reg .f32 %f<5>;\n\t.shared .align 16 .b8 sm[512];\n"
	"\t.local .align 8 .b8 lm[16];\n"
	"\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n";

TEST(emu_memory_spaces)
{
	/* shared through a symbol, generic through cvta, local, vectors and
	 * narrow signed loads; every thread writes its own word */
	char body[4096];
	snprintf(body, sizeof(body), "%s"
		 "\tmul.lo.s32 %%r2, %%r1, 4;\n"
		 "\tmov.u32 %%r3, sm;\n\tadd.s32 %%r3, %%r3, %%r2;\n"
		 "\tst.shared.u32 [%%r3], %%r1;\n\tbar.sync 0;\n"
		 "\tmov.u64 %%rd2, sm;\n\tcvta.shared.u64 %%rd3, %%rd2;\n"
		 "\txor.b32 %%r4, %%r2, 4;\n\tcvt.u64.u32 %%rd4, %%r4;\n"
		 "\tadd.s64 %%rd5, %%rd3, %%rd4;\n\tld.u32 %%r5, [%%rd5];\n"
		 "\tst.local.u32 [lm+4], %%r5;\n\tld.local.u32 %%r6, [lm+4];\n"
		 "\tcvt.u64.u32 %%rd6, %%r2;\n\tadd.s64 %%rd7, %%rd1, %%rd6;\n"
		 "\tst.global.u32 [%%rd7], %%r6;\n\tbar.sync 0;\n"
		 "\tsetp.ne.s32 %%p1, %%r1, 0;\n\t@%%p1 bra $L_end;\n"
		 "\tld.global.v4.u32 {%%r10, %%r11, %%r12, %%r13}, [%%rd1];\n"
		 "\tst.global.v4.u32 [%%rd1+128], {%%r13, %%r12, %%r11, %%r10};\n"
		 "\tmov.u32 %%r14, 0xff;\n\tst.global.u8 [%%rd1+200], %%r14;\n"
		 "\tld.global.s8 %%r15, [%%rd1+200];\n"
		 "\tst.global.u32 [%%rd1+204], %%r15;\n"
		 "$L_end:\n\tret;\n", regs);
	ptem *e;
	uint8_t *b;
	int st = run_small(body, 32, 0, &e, &b);
	CHECK_INT(st, PT_OK);
	if (st == PT_OK) {
		uint32_t w[64];
		memcpy(w, b, sizeof(w));
		for (uint32_t i = 0; i < 32; i++)
			CHECK_INT(w[i], i ^ 1); /* the neighbour's id */
		CHECK_INT(w[32], 2);
		CHECK_INT(w[35], 1);
		CHECK_INT(w[51], 0xffffffffu); /* ld.s8 of 0xff */
	}
	ptem_free(e);
}

TEST(emu_atom_red)
{
	/* 32 threads, thread i with operand i + 1, on words the ISA's table
	 * defines: word 0 add (sum 528), 1 max.s32 of -(i+1) from 0 (0), 2
	 * min.s32 (-32), 3 or (63), 4 and from ~0 (0), 5 xor (33^...: the xor
	 * of 1..32 = 32), 6 inc with bound 40 from 0 (32 increments: 32),
	 * 7 dec with bound 40 from 3 (3,2,1,0 -> 40 -> 39...: 3 - 32 wraps at
	 * 0 to 40, so 40 - 28 = 12), 8 red.add.f32 of 0.5 (16.0); 9 exch by
	 * thread 0 only (old 0 returned, then 7); 10 cas by thread 0 of 9 ->
	 * 5 (equal: 5) and 11 of 8 -> 6 (word 11 holds 0: unchanged);
	 * atom.shared.add.u64 per thread returns its old value (thread 0 of
	 * the words read 0) - the values are order-free. */
	char body[4096];
	snprintf(body, sizeof(body), "%s"
		 "\tadd.s32 %%r2, %%r1, 1;\n\tneg.s32 %%r3, %%r2;\n"
		 "\tmov.u32 %%r4, -1;\n\tmov.u32 %%r5, 3;\n"
		 "\tsetp.eq.s32 %%p1, %%r1, 0;\n"
		 "\t@%%p1 st.global.u32 [%%rd1+16], %%r4;\n"
		 "\t@%%p1 st.global.u32 [%%rd1+28], %%r5;\n"
		 "\t@%%p1 st.global.u32 [%%rd1+40], 9;\n"
		 "\tbar.sync 0;\n"
		 "\tatom.global.add.u32 %%r6, [%%rd1], %%r2;\n"
		 "\tatom.global.max.s32 %%r6, [%%rd1+4], %%r3;\n"
		 "\tatom.min.s32 %%r6, [%%rd1+8], %%r3;\n"
		 "\tred.global.or.b32 [%%rd1+12], %%r2;\n"
		 "\tred.global.and.b32 [%%rd1+16], %%r1;\n"
		 "\tatom.relaxed.gpu.global.xor.b32 %%r6, [%%rd1+20], %%r2;\n"
		 "\tatom.global.inc.u32 %%r6, [%%rd1+24], 40;\n"
		 "\tred.global.dec.u32 [%%rd1+28], 40;\n"
		 "\tmov.f32 %%f1, 0f3F000000;\n"
		 "\tred.global.add.f32 [%%rd1+32], %%f1;\n"
		 "\t@%%p1 atom.global.exch.b32 %%r7, [%%rd1+36], 7;\n"
		 "\t@%%p1 st.global.u32 [%%rd1+48], %%r7;\n"
		 "\t@%%p1 atom.global.cas.b32 %%r8, [%%rd1+40], 9, 5;\n"
		 "\t@%%p1 atom.global.cas.b32 %%r9, [%%rd1+44], 8, 6;\n"
		 "\t@%%p1 st.global.u32 [%%rd1+52], %%r8;\n"
		 "\tmov.u32 %%r10, sm;\n\tcvt.u64.u32 %%rd2, %%r2;\n"
		 "\t@%%p1 st.shared.u64 [%%r10], 0;\n\tbar.sync 0;\n"
		 "\tatom.acq_rel.shared::cta.add.u64 %%rd3, [%%r10], %%rd2;\n"
		 "\tbar.sync 0;\n\tld.shared.u64 %%rd4, [%%r10];\n"
		 "\t@%%p1 st.global.u64 [%%rd1+56], %%rd4;\n"
		 "\tret;\n", regs);
	ptem *e;
	uint8_t *b;
	int st = run_small(body, 32, 0, &e, &b);
	CHECK_INT(st, PT_OK);
	if (st == PT_OK) {
		uint32_t w[16];
		memcpy(w, b, sizeof(w));
		CHECK_INT(w[0], 528);
		CHECK_INT(w[1], 0);
		CHECK_INT((int32_t)w[2], -32);
		CHECK_INT(w[3], 63);
		CHECK_INT(w[4], 0);
		CHECK_INT(w[5], 32);
		CHECK_INT(w[6], 32);
		CHECK_INT(w[7], 12);
		CHECK_HEX(w[8], fbits(16.0f));
		CHECK_INT(w[9], 7);
		CHECK_INT(w[10], 5);
		CHECK_INT(w[11], 0);
		CHECK_INT(w[12], 0);
		CHECK_INT(w[13], 9);
		uint64_t sum;
		memcpy(&sum, b + 56, 8);
		CHECK_INT(sum, 528);
	}
	ptem_free(e);
}

TEST(emu_bar_arrive)
{
	/* bar.arrive counts toward the barrier without waiting (PTX ISA
	 * "bar, barrier"): warp 1 stores tid * 3 and arrives on barrier 1
	 * (64 threads); warp 0 waits there with bar.sync 1, 64 and copies
	 * warp 1's words: out[i] = (32 + i) * 3 */
	char body[2048];
	snprintf(body, sizeof(body), "%s"
		 "\tmov.u32 %%r10, sm;\n\tmul.lo.s32 %%r2, %%r1, 4;\n"
		 "\tadd.s32 %%r3, %%r10, %%r2;\n"
		 "\tsetp.lt.u32 %%p1, %%r1, 32;\n\t@%%p1 bra $L_consumer;\n"
		 "\tmul.lo.s32 %%r4, %%r1, 3;\n\tst.shared.u32 [%%r3], %%r4;\n"
		 "\tbarrier.arrive.aligned 1, 64;\n\tret;\n"
		 "$L_consumer:\n\tbar.sync 1, 64;\n"
		 "\tld.shared.u32 %%r5, [%%r3+128];\n"
		 "\tcvt.u64.u32 %%rd2, %%r2;\n\tadd.s64 %%rd3, %%rd1, %%rd2;\n"
		 "\tst.global.u32 [%%rd3], %%r5;\n\tret;\n", regs);
	ptem *e;
	uint8_t *b;
	CHECK_INT(run_small(body, 64, 0, &e, &b), PT_OK);
	for (int i = 0; b && i < 32; i++) {
		uint32_t v;
		memcpy(&v, b + 4 * i, 4);
		CHECK_INT(v, (uint32_t)(32 + i) * 3);
	}
	ptem_free(e);
}

/* Line info (ptxtile compile --lineinfo): .file/.loc name the script
 * line of every report that names a PTX line. */
static int
run_text(const char *ptx, ptem **pe, uint8_t **buf)
{
	ptem *e = ptem_new();
	*pe = e;
	*buf = NULL;
	int st = ptem_load(e, ptx, strlen(ptx));
	uint64_t out = 0;
	if (st == PT_OK)
		st = ptem_alloc(e, 64, &out);
	ptem_arg args[] = {{&out, 8}};
	ptem_launch l = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 0, 0, 0};
	if (st == PT_OK)
		st = ptem_run(e, "k", &l, args, 1);
	*buf = ptem_host(e, out, 64);
	return st;
}

TEST(emu_script_lines)
{
	static const char head[] =
		".version 8.0\n.target sm_90a\n.address_size 64\n"
		".file 1 \"dir/k.py\"\n.file 2 \"lib.py\", 0, 0\n"
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [out];\n";
	char ptx[2048];
	ptem *e;
	uint8_t *b;
	/* the instruction right after a .loc runs (a .loc has no ';'), and
	 * the store on PTX line 14 past the 64-byte buffer names k.py:9 */
	snprintf(ptx, sizeof(ptx), "%s"
		 "\t.loc 1 5 1\n\tmov.u32 %%r1, 42;\n"       /* lines 11-12 */
		 "\tst.global.u32 [%%rd1], %%r1;\n"          /* 13 */
		 "\t.loc 1 9 5\n\tst.global.u32 [%%rd1+64], %%r1;\n" /* 14-15 */
		 "\tret;\n}\n", head);
	CHECK_INT(run_text(ptx, &e, &b), PT_E_EMU_OOB);
	const char *msg = ptem_errmsg(e);
	CHECK(strstr(msg, "PTX line 15 (st.global.u32) at dir/k.py:9:") !=
	      NULL);
	uint32_t v = 0;
	if (b)
		memcpy(&v, b, 4);
	CHECK_INT(v, 42);
	ptem_free(e);
	/* a load error under a .loc of file 2 */
	snprintf(ptx, sizeof(ptx), "%s\t.loc 2 33 1\n\tfrobnicate.u32 %%r1;\n"
		 "\tret;\n}\n", head);
	CHECK_INT(run_text(ptx, &e, &b), PT_E_EMU_UNSUPPORTED);
	CHECK(strstr(ptem_errmsg(e), "PTX line 12 at lib.py:33:") != NULL);
	ptem_free(e);
	/* hostile line info: an undeclared file, a bad number, a file
	 * given twice, an unterminated name */
	static const char *const bad[] = {
		"\t.loc 3 1 1\n", "\t.loc 1 x 1\n", "\t.loc 99999999999 1 1\n",
	};
	for (size_t i = 0; i < countof(bad); i++) {
		snprintf(ptx, sizeof(ptx), "%s%s\tret;\n}\n", head, bad[i]);
		CHECK_INT(run_text(ptx, &e, &b), PT_E_EMU_PARSE);
		ptem_free(e);
	}
	CHECK_INT(run_text(".version 8.0\n.file 1 \"a\"\n.file 1 \"b\"\n", &e,
			   &b), PT_E_EMU_PARSE);
	ptem_free(e);
	CHECK_INT(run_text(".version 8.0\n.file 1 \"a\n", &e, &b),
		  PT_E_EMU_PARSE);
	ptem_free(e);
}

TEST(emu_divergence_and_loops)
{
	/* odd lanes loop tid times, even lanes take the other branch; they
	 * reconverge at the barrier */
	char body[2048];
	snprintf(body, sizeof(body), "%s"
		 "\tand.b32 %%r2, %%r1, 1;\n\tmov.u32 %%r3, 0;\n"
		 "\tsetp.eq.s32 %%p1, %%r2, 0;\n\t@%%p1 bra $L_even;\n"
		 "\tmov.u32 %%r4, 0;\n$L_loop:\n\tadd.s32 %%r3, %%r3, 3;\n"
		 "\tadd.s32 %%r4, %%r4, 1;\n\tsetp.lt.s32 %%p2, %%r4, %%r1;\n"
		 "\t@%%p2 bra $L_loop;\n\tbra $L_join;\n"
		 "$L_even:\n\tsub.s32 %%r3, 0, %%r1;\n"
		 "$L_join:\n\tbar.sync 0;\n"
		 "\tmul.wide.u32 %%rd2, %%r1, 4;\n\tadd.s64 %%rd3, %%rd1, %%rd2;\n"
		 "\tst.global.u32 [%%rd3], %%r3;\n\tret;\n", regs);
	ptem *e;
	uint8_t *b;
	CHECK_INT(run_small(body, 64, 0, &e, &b), PT_OK);
	for (int i = 0; b && i < 64; i++) {
		int32_t v;
		memcpy(&v, b + 4 * i, 4);
		CHECK_INT(v, i % 2 ? 3 * i : -i);
	}
	ptem_free(e);
}

TEST(emu_status_codes)
{
	ptem *e = ptem_new();
	/* PT_E_EMU_PARSE / PT_E_EMU_UNSUPPORTED name the line */
	const char *bad = ".version 8.0\n.visible .entry k()\n{\n\tadd.s32 %r1;\n}\n";
	CHECK_INT(ptem_load(e, bad, strlen(bad)), PT_E_EMU_PARSE);
	CHECK(strstr(ptem_errmsg(e), "line 4") != NULL);
	const char *unk = ".visible .entry k()\n{\n\tfrobnicate.b32;\n}\n";
	CHECK_INT(ptem_load(e, unk, strlen(unk)), PT_E_EMU_UNSUPPORTED);
	const char *mod = ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n"
			  "\tadd.frob.s32 %r0, %r1, %r1;\n}\n";
	CHECK_INT(ptem_load(e, mod, strlen(mod)), PT_E_EMU_UNSUPPORTED);
	const char *ok = ".visible .entry k(.param .u64 a)\n{\n\tret;\n}\n";
	CHECK_INT(ptem_load(e, ok, strlen(ok)), PT_OK);
	ptem_launch l = {{1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 0, 0, 0};
	uint64_t a = 0;
	ptem_arg args[] = {{&a, 8}};
	CHECK_INT(ptem_run(e, "nope", &l, args, 1), PT_E_EMU_NO_KERNEL);
	CHECK_INT(ptem_run(e, "k", &l, args, 0), PT_E_EMU_ARGS);
	ptem_arg small[] = {{&a, 4}};
	CHECK_INT(ptem_run(e, "k", &l, small, 1), PT_E_EMU_ARGS);
	l.block[0] = 2048;
	CHECK_INT(ptem_run(e, "k", &l, args, 1), PT_E_EMU_ARGS);
	/* PT_E_EMU_NOMEM: the arena's test hook fails the first block */
	ptem_free(e);
	e = ptem_new();
	e->arena.fail_after = 1;
	CHECK_INT(ptem_load(e, ok, strlen(ok)), PT_E_EMU_NOMEM);
	ptem_free(e);

	uint8_t *b;
	char body[2048];
	/* PT_E_EMU_OOB: past the end of the allocation, with thread+line */
	snprintf(body, sizeof(body), "%s\tst.global.u32 [%%rd1+256], %%r1;\n"
		 "\tret;\n", regs);
	CHECK_INT(run_small(body, 1, 0, &e, &b), PT_E_EMU_OOB);
	CHECK(strstr(ptem_errmsg(e), "thread (0,0,0)") &&
	      strstr(ptem_errmsg(e), "PTX line 14"));
	ptem_free(e);
	/* misaligned */
	snprintf(body, sizeof(body), "%s\tst.global.u32 [%%rd1+2], %%r1;\n"
		 "\tret;\n", regs);
	CHECK_INT(run_small(body, 1, 0, &e, &b), PT_E_EMU_OOB);
	ptem_free(e);
	/* PT_E_EMU_DEADLOCK: only thread 0 reaches the barrier... and the
	 * others wait at a second one */
	snprintf(body, sizeof(body), "%s\tsetp.eq.s32 %%p1, %%r1, 0;\n"
		 "\t@%%p1 bra $L1;\n\tbar.sync 1;\n\tret;\n$L1:\n\tbar.sync 0;\n"
		 "\tret;\n", regs);
	CHECK_INT(run_small(body, 64, 0, &e, &b), PT_E_EMU_DEADLOCK);
	ptem_free(e);
	/* PT_E_EMU_STEP_LIMIT */
	snprintf(body, sizeof(body), "%s$L1:\n\tbra $L1;\n", regs);
	CHECK_INT(run_small(body, 1, 0, &e, &b), PT_E_EMU_STEP_LIMIT);
	ptem_free(e);
	/* PT_E_EMU_MBARRIER: arrive on an uninitialised mbarrier */
	snprintf(body, sizeof(body), "%s"
		 "\tmbarrier.arrive.shared.b64 %%rd2, [sm];\n\tret;\n", regs);
	CHECK_INT(run_small(body, 1, 0, &e, &b), PT_E_EMU_MBARRIER);
	ptem_free(e);
	/* PT_E_EMU_COLLECTIVE: a shuffle naming lanes that exited */
	snprintf(body, sizeof(body), "%s\tsetp.ge.s32 %%p1, %%r1, 16;\n"
		 "\t@%%p1 ret;\n"
		 "\tshfl.sync.idx.b32 %%r2, %%r1, 0, 31, -1;\n\tret;\n", regs);
	CHECK_INT(run_small(body, 32, 0, &e, &b), PT_E_EMU_COLLECTIVE);
	ptem_free(e);
}

/* cp.async with zero fill; in late mode a read before the wait is an
 * error, and with the wait the data arrives */
TEST(emu_cp_async_late)
{
	char body[4096];
	const char *fmt = "%s"
		"\tmul.lo.s32 %%r2, %%r1, 16;\n\tcvt.u64.u32 %%rd2, %%r2;\n"
		"\tadd.s64 %%rd3, %%rd1, %%rd2;\n\tmov.u32 %%r3, sm;\n"
		"\tadd.s32 %%r3, %%r3, %%r2;\n\tst.global.u32 [%%rd3], 7;\n"
		"\tselp.u32 %%r4, 16, 4, %%p0;\n"
		"\tcp.async.cg.shared.global [%%r3], [%%rd3], 16, %%r4;\n"
		"\tcp.async.commit_group;\n%s"
		"\tld.shared.u32 %%r5, [%%r3];\n\tld.shared.u32 %%r6, [%%r3+4];\n"
		"\tst.global.u32 [%%rd3+128], %%r5;\n"
		"\tst.global.u32 [%%rd3+132], %%r6;\n\tret;\n";
	ptem *e;
	uint8_t *b;
	snprintf(body, sizeof(body), fmt, regs, "\tcp.async.wait_group 0;\n");
	CHECK_INT(run_small(body, 4, PTEM_LATE_COMPLETION, &e, &b), PT_OK);
	for (int i = 0; b && i < 4; i++) {
		uint32_t w[2];
		memcpy(w, b + 128 + 16 * i, 8);
		CHECK_INT(w[0], 7);
		CHECK_INT(w[1], 0); /* src-size 4: the rest is zero-filled */
	}
	ptem_free(e);
	snprintf(body, sizeof(body), fmt, regs, "");
	CHECK_INT(run_small(body, 4, PTEM_LATE_COMPLETION, &e, &b),
		  PT_E_EMU_ASYNC);
	CHECK(strstr(ptem_errmsg(e), "issued at PTX line 21") != NULL);
	ptem_free(e);
	/* eager completion (the default) gives the lucky result */
	CHECK_INT(run_small(body, 4, 0, &e, &b), PT_OK);
	ptem_free(e);
}

/* cp.async's predicate fourth operand is ignore-src (PTX ISA: true
 * reads no source and zero-fills the chunk), not a src-size of 0 or 1:
 * threads 0 and 1 copy, threads 2 and 3 get zeros */
TEST(emu_cp_async_ignore_src)
{
	char body[4096];
	snprintf(body, sizeof(body), "%s"
		 "\tmul.lo.s32 %%r2, %%r1, 16;\n\tcvt.u64.u32 %%rd2, %%r2;\n"
		 "\tadd.s64 %%rd3, %%rd1, %%rd2;\n\tmov.u32 %%r3, sm;\n"
		 "\tadd.s32 %%r3, %%r3, %%r2;\n"
		 "\tst.global.u32 [%%rd3], 7;\n\tst.global.u32 [%%rd3+12], 9;\n"
		 "\tsetp.ge.u32 %%p1, %%r1, 2;\n"
		 "\tcp.async.cg.shared.global [%%r3], [%%rd3], 16, %%p1;\n"
		 "\tcp.async.commit_group;\n\tcp.async.wait_group 0;\n"
		 "\tld.shared.u32 %%r5, [%%r3];\n\tld.shared.u32 %%r6, [%%r3+12];\n"
		 "\tst.global.u32 [%%rd3+128], %%r5;\n"
		 "\tst.global.u32 [%%rd3+132], %%r6;\n\tret;\n", regs);
	ptem *e;
	uint8_t *b;
	CHECK_INT(run_small(body, 4, 0, &e, &b), PT_OK);
	for (int i = 0; b && i < 4; i++) {
		uint32_t w[2];
		memcpy(w, b + 128 + 16 * i, 8);
		CHECK_INT(w[0], i < 2 ? 7 : 0);
		CHECK_INT(w[1], i < 2 ? 9 : 0);
	}
	ptem_free(e);
}

/* ---- whole scripts ----
 * A script is compiled by ptxtile; its metadata and the runtime's launch
 * planner bind the tensors (host buffers copied into emulated memory) and
 * scalars exactly as a GPU launch would. */
typedef struct ScriptRun {
	ptem *e;
	uint64_t addr[16];
	int status;
} ScriptRun;

/* One argument: a tensor (data, bytes, dtype, shape) or a scalar. */
typedef struct SArg {
	const void *data;
	size_t bytes;
	ptrt_dtype dtype;
	int ndim;
	int64_t shape[5];
	ptrt_arg scalar; /* used when data is NULL */
} SArg;

/* Compiles the script text (named path in messages) and runs it. */
static int
script_run_text(TestCtx *t, ScriptRun *sr, const char *path, char *text,
		const char *target, const SArg *sa, size_t n, unsigned flags)
{
	memset(sr, 0, sizeof(*sr));
	sr->e = ptem_new();
	Arena a;
	arena_init(&a, NULL);
	pt_ctx *ctx = pt_ctx_new(NULL);
	size_t len = text ? strlen(text) : 0;
	pt_module *m = NULL;
	const char *ptx = NULL, *meta = NULL;
	int st = text ? pt_load(ctx, path, text, len, &m) : PT_E_NOMEM;
	if (!st)
		st = pt_compile(ctx, m, target, &ptx, &meta);
	RtMeta rm;
	RtStatus rs;
	LaunchPlan plan;
	if (!st)
		st = ptem_load(sr->e, ptx, strlen(ptx));
	if (!st)
		st = meta_parse(&a, meta, strlen(meta), &rm, &rs);
	ptrt_arg args[16];
	for (size_t i = 0; !st && i < n; i++) {
		if (!sa[i].data) {
			args[i] = sa[i].scalar;
			continue;
		}
		st = ptem_alloc(sr->e, sa[i].bytes, &sr->addr[i]);
		if (!st)
			memcpy(ptem_host(sr->e, sr->addr[i], sa[i].bytes),
			       sa[i].data, sa[i].bytes);
		args[i] = ptrt_arg_tensor(sr->addr[i], sa[i].dtype, sa[i].ndim,
					  sa[i].shape, NULL);
	}
	const RtKernelMeta *k = st ? NULL : &rm.kernels[0];
	if (!st)
		st = launch_plan(&a, k, args, n, &plan, &rs);
	if (!st) {
		ptem_arg pa[32];
		for (size_t i = 0; i < k->nparams && i < 32; i++) {
			const RtParam *q = &k->params[i];
			pa[i].data = plan.params[i];
			pa[i].size = q->kind == RP_TENSOR ? 8
				     : q->kind == RP_TMA ? 128
				     : (size_t)dtype_size(q->dtype);
			if (q->kind == RP_TMA) {
				uint8_t *map = NEWN(&a, uint8_t, 128);
				emu_tensormap_from_plan(&plan.tma[i], map);
				pa[i].data = map;
			}
		}
		ptem_launch l = {{plan.grid[0], plan.grid[1], plan.grid[2]},
				 {plan.block[0], plan.block[1], plan.block[2]},
				 {plan.cluster[0], plan.cluster[1],
				  plan.cluster[2]},
				 plan.smem, flags, 0};
		st = ptem_run(sr->e, k->name, &l, pa, k->nparams);
		if (st)
			test_fail(t, __FILE__, __LINE__, "%s: %s", path,
				  ptem_errmsg(sr->e));
	} else {
		test_fail(t, __FILE__, __LINE__, "%s: setup failed (%d): %s %s",
			  path, st, ptem_errmsg(sr->e), rs.msg);
	}
	pt_ctx_free(ctx);
	arena_free(&a);
	sr->status = st;
	return st;
}

static int
script_run(TestCtx *t, ScriptRun *sr, const char *path, const char *target,
	   const SArg *sa, size_t n, unsigned flags)
{
	Arena a;
	arena_init(&a, NULL);
	size_t len = 0;
	char *text = read_file(&a, path, &len);
	int st = script_run_text(t, sr, path, text, target, sa, n, flags);
	arena_free(&a);
	return st;
}

static const void *
script_out(ScriptRun *sr, int i, size_t bytes)
{
	return ptem_host(sr->e, sr->addr[i], bytes);
}

static int64_t
floordiv64(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

TEST(emu_script_scalar_flow)
{
	/* expected values from the script's header, in C */
	static int32_t out[64][8];
	static float f[64][4];
	SArg sa[] = {{out, sizeof(out), PTRT_INT32, 2, {64, 8}, {0}},
		     {f, sizeof(f), PTRT_FLOAT32, 2, {64, 4}, {0}}};
	ScriptRun sr;
	if (script_run(t, &sr, "tests/gpu/kernels/scalar_flow.py", "sm_90a",
		       sa, 2, 0) == PT_OK) {
		const int32_t (*o)[8] = script_out(&sr, 0, sizeof(out));
		const float (*g)[4] = script_out(&sr, 1, sizeof(f));
		for (int i = 0; i < 64; i++) {
			int32_t s = i - 32;
			int cnt = 0;
			for (int j = 0; j < i && j < 40; j++)
				cnt += j % 2 == 0 && j % 3 == 0;
			int64_t w = s, c = w < 10 ? w : 10;
			c = c > -10 ? c : -10;
			int32_t e[8] = {
				(int32_t)floordiv64(s, 5),
				(int32_t)(s - floordiv64(s, 5) * 5),
				(int32_t)(((uint32_t)i * 2654435761u) >> 16),
				(int8_t)(uint8_t)((s * 9) & 0xff), cnt,
				(int32_t)((double)s * 0.5), s < 0 && i % 2 == 0,
				(int32_t)(c + (w < 0 ? -w : w) / 8)};
			for (int j = 0; j < 8; j++)
				CHECK_INT(o[i][j], e[j]);
			CHECK(g[i][0] == (float)(i * 3));
			CHECK(g[i][1] == (float)((double)s / 4.0));
			CHECK(g[i][2] == (s >= 0 ? sqrtf((float)i) : -1.0f));
			CHECK(g[i][3] == floorf((float)i / 3.0f));
		}
	}
	ptem_free(sr.e);
}

TEST(emu_script_smem_reduce)
{
	static float a[4096], out[4];
	for (int i = 0; i < 4096; i++)
		a[i] = (float)(i % 7);
	SArg sa[] = {{a, sizeof(a), PTRT_FLOAT32, 1, {4096}, {0}},
		     {out, sizeof(out), PTRT_FLOAT32, 1, {4}, {0}}};
	ScriptRun sr;
	if (script_run(t, &sr, "tests/gpu/kernels/smem_reduce.py", "sm_90a", sa,
		       2, 0) == PT_OK) {
		const float *o = script_out(&sr, 1, sizeof(out));
		for (int b = 0; b < 4; b++) {
			double s = 0;
			for (int i = 0; i < 1024; i++)
				s += a[b * 1024 + i];
			CHECK(o[b] == (float)s);
		}
	}
	ptem_free(sr.e);
}

TEST(emu_script_cluster_copy)
{
	/* two CTAs of a cluster: mapa, cp.async.bulk into the peer's shared
	 * memory, complete_tx on the peer's mbarrier; B == A bit for bit,
	 * also with every completion delayed to its wait */
	static float a[64], b[64];
	for (int i = 0; i < 64; i++)
		a[i] = (float)i * 0.25f + 2.0f;
	for (unsigned flags = 0; flags <= PTEM_LATE_COMPLETION; flags++) {
		SArg sa[] = {{a, sizeof(a), PTRT_FLOAT32, 1, {64}, {0}},
			     {b, sizeof(b), PTRT_FLOAT32, 1, {64}, {0}}};
		ScriptRun sr;
		if (script_run(t, &sr, "examples/cluster_copy.py", "sm_90a", sa,
			       2, flags) == PT_OK)
			CHECK(memcmp(script_out(&sr, 1, sizeof(b)), a,
				     sizeof(a)) == 0);
		ptem_free(sr.e);
	}
}

TEST(emu_script_cp_async_zero_fill)
{
	static uint8_t a[32][16], b[32][16];
	for (int i = 0; i < 32 * 16; i++)
		a[i / 16][i % 16] = (uint8_t)(i * 7 + 1);
	memset(b, 0xa5, sizeof(b));
	SArg sa[] = {{a, sizeof(a), PTRT_UINT8, 2, {32, 16}, {0}},
		     {b, sizeof(b), PTRT_UINT8, 2, {32, 16}, {0}},
		     {NULL, 0, 0, 0, {0}, ptrt_arg_i32(21)}};
	ScriptRun sr;
	if (script_run(t, &sr, "examples/cp_async_zero_fill.py", "sm_90a", sa,
		       3, PTEM_LATE_COMPLETION) == PT_OK) {
		const uint8_t (*o)[16] = script_out(&sr, 1, sizeof(b));
		for (int r = 0; r < 32; r++)
			for (int c = 0; c < 16; c++)
				CHECK_INT(o[r][c], r < 21 ? a[r][c] : 0);
	}
	ptem_free(sr.e);
}

TEST(emu_script_saxpy_relu)
{
	/* 40000 elements over a 132 x 256 grid-stride loop; the PTX's
	 * mul.f32 and add.f32 are two roundings */
	enum { N = 40000 };
	static float x[N], y[N], y0[N];
	for (int i = 0; i < N; i++) {
		x[i] = (float)((i * 37) % 101) * 0.125f - 6.0f;
		y[i] = y0[i] = (float)((i * 11) % 13) * 0.5f - 3.0f;
	}
	SArg sa[] = {{x, sizeof(x), PTRT_FLOAT32, 1, {N}, {0}},
		     {y, sizeof(y), PTRT_FLOAT32, 1, {N}, {0}},
		     {NULL, 0, 0, 0, {0}, ptrt_arg_f32(1.5f)}};
	ScriptRun sr;
	if (script_run(t, &sr, "examples/saxpy_relu.py", "sm_90a", sa, 3, 0) ==
	    PT_OK) {
		const float *o = script_out(&sr, 1, sizeof(y));
		int bad = 0;
		for (int i = 0; i < N; i++) {
			volatile float p = 1.5f * x[i];
			float v = p + y0[i];
			bad += o[i] != (v > 0 ? v : 0.0f);
		}
		CHECK_INT(bad, 0);
	}
	ptem_free(sr.e);
}

/* ---- warp collectives ---- */

static uint32_t
out_word(const uint8_t *b, int i)
{
	uint32_t v;
	memcpy(&v, b + 4 * i, 4);
	return v;
}

TEST(emu_warp_shfl_vote_redux_elect)
{
	char b2[4096];
	snprintf(b2, sizeof(b2), "%s"
		 "\tmul.wide.u32 %%rd2, %%r1, 4;\n\tadd.s64 %%rd3, %%rd1, %%rd2;\n"
		 "\tmul.lo.s32 %%r2, %%r1, 10;\n"
		 "\tshfl.sync.down.b32 %%r3|%%p1, %%r2, 3, 31, -1;\n"
		 "\tshfl.sync.idx.b32 %%r5, %%r2, 7, 0x181f, -1;\n"
		 "\tselp.u32 %%r10, 1, 0, %%p1;\n"
		 "\tshl.b32 %%r3, %%r3, 1;\n\tor.b32 %%r3, %%r3, %%r10;\n"
		 "\tst.global.u32 [%%rd3], %%r3;\n"
		 "\tst.global.u32 [%%rd3+128], %%r5;\n\tret;\n", regs);
	ptem *e;
	uint8_t *b;
	CHECK_INT(run_small(b2, 32, 0, &e, &b), PT_OK);
	for (int l = 0; b && l < 32; l++) {
		/* down 3: from lane l+3 while l+3 <= 31, else own value, p */
		int j = l + 3 <= 31 ? l + 3 : l;
		CHECK_INT(out_word(b, l), (uint32_t)(10 * j) << 1 | (l + 3 <= 31));
		/* idx 7 in segments of 8 (c = 0x181f: segmask 0x18) */
		CHECK_INT(out_word(b, 32 + l), 10 * ((l & 0x18) | 7));
	}
	ptem_free(e);
	snprintf(b2, sizeof(b2), "%s"
		 "\tmul.wide.u32 %%rd2, %%r1, 4;\n\tadd.s64 %%rd3, %%rd1, %%rd2;\n"
		 "\tsetp.lt.u32 %%p2, %%r1, 20;\n"
		 "\tvote.sync.ballot.b32 %%r6, %%p2, -1;\n"
		 "\tvote.sync.all.pred %%p3, %%p2, -1;\n"
		 "\tredux.sync.add.u32 %%r7, %%r1, -1;\n"
		 "\tsub.s32 %%r12, 5, %%r1;\n"
		 "\tredux.sync.min.s32 %%r8, %%r12, -1;\n"
		 "\tsetp.ge.u32 %%p0, %%r1, 4;\n"
		 "\t@%%p0 elect.sync %%r9|%%p4, 0xfffffff0;\n"
		 "\tselp.u32 %%r11, 1, 0, %%p4;\n\tselp.u32 %%r13, 1, 0, %%p3;\n"
		 "\tsetp.eq.s32 %%p1, %%r1, 4;\n\t@!%%p1 bra $L_end;\n"
		 "\tst.global.v4.u32 [%%rd1], {%%r6, %%r7, %%r8, %%r9};\n"
		 "\tst.global.v2.u32 [%%rd1+16], {%%r11, %%r13};\n"
		 "$L_end:\n\tret;\n", regs);
	CHECK_INT(run_small(b2, 32, 0, &e, &b), PT_OK);
	if (b) {
		CHECK_INT(out_word(b, 0), 0xfffffu);   /* lanes 0..19 */
		CHECK_INT(out_word(b, 1), 31 * 32 / 2); /* sum of lane ids */
		CHECK_INT(out_word(b, 2), (uint32_t)(5 - 31));
		CHECK_INT(out_word(b, 3), 4);  /* lowest lane of 0xfffffff0 */
		CHECK_INT(out_word(b, 4), 1);  /* lane 4 is the leader */
		CHECK_INT(out_word(b, 5), 0);  /* not all lanes < 20 */
	}
	ptem_free(e);
}

TEST(emu_warp_ldmatrix_stmatrix)
{
	/* shared: four 8x8 b16 matrices, element (m, i, j) = 256m + 16i + j
	 * at byte 128m + 16i + 2j; lane l addresses row l%8 of matrix l/8.
	 * Per the ISA's fragment figure, register m of lane l holds row
	 * l/4, columns 2(l%4) and 2(l%4)+1 (.trans: rows 2(l%4), 2(l%4)+1
	 * of column l/4), the lower column in the low half. */
	for (int trans = 0; trans < 2; trans++) {
		char b2[4096];
		snprintf(b2, sizeof(b2), "%s"
			 "\tmul.lo.s32 %%r2, %%r1, 8;\n"
			 "\tmov.u32 %%r3, sm;\n\tmov.u32 %%r4, 0;\n"
			 "$L_fill:\n\tadd.s32 %%r5, %%r2, %%r4;\n"
			 "\tshr.u32 %%r6, %%r5, 6;\n\tshl.b32 %%r6, %%r6, 8;\n"
			 "\tand.b32 %%r7, %%r5, 63;\n\tshr.u32 %%r8, %%r7, 3;\n"
			 "\tshl.b32 %%r8, %%r8, 4;\n\tand.b32 %%r9, %%r7, 7;\n"
			 "\tadd.s32 %%r6, %%r6, %%r8;\n\tadd.s32 %%r6, %%r6, %%r9;\n"
			 "\tshl.b32 %%r10, %%r5, 1;\n\tadd.s32 %%r10, %%r10, %%r3;\n"
			 "\tst.shared.u16 [%%r10], %%r6;\n"
			 "\tadd.s32 %%r4, %%r4, 1;\n\tsetp.lt.s32 %%p1, %%r4, 8;\n"
			 "\t@%%p1 bra $L_fill;\n\tbar.sync 0;\n"
			 "\tshl.b32 %%r11, %%r1, 4;\n\tadd.s32 %%r11, %%r11, %%r3;\n"
			 "\tldmatrix.sync.aligned.m8n8.x4%s.shared.b16 "
			 "{%%r12, %%r13, %%r14, %%r15}, [%%r11];\n"
			 "\tmul.wide.u32 %%rd2, %%r1, 16;\n"
			 "\tadd.s64 %%rd3, %%rd1, %%rd2;\n"
			 "\tst.global.v4.u32 [%%rd3], {%%r12, %%r13, %%r14, %%r15};\n"
			 "\tret;\n", regs, trans ? ".trans" : "");
		/* the out buffer is 256 bytes: 32 lanes x 16 needs 512 */
		char ptx[8192];
		snprintf(ptx, sizeof(ptx),
			 "%s.visible .entry k(.param .u64 out)\n{\n%s}\n",
			 kernel_head, b2);
		ptem *e = ptem_new();
		uint64_t out = 0;
		CHECK_INT(ptem_load(e, ptx, strlen(ptx)), PT_OK);
		ptem_alloc(e, 512, &out);
		ptem_arg args[] = {{&out, 8}};
		ptem_launch l = {{1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 0, 0, 0};
		CHECK_INT(ptem_run(e, "k", &l, args, 1), PT_OK);
		const uint8_t *b = ptem_host(e, out, 512);
		for (int ln = 0; ln < 32; ln++)
			for (int m = 0; m < 4; m++) {
				int g = ln / 4, q = ln % 4;
				uint32_t lo = trans ? 256 * m + 16 * (2 * q) + g
						    : 256 * m + 16 * g + 2 * q;
				uint32_t hi = trans ? lo + 16 : lo + 1;
				CHECK_INT(out_word(b, 4 * ln + m), lo | hi << 16);
			}
		ptem_free(e);
	}
	/* stmatrix is the inverse: registers from ldmatrix stored back
	 * reproduce shared memory */
	char b3[4096];
	snprintf(b3, sizeof(b3), "%s"
		 "\tmov.u32 %%r3, sm;\n\tshl.b32 %%r11, %%r1, 4;\n"
		 "\tadd.s32 %%r11, %%r11, %%r3;\n"
		 "\tmul.lo.s32 %%r12, %%r1, 3;\n\tadd.s32 %%r13, %%r12, 1000;\n"
		 "\tstmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%%r11], "
		 "{%%r12, %%r13};\n\tbar.sync 0;\n"
		 "\tsetp.ge.u32 %%p1, %%r1, 16;\n\t@%%p1 ret;\n"
		 "\tld.shared.v4.u32 {%%r4, %%r5, %%r6, %%r7}, [%%r11];\n"
		 "\tmul.wide.u32 %%rd2, %%r1, 16;\n\tadd.s64 %%rd3, %%rd1, %%rd2;\n"
		 "\tst.global.v4.u32 [%%rd3], {%%r4, %%r5, %%r6, %%r7};\n"
		 "\tret;\n", regs);
	ptem *e;
	uint8_t *b;
	CHECK_INT(run_small(b3, 32, 0, &e, &b), PT_OK);
	for (int m = 0; b && m < 2; m++)
		for (int i = 0; i < 8; i++)
			for (int j = 0; j < 8; j++) {
				/* element (i, j) of matrix m came from lane
				 * 4j + i/2, half i%2 (transposed) */
				int ln = 4 * j + i / 2;
				uint32_t reg = m ? (uint32_t)(3 * ln + 1000)
						 : (uint32_t)(3 * ln);
				uint16_t want = (uint16_t)(i % 2 ? reg >> 16 : reg);
				uint16_t got;
				memcpy(&got, b + 128 * m + 16 * i + 2 * j, 2);
				CHECK_INT(got, want);
			}
	ptem_free(e);
}

static uint16_t
to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16); /* exact for the values used here */
}

static double
from_bf16(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* ---- mma.sync of every type: fragments from the PTX ISA's figures ----
 * One warp; lane l loads its na + nb + nc 32-bit A, B, C registers from
 * in[l][...] and stores its nd D registers to out[l][...] (64-bit words
 * for f64).  The host places matrix elements in the registers by the
 * ISA's fragment tables ("Matrix fragments for mma.m16n8k4/k8/k16/k32",
 * "mma.m8n8k4 with .f64"), g = l / 4, q = l % 4:
 *   A (m16n8kK, per = 32 / bits elements a register): register j, element
 *     e is A[g + 8 (j % 2)][per q + e + 4 per (j / 2)]
 *   B: register j, element e is B[per q + e + 4 per j][g]
 *   C/D (f32/s32): register i is C[g + 8 (i / 2)][2 q + i % 2]
 *   f64 m8n8k4: A[g][q], B[q][g], C/D register i C[g][2 q + i]
 * and computes D = A B + C itself. */
static int
run_mma_warp(const char *mma, int na, int nb, int nc, int nd, int wbytes,
	     const void *in, size_t in_size, void *out, size_t out_size)
{
	char ptx[8192], decl[512], loads[4096], stores[1024];
	int nin = na + nb + nc, p = 0, q = 0;
	const char *ty = wbytes == 8 ? "b64" : "b32";
	const char *rr = wbytes == 8 ? "%rd" : "%r";
	for (int i = 0; i < nin; i++)
		p += snprintf(loads + p, sizeof(loads) - (size_t)p,
			      "\tld.global.%s %s%d, [%%rd3+%d];\n", ty, rr,
			      10 + i, wbytes * i);
	for (int i = 0; i < nd; i++)
		q += snprintf(stores + q, sizeof(stores) - (size_t)q,
			      "\tst.global.%s [%%rd4+%d], %s%d;\n", ty,
			      wbytes * i, rr, 40 + i);
	char grp[4][200];
	int first[4] = {40, 10, 10 + na, 10 + na + nb}, cnt[4] = {nd, na, nb, nc};
	for (int g = 0; g < 4; g++) {
		int o = snprintf(grp[g], sizeof(grp[g]), "{");
		for (int i = 0; i < cnt[g]; i++)
			o += snprintf(grp[g] + o, sizeof(grp[g]) - (size_t)o,
				      "%s%s%d", i ? ", " : "", rr, first[g] + i);
		snprintf(grp[g] + o, sizeof(grp[g]) - (size_t)o, "}");
	}
	snprintf(decl, sizeof(decl), "\t.reg .b32 %%r<60>;\n\t.reg .b64 %%rd<60>;\n");
	snprintf(ptx, sizeof(ptx),
		 "%s.visible .entry k(.param .u64 in, .param .u64 out)\n{\n%s"
		 "\tld.param.u64 %%rd1, [in];\n\tld.param.u64 %%rd2, [out];\n"
		 "\tmov.u32 %%r1, %%laneid;\n"
		 "\tmul.wide.u32 %%rd5, %%r1, %d;\n\tadd.s64 %%rd3, %%rd1, %%rd5;\n"
		 "\tmul.wide.u32 %%rd6, %%r1, %d;\n\tadd.s64 %%rd4, %%rd2, %%rd6;\n"
		 "%s\t%s %s, %s, %s, %s;\n%s\tret;\n}\n",
		 kernel_head, decl, nin * wbytes, nd * wbytes, loads, mma,
		 grp[0], grp[1], grp[2], grp[3], stores);
	ptem *e = ptem_new();
	uint64_t ain = 0, aout = 0;
	int st = ptem_load(e, ptx, strlen(ptx));
	if (st == PT_OK)
		st = ptem_alloc(e, in_size, &ain);
	if (st == PT_OK)
		st = ptem_alloc(e, out_size, &aout);
	if (st == PT_OK) {
		memcpy(ptem_host(e, ain, in_size), in, in_size);
		ptem_arg args[] = {{&ain, 8}, {&aout, 8}};
		ptem_launch l = {{1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 0, 0, 0};
		st = ptem_run(e, "k", &l, args, 2);
	}
	if (st == PT_OK)
		memcpy(out, ptem_host(e, aout, out_size), out_size);
	else
		fprintf(stderr, "run_mma_warp: %s\n", ptem_errmsg(e));
	ptem_free(e);
	return st;
}

static uint64_t
rnd_u64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* e4m3 bits of v = m * 2^x (|m| < 8 integer, v a normal e4m3 value) */
static uint32_t
e4m3_bits(double v)
{
	uint32_t s = v < 0 ? 0x80 : 0;
	double a = fabs(v);
	if (a == 0)
		return s;
	int e;
	double fr = frexp(a, &e); /* a = fr 2^e, fr in [0.5, 1) */
	uint32_t mant = (uint32_t)lround((fr * 2 - 1) * 8);
	return s | (uint32_t)(e - 1 + 7) << 3 | mant;
}

TEST(emu_mma_sync_types)
{
	enum { M = 16, N = 8 };
	uint64_t seed = 12345;
	/* s8 x u8 m16n8k32 .satfinite: A in [-128, 127], B in [0, 255], C
	 * near the int32 limits so some sums clamp */
	{
		int K = 32, na = 4, nb = 2, nc = 4;
		int32_t A[16][32], B[32][8], C[16][8];
		uint32_t in[32][10] = {{0}}, out[32][4];
		for (int m = 0; m < M; m++)
			for (int k = 0; k < K; k++)
				A[m][k] = (int)(rnd_u64(&seed) % 256) - 128;
		for (int k = 0; k < K; k++)
			for (int n = 0; n < N; n++)
				B[k][n] = (int)(rnd_u64(&seed) % 256);
		for (int m = 0; m < M; m++)
			for (int n = 0; n < N; n++)
				C[m][n] = (m + n) % 3 == 0 ? INT32_MAX - 1000
					: (m + n) % 3 == 1 ? INT32_MIN + 1000
							   : (int32_t)(m * 8 + n);
		for (int l = 0; l < 32; l++) {
			int g = l / 4, q = l % 4;
			for (int j = 0; j < na; j++)
				for (int e = 0; e < 4; e++)
					in[l][j] |= (uint32_t)(A[g + 8 * (j % 2)][4 * q + e + 16 * (j / 2)] & 0xff) << (8 * e);
			for (int j = 0; j < nb; j++)
				for (int e = 0; e < 4; e++)
					in[l][na + j] |= (uint32_t)B[4 * q + e + 16 * j][g] << (8 * e);
			for (int i = 0; i < nc; i++)
				in[l][na + nb + i] = (uint32_t)C[g + 8 * (i / 2)][2 * q + i % 2];
		}
		CHECK_INT(run_mma_warp("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32",
				       na, nb, nc, 4, 4, in, sizeof(in), out, sizeof(out)), PT_OK);
		int bad = 0;
		for (int l = 0; l < 32; l++)
			for (int i = 0; i < 4; i++) {
				int g = l / 4, q = l % 4, m = g + 8 * (i / 2), n = 2 * q + i % 2;
				int64_t d = C[m][n];
				for (int k = 0; k < K; k++)
					d += (int64_t)A[m][k] * B[k][n];
				int32_t want = d > INT32_MAX ? INT32_MAX : d < INT32_MIN ? INT32_MIN : (int32_t)d;
				bad += (int32_t)out[l][i] != want;
			}
		CHECK_INT(bad, 0);
	}
	/* tf32 m16n8k8 and e4m3 x e4m3 m16n8k32: A multiples of 1/4 in
	 * [-1.75, 1.75], B of 1/2 in [-3.5, 3.5] (exact in tf32 and e4m3), every sum exact in f32 */
	for (int variant = 0; variant < 2; variant++) {
		bool tf = variant == 0;
		int K = tf ? 8 : 32, per = tf ? 1 : 4;
		int na = K / (2 * per), nb = K / (4 * per), nc = 4;
		double A[16][32], B[32][8], C[16][8];
		uint32_t in[32][10] = {{0}}, out[32][4]; /* na + nb + nc = 10 */
		for (int m = 0; m < M; m++)
			for (int k = 0; k < K; k++)
				A[m][k] = (double)((int)(rnd_u64(&seed) % 15) - 7) / 4;
		for (int k = 0; k < K; k++)
			for (int n = 0; n < N; n++)
				B[k][n] = (double)((int)(rnd_u64(&seed) % 15) - 7) / 2;
		for (int m = 0; m < M; m++)
			for (int n = 0; n < N; n++)
				C[m][n] = (double)((int)(rnd_u64(&seed) % 64) - 32) / 8;
		for (int l = 0; l < 32; l++) {
			int g = l / 4, q = l % 4;
			for (int j = 0; j < na; j++)
				for (int e = 0; e < per; e++) {
					double v = A[g + 8 * (j % 2)][per * q + e + 4 * per * (j / 2)];
					in[l][j] |= tf ? (uint32_t)fbits((float)v) : e4m3_bits(v) << (8 * e);
				}
			for (int j = 0; j < nb; j++)
				for (int e = 0; e < per; e++) {
					double v = B[per * q + e + 4 * per * j][g];
					in[l][na + j] |= tf ? (uint32_t)fbits((float)v) : e4m3_bits(v) << (8 * e);
				}
			for (int i = 0; i < nc; i++)
				in[l][na + nb + i] = (uint32_t)fbits((float)C[g + 8 * (i / 2)][2 * q + i % 2]);
		}
		CHECK_INT(run_mma_warp(tf ? "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
					  : "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
				       na, nb, nc, 4, 4, in, sizeof(in), out, sizeof(out)), PT_OK);
		int bad = 0;
		for (int l = 0; l < 32; l++)
			for (int i = 0; i < 4; i++) {
				int g = l / 4, q = l % 4, m = g + 8 * (i / 2), n = 2 * q + i % 2;
				double d = C[m][n];
				for (int k = 0; k < K; k++)
					d += A[m][k] * B[k][n];
				bad += out[l][i] != fbits((float)d);
			}
		CHECK_INT(bad, 0);
	}
	/* f64 m8n8k4 */
	{
		double A[8][4], B[4][8], C[8][8];
		uint64_t in[32][4], out[32][2];
		for (int m = 0; m < 8; m++)
			for (int k = 0; k < 4; k++)
				A[m][k] = (double)((int)(rnd_u64(&seed) % 1000) - 500) / 16;
		for (int k = 0; k < 4; k++)
			for (int n = 0; n < 8; n++)
				B[k][n] = (double)((int)(rnd_u64(&seed) % 1000) - 500) / 8;
		for (int m = 0; m < 8; m++)
			for (int n = 0; n < 8; n++)
				C[m][n] = m - n;
		for (int l = 0; l < 32; l++) {
			int g = l / 4, q = l % 4;
			in[l][0] = dbits(A[g][q]);
			in[l][1] = dbits(B[q][g]);
			in[l][2] = dbits(C[g][2 * q]);
			in[l][3] = dbits(C[g][2 * q + 1]);
		}
		CHECK_INT(run_mma_warp("mma.sync.aligned.m8n8k4.row.col.rn.f64.f64.f64.f64",
				       1, 1, 2, 2, 8, in, sizeof(in), out, sizeof(out)), PT_OK);
		int bad = 0;
		for (int l = 0; l < 32; l++)
			for (int i = 0; i < 2; i++) {
				int g = l / 4, q = l % 4;
				double d = C[g][2 * q + i];
				for (int k = 0; k < 4; k++)
					d += A[g][k] * B[k][2 * q + i];
				bad += out[l][i] != dbits(d);
			}
		CHECK_INT(bad, 0);
	}
}

TEST(emu_script_tile_mma)
{
	/* tests/gpu/kernels/tile_mma.py: D = C + A @ B.T, bf16 inputs with
	 * 8 significant bits: products and sums of the values used are
	 * exact in f32, so D must equal the host sum exactly */
	enum { M = 32, N = 16, K = 32 };
	static uint16_t a[M * K], bm[N * K];
	static float c[M * N], d[M * N];
	for (int i = 0; i < M * K; i++)
		a[i] = to_bf16((float)((i * 7) % 17 - 8) * 0.25f);
	for (int i = 0; i < N * K; i++)
		bm[i] = to_bf16((float)((i * 5) % 13 - 6) * 0.5f);
	for (int i = 0; i < M * N; i++)
		c[i] = (float)(i % 9) - 4.0f;
	SArg sa[] = {{a, sizeof(a), PTRT_UINT32, 2, {M, K / 2}, {0}},
		     {bm, sizeof(bm), PTRT_UINT32, 2, {N, K / 2}, {0}},
		     {c, sizeof(c), PTRT_FLOAT32, 2, {M, N}, {0}},
		     {d, sizeof(d), PTRT_FLOAT32, 2, {M, N}, {0}}};
	ScriptRun sr;
	if (script_run(t, &sr, "tests/gpu/kernels/tile_mma.py", "sm_90a", sa, 4,
		       0) == PT_OK) {
		const float *o = script_out(&sr, 3, sizeof(d));
		int bad = 0;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = c[i * N + j];
				for (int q = 0; q < K; q++)
					s += from_bf16(a[i * K + q]) *
					     from_bf16(bm[j * K + q]);
				bad += o[i * N + j] != (float)s;
			}
		CHECK_INT(bad, 0);
	}
	ptem_free(sr.e);
}

/* ---- tcgen05 ---- */

static const char tc_head[] =
	".version 8.6\n.target sm_100a\n.address_size 64\n"
	".visible .entry k(.param .u64 out)\n{\n"
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<64>;\n\t.reg .b64 %rd<8>;\n"
	"\t.shared .align 16 .b8 ta[4];\n"
	"\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n"
	"\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [ta], 32;\n"
	"\tbar.sync 0;\n\tld.shared.u32 %r2, [ta];\n"
	/* row image: cell (lane, col) = 1000 * lane + col, cols 0..15 */
	"\tmul.lo.s32 %r3, %r1, 1000;\n"
	"\tadd.s32 %r10, %r3, 0;\n\tadd.s32 %r11, %r3, 1;\n"
	"\tadd.s32 %r12, %r3, 2;\n\tadd.s32 %r13, %r3, 3;\n"
	"\tadd.s32 %r14, %r3, 4;\n\tadd.s32 %r15, %r3, 5;\n"
	"\tadd.s32 %r16, %r3, 6;\n\tadd.s32 %r17, %r3, 7;\n"
	"\tadd.s32 %r18, %r3, 8;\n\tadd.s32 %r19, %r3, 9;\n"
	"\tadd.s32 %r20, %r3, 10;\n\tadd.s32 %r21, %r3, 11;\n"
	"\tadd.s32 %r22, %r3, 12;\n\tadd.s32 %r23, %r3, 13;\n"
	"\tadd.s32 %r24, %r3, 14;\n\tadd.s32 %r25, %r3, 15;\n"
	"\ttcgen05.st.sync.aligned.32x32b.x16.b32 [%r2], {%r10, %r11, %r12, "
	"%r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23, "
	"%r24, %r25};\n\ttcgen05.wait::st.sync.aligned;\n"
	"\tmul.wide.u32 %rd2, %r1, 16;\n\tadd.s64 %rd3, %rd1, %rd2;\n";
static const char tc_tail[] =
	"\ttcgen05.wait::ld.sync.aligned;\n"
	"\tst.global.v4.u32 [%rd3], {%r30, %r31, %r32, %r33};\n"
	"\tbar.sync 0;\n";
static const char tc_dealloc[] =
	"\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;\n";

static int
tc_run(const char *ld, const char *dealloc, uint32_t out[32][4], ptem **pe)
{
	char ptx[8192];
	snprintf(ptx, sizeof(ptx), "%s%s%s%s\tret;\n}\n", tc_head, ld, tc_tail,
		 dealloc);
	ptem *e = ptem_new();
	*pe = e;
	uint64_t o = 0;
	int st = ptem_load(e, ptx, strlen(ptx));
	if (!st)
		st = ptem_alloc(e, 512, &o);
	ptem_arg args[] = {{&o, 8}};
	ptem_launch l = {{1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 0, 0, 0};
	if (!st)
		st = ptem_run(e, "k", &l, args, 1);
	if (!st)
		memcpy(out, ptem_host(e, o, 512), 512);
	return st;
}

TEST(emu_tcgen05_shapes)
{
	/* each shape reads the row image back through its lane/column map
	 * (PTX ISA Table 49 and the tcgen05.ld fragment figures, as listed
	 * in ptx_facts.md §3.5): expected cell = 1000 * lane + column */
	static const struct {
		const char *ld;
		int nregs;
	} cases[] = {
		{"\ttcgen05.ld.sync.aligned.16x256b.x1.b32 {%r30, %r31, %r32, %r33}, [%r2];\n", 4},
		{"\ttcgen05.ld.sync.aligned.16x128b.x2.b32 {%r30, %r31, %r32, %r33}, [%r2];\n", 4},
		{"\ttcgen05.ld.sync.aligned.16x64b.x4.b32 {%r30, %r31, %r32, %r33}, [%r2];\n", 4},
		{"\ttcgen05.ld.sync.aligned.32x32b.x4.pack::16b.b32 {%r30, %r31, %r32, %r33}, [%r2];\n", 4},
		{"\ttcgen05.ld.sync.aligned.16x32bx2.x4.b32 {%r30, %r31, %r32, %r33}, [%r2], 1048584;\n", 4},
	};
	for (size_t k = 0; k < countof(cases); k++) {
		uint32_t o[32][4];
		ptem *e;
		int st = tc_run(cases[k].ld, tc_dealloc, o, &e);
		CHECK_INT(st, PT_OK);
		if (st) {
			fprintf(stderr, "  %s\n", ptem_errmsg(e));
			ptem_free(e);
			continue;
		}
		for (uint32_t ln = 0; ln < 32; ln++)
			for (uint32_t i = 0; i < 4; i++) {
				uint32_t g = ln / 4, c = ln % 4, lane, col;
				uint32_t want;
				switch (k) {
				case 0: /* r0,r1 (g, 2c..), r2,r3 (g+8, 2c..) */
					lane = g + 8 * (i / 2);
					col = 2 * c + i % 2;
					want = 1000 * lane + col;
					break;
				case 1: /* r(2j) (g, c + 4j), r(2j+1) (g+8, ..) */
					lane = g + 8 * (i % 2);
					col = c + 4 * (i / 2);
					want = 1000 * lane + col;
					break;
				case 2: /* (t/4 + 8(t%2), (t/2)%2 + 2i) */
					lane = g + 8 * (ln % 2);
					col = (ln / 2) % 2 + 2 * i;
					want = 1000 * lane + col;
					break;
				case 3: /* low halves of columns 2i, 2i+1 */
					want = ((1000 * ln + 2 * i) & 0xffff) |
					       ((1000 * ln + 2 * i + 1) & 0xffff) << 16;
					break;
				default: /* lanes 16..31: +16 lanes, +8 columns */
					want = ln < 16 ? 1000 * ln + i
						       : 1000 * ln + 8 + i;
				}
				CHECK_INT(o[ln][i], want);
			}
		ptem_free(e);
	}
	/* PT_E_EMU_TMEM: left allocated at exit; columns not allocated */
	uint32_t o[32][4];
	ptem *e;
	CHECK_INT(tc_run(cases[0].ld, "", o, &e), PT_E_EMU_TMEM);
	CHECK(strstr(ptem_errmsg(e), "dealloc") != NULL);
	ptem_free(e);
	CHECK_INT(tc_run("\ttcgen05.ld.sync.aligned.32x32b.x4.b32 {%r30, %r31, "
			 "%r32, %r33}, [%r2+30];\n", tc_dealloc, o, &e),
		  PT_E_EMU_TMEM);
	ptem_free(e);
}

TEST(emu_script_tcgen05_ld_16x32bx2)
{
	/* examples/tcgen05_ld_16x32bx2.py, its stated result:
	 * B[t, c] == A[t, c + (8 if t % 32 >= 16 else 0)] */
	static uint32_t a[128][16], b[128][4];
	for (int i = 0; i < 128 * 16; i++)
		a[i / 16][i % 16] = (uint32_t)i * 2654435761u;
	SArg sa[] = {{a, sizeof(a), PTRT_UINT32, 2, {128, 16}, {0}},
		     {b, sizeof(b), PTRT_UINT32, 2, {128, 4}, {0}}};
	ScriptRun sr;
	if (script_run(t, &sr, "examples/tcgen05_ld_16x32bx2.py", "sm_100a", sa,
		       2, 0) == PT_OK) {
		const uint32_t (*o)[4] = script_out(&sr, 1, sizeof(b));
		for (int i = 0; i < 128; i++)
			for (int c = 0; c < 4; c++)
				CHECK_INT(o[i][c], a[i][c + (i % 32 >= 16 ? 8 : 0)]);
	}
	ptem_free(sr.e);
}

/* ---- TMA (cp.async.bulk.tensor) ---- */

TEST(emu_script_tma_gather4)
{
	/* examples/tma_gather4.py: B[k, :] == A[row + (0, 3, 7, 11)[k], :] */
	static uint32_t a[64][32], b[4][32];
	for (int i = 0; i < 64 * 32; i++)
		a[i / 32][i % 32] = (uint32_t)i * 40503u + 7;
	for (unsigned flags = 0; flags <= PTEM_LATE_COMPLETION; flags++) {
		SArg sa[] = {{a, sizeof(a), PTRT_UINT32, 2, {64, 32}, {0}},
			     {b, sizeof(b), PTRT_UINT32, 2, {4, 32}, {0}},
			     {NULL, 0, 0, 0, {0}, ptrt_arg_i32(45)}};
		ScriptRun sr;
		static const int off[4] = {0, 3, 7, 11};
		if (script_run(t, &sr, "examples/tma_gather4.py", "sm_100a", sa,
			       3, flags) == PT_OK) {
			const uint32_t (*o)[32] = script_out(&sr, 1, sizeof(b));
			for (int k = 0; k < 4; k++)
				for (int j = 0; j < 32; j++)
					CHECK_INT(o[k][j], a[45 + off[k]][j]);
		}
		ptem_free(sr.e);
	}
}

TEST(emu_script_tma_swizzle_store_reduce)
{
	enum { M = 128 };
	static uint16_t a[M][64], b[M][64], raw[M][64];
	for (int i = 0; i < M * 64; i++)
		a[i / 64][i % 64] = (uint16_t)(i * 7 + 3);
	SArg sa[] = {{a, sizeof(a), PTRT_FLOAT16, 2, {M, 64}, {0}},
		     {b, sizeof(b), PTRT_FLOAT16, 2, {M, 64}, {0}},
		     {raw, sizeof(raw), PTRT_FLOAT16, 2, {M, 64}, {0}}};
	ScriptRun sr;
	if (script_run(t, &sr, "examples/tma_load_swizzle.py", "sm_90a", sa, 3,
		       PTEM_LATE_COMPLETION) == PT_OK) {
		const uint16_t (*o)[64] = script_out(&sr, 1, sizeof(b));
		const uint16_t (*w)[64] = script_out(&sr, 2, sizeof(raw));
		CHECK(memcmp(o, a, sizeof(a)) == 0);
		/* 128B swizzle (CUTLASS Swizzle<3,4,3>): byte offset x of the
		 * image holds logical byte x ^ ((x >> 7) & 7) << 4 */
		int bad = 0;
		for (int cta = 0; cta < M / 64; cta++)
			for (int p = 0; p < 64 * 64; p++) {
				uint32_t x = 2u * (uint32_t)p;
				uint32_t lg = (x ^ (((x >> 7) & 7) << 4)) / 2;
				bad += w[64 * cta + p / 64][p % 64] !=
				       a[64 * cta + lg / 64][lg % 64];
			}
		CHECK_INT(bad, 0);
	}
	ptem_free(sr.e);

	/* tma_store: C[32 b + r, c] = 1000 b + 64 r + c */
	static float cbuf[64][64], x[64][64], d[64][64];
	SArg sc[] = {{cbuf, sizeof(cbuf), PTRT_FLOAT32, 2, {64, 64}, {0}}};
	if (script_run(t, &sr, "examples/tma_store.py", "sm_90a", sc, 1,
		       PTEM_LATE_COMPLETION) == PT_OK) {
		const float (*o)[64] = script_out(&sr, 0, sizeof(cbuf));
		for (int r = 0; r < 64; r++)
			for (int c = 0; c < 64; c++)
				CHECK(o[r][c] == (float)(1000 * (r / 32) +
							 64 * (r % 32) + c));
	}
	ptem_free(sr.e);
	/* tma_reduce_add: D += X */
	for (int i = 0; i < 64 * 64; i++) {
		x[i / 64][i % 64] = (float)(i % 13) - 6.0f;
		d[i / 64][i % 64] = (float)(i % 5) * 0.5f;
	}
	SArg sd[] = {{x, sizeof(x), PTRT_FLOAT32, 2, {64, 64}, {0}},
		     {d, sizeof(d), PTRT_FLOAT32, 2, {64, 64}, {0}}};
	if (script_run(t, &sr, "examples/tma_reduce_add.py", "sm_90a", sd, 2,
		       PTEM_LATE_COMPLETION) == PT_OK) {
		const float (*o)[64] = script_out(&sr, 1, sizeof(d));
		for (int i = 0; i < 64 * 64; i++)
			CHECK(o[i / 64][i % 64] ==
			      x[i / 64][i % 64] + d[i / 64][i % 64]);
	}
	ptem_free(sr.e);
}

TEST(emu_script_tma_multicast_3d)
{
	/* tma_multicast: both CTAs of cluster c hold A[32 c .. 32 c + 31];
	 * CTA rank r writes its copy to B rows 32 (2 c + r) .. */
	static float a[64][64], b[128][64];
	for (int i = 0; i < 64 * 64; i++)
		a[i / 64][i % 64] = (float)i;
	SArg sa[] = {{a, sizeof(a), PTRT_FLOAT32, 2, {64, 64}, {0}},
		     {b, sizeof(b), PTRT_FLOAT32, 2, {128, 64}, {0}}};
	ScriptRun sr;
	if (script_run(t, &sr, "examples/tma_multicast.py", "sm_90a", sa, 2,
		       PTEM_LATE_COMPLETION) == PT_OK) {
		const float (*o)[64] = script_out(&sr, 1, sizeof(b));
		for (int r = 0; r < 128; r++)
			for (int c = 0; c < 64; c++)
				CHECK(o[r][c] ==
				      a[32 * (r / 64) + r % 32][c]);
	}
	ptem_free(sr.e);
	/* tma_load_3d_steps: Y == X for a (8, 64, 32) tensor */
	static float x[8][64][32], y[8][64][32];
	for (int i = 0; i < 8 * 64 * 32; i++)
		(&x[0][0][0])[i] = (float)(i * 3 % 1001);
	SArg s3[] = {{x, sizeof(x), PTRT_FLOAT32, 3, {8, 64, 32}, {0}},
		     {y, sizeof(y), PTRT_FLOAT32, 3, {8, 64, 32}, {0}}};
	if (script_run(t, &sr, "examples/tma_load_3d_steps.py", "sm_90a", s3, 2,
		       0) == PT_OK)
		CHECK(memcmp(script_out(&sr, 1, sizeof(y)), x, sizeof(x)) == 0);
	ptem_free(sr.e);
}

/* The script at path with every line that starts with from[i] replaced
 * by to[i] (module constants substituted). */
static char *
shrunk_text(Arena *a, const char *path, const char *const *from,
	    const char *const *to, int n)
{
	size_t len = 0;
	char *src = read_file(a, path, &len);
	if (!src)
		return NULL;
	StrBuf b;
	sb_init(&b, a);
	for (char *line = src; *line;) {
		char *end = strchr(line, '\n');
		size_t l = end ? (size_t)(end - line) + 1 : strlen(line);
		int hit = -1;
		for (int i = 0; i < n && hit < 0; i++)
			if (!strncmp(line, from[i], strlen(from[i])))
				hit = i;
		if (hit >= 0)
			sb_printf(&b, "%s", to[hit]);
		else
			sb_putn(&b, line, l);
		line += l;
	}
	return (char *)sb_cstr(&b);
}

/* examples/gemm_bf16.py at one 128 x 128 tile (M = N = 128, K = 256, the
 * smallest K it allows): one CTA of 256 threads, cp.async pipeline,
 * ldmatrix, mma.sync.  Inputs are multiples of 1/8 in [-4, 4): every
 * product and partial sum is exact in f32, so C must be the exact dot
 * product rounded once to bf16 (nearest even), computed here. */
static char *
gemm_tile_text(Arena *a, const char *path, int m, int n, int k)
{
	static const char *const from[] = {"M = 4096\n", "N = 4096\n",
					   "K = 4096\n"};
	char *to[3];
	int v[3] = {m, n, k};
	for (int i = 0; i < 3; i++) {
		to[i] = NEWN(a, char, 32);
		snprintf(to[i], 32, "%c = %d\n", "MNK"[i], v[i]);
	}
	return shrunk_text(a, path, from, (const char *const *)to, 3);
}

static uint16_t
bf16_rne(double v)
{
	float f = (float)v; /* exact: the sums are exact in f32 */
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

TEST(emu_script_gemm_tile)
{
	enum { M = 128, N = 128, K = 256 };
	static uint16_t a[M * K], b[N * K], c[M * N];
	for (int i = 0; i < M * K; i++)
		a[i] = to_bf16((float)((i * 37 + 11) % 61 - 30) / 8.0f);
	for (int i = 0; i < N * K; i++)
		b[i] = to_bf16((float)((i * 53 + 5) % 59 - 29) / 8.0f);
	Arena ar;
	arena_init(&ar, NULL);
	char *text = gemm_tile_text(&ar, "examples/gemm_bf16.py", M, N, K);
	CHECK(text != NULL);
	SArg sa[] = {{a, sizeof(a), PTRT_BFLOAT16, 2, {M, K}, {0}},
		     {b, sizeof(b), PTRT_BFLOAT16, 2, {N, K}, {0}},
		     {c, sizeof(c), PTRT_BFLOAT16, 2, {M, N}, {0}}};
	ScriptRun sr;
	if (text && script_run_text(t, &sr, "gemm_bf16 (128x128x256)", text,
				    "sm_90a", sa, 3, PTEM_LATE_COMPLETION) ==
			    PT_OK) {
		const uint16_t *o = script_out(&sr, 2, sizeof(c));
		int bad = 0;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;
				for (int q = 0; q < K; q++)
					s += from_bf16(a[i * K + q]) *
					     from_bf16(b[j * K + q]);
				bad += o[i * N + j] != bf16_rne(s);
			}
		CHECK_INT(bad, 0);
	}
	ptem_free(sr.e);
	arena_free(&ar);
}

/* tcgen05.mma.cta_group::1.kind::f16, bf16 x bf16 -> f32, M128 N64 and
 * K 32 as two MMAs (the second descriptor 32 bytes further, enable-input-d
 * false then true), A (128 x 64) and B (64 x 64) K-major with the 128B
 * swizzle: the images are built here from the ISA's canonical K-major
 * layout (row r at (r % 8) * 128 + (r / 8) * SBO, SBO = 1024, then 16-byte
 * chunk bits [4,7) ^= bits [7,10)), copied to 1024-aligned shared memory,
 * and D is read back with tcgen05.ld 32x32b.x1 per column.  Every value is
 * a multiple of 1/8 in [-4, 4): D must equal the host's exact sums. */
static const char mma_ptx[] =
	".version 8.6\n.target sm_100a\n.address_size 64\n"
	".visible .entry k(.param .u64 ga, .param .u64 gb, .param .u64 out,\n"
	"  .param .u32 idesc)\n{\n"
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<20>;\n"
	"\t.shared .align 1024 .b8 sa[16384];\n"
	"\t.shared .align 1024 .b8 sb[8192];\n"
	"\t.shared .align 8 .b8 bar[8];\n\t.shared .align 4 .b8 ta[4];\n"
	"\tld.param.u64 %rd1, [ga];\n\tld.param.u64 %rd2, [gb];\n"
	"\tld.param.u64 %rd3, [out];\n\tld.param.u32 %r30, [idesc];\n"
	"\tmov.u32 %r1, %tid.x;\n\tshr.u32 %r2, %r1, 5;\n"
	"\tsetp.eq.u32 %p1, %r2, 0;\n\t@!%p1 bra $L_noalloc;\n"
	"\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [ta], 64;\n"
	"$L_noalloc:\n"
	"\tsetp.eq.u32 %p2, %r1, 0;\n\t@%p2 mbarrier.init.shared.b64 [bar], 1;\n"
	/* copy the images: 16 bytes per step */
	"\tmov.u32 %r3, %r1;\n"
	"$L_ca:\n\tmul.wide.u32 %rd4, %r3, 16;\n\tadd.s64 %rd5, %rd1, %rd4;\n"
	"\tld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd5];\n"
	"\tmov.u32 %r4, sa;\n\tshl.b32 %r5, %r3, 4;\n\tadd.s32 %r4, %r4, %r5;\n"
	"\tst.shared.v4.u32 [%r4], {%r10, %r11, %r12, %r13};\n"
	"\tadd.s32 %r3, %r3, 128;\n\tsetp.lt.u32 %p3, %r3, 1024;\n"
	"\t@%p3 bra $L_ca;\n\tmov.u32 %r3, %r1;\n"
	"$L_cb:\n\tmul.wide.u32 %rd4, %r3, 16;\n\tadd.s64 %rd5, %rd2, %rd4;\n"
	"\tld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd5];\n"
	"\tmov.u32 %r4, sb;\n\tshl.b32 %r5, %r3, 4;\n\tadd.s32 %r4, %r4, %r5;\n"
	"\tst.shared.v4.u32 [%r4], {%r10, %r11, %r12, %r13};\n"
	"\tadd.s32 %r3, %r3, 128;\n\tsetp.lt.u32 %p3, %r3, 512;\n"
	"\t@%p3 bra $L_cb;\n"
	"\tfence.proxy.async.shared::cta;\n"
	"\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n"
	"\ttcgen05.fence::after_thread_sync;\n\tld.shared.u32 %r6, [ta];\n"
	"\t@!%p2 bra $L_wait;\n"
	/* descriptors: 128B swizzle (2 << 61), version (1 << 46), SBO 1024
	 * (64 << 32), LBO 16 (1 << 16), start >> 4 */
	"\tmov.u32 %r7, sa;\n\tshr.u32 %r7, %r7, 4;\n\tcvt.u64.u32 %rd6, %r7;\n"
	"\tmov.u32 %r8, sb;\n\tshr.u32 %r8, %r8, 4;\n\tcvt.u64.u32 %rd7, %r8;\n"
	"\tmov.b64 %rd8, 0x4000404000010000;\n"
	"\tor.b64 %rd6, %rd6, %rd8;\n\tor.b64 %rd7, %rd7, %rd8;\n"
	"\tsetp.ne.u32 %p3, %r1, 0;\n"
	"\ttcgen05.mma.cta_group::1.kind::f16 [%r6], %rd6, %rd7, %r30, %p3;\n"
	"\tadd.s64 %rd6, %rd6, 2;\n\tadd.s64 %rd7, %rd7, 2;\n"
	"\tsetp.eq.u32 %p3, %r1, 0;\n"
	"\ttcgen05.mma.cta_group::1.kind::f16 [%r6], %rd6, %rd7, %r30, %p3;\n"
	"\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];\n"
	"$L_wait:\n"
	"\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;\n"
	"\t@!%p3 bra $L_wait;\n\ttcgen05.fence::after_thread_sync;\n"
	/* warp w reads lanes 32w..: D[lane][n] for n = 0..63 */
	"\tshl.b32 %r9, %r2, 21;\n\tadd.s32 %r9, %r9, %r6;\n"
	"\tmov.u32 %r20, 0;\n"
	"$L_rd:\n\tadd.s32 %r21, %r9, %r20;\n"
	"\ttcgen05.ld.sync.aligned.32x32b.x1.b32 {%r22}, [%r21];\n"
	"\ttcgen05.wait::ld.sync.aligned;\n"
	"\tmul.lo.s32 %r23, %r1, 64;\n\tadd.s32 %r23, %r23, %r20;\n"
	"\tmul.wide.u32 %rd9, %r23, 4;\n\tadd.s64 %rd10, %rd3, %rd9;\n"
	"\tst.global.u32 [%rd10], %r22;\n"
	"\tadd.s32 %r20, %r20, 1;\n\tsetp.lt.u32 %p3, %r20, 64;\n"
	"\t@%p3 bra $L_rd;\n"
	"\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n"
	"\t@!%p1 bra $L_end;\n"
	"\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r6, 64;\n"
	"$L_end:\n\tret;\n}\n";

static void
place_kmajor_128b(uint8_t *img, int rows, const uint16_t *v, int kdim)
{
	for (int r = 0; r < rows; r++)
		for (int k = 0; k < kdim; k++) {
			uint32_t off = (uint32_t)((r % 8) * 128 + (r / 8) * 1024 +
						  2 * k);
			off ^= ((off >> 7) & 7) << 4;
			memcpy(img + off, &v[r * kdim + k], 2);
		}
}

/* bf16 operand values: multiples of 1/8 in [-4, 4), so every product
 * and partial sum is exact in f32 and C is the exact sum rounded once. */
static uint16_t
wg_val(int i, int mul, int add, int mod)
{
	return to_bf16((float)((i * mul + add) % mod - mod / 2) / 8.0f);
}

/* One run of script (examples/gemm_wgmma.py or its direct-store
 * variant) at runtime sizes m x n x k with grid min(sms, tiles); C
 * (poisoned with 0xFFFF, followed by 64 guard elements) against the host
 * product: every element in C equals it and the guard is untouched (the
 * clipped or masked edge stores stay inside C). */
static void
gemm_wgmma_check(TestCtx *t, const char *script, int m, int n, int k,
		 int sms, unsigned flags)
{
	enum { GUARD = 64 };
	size_t na = (size_t)m * k, nb = (size_t)n * k, nc = (size_t)m * n;
	uint16_t *a = malloc(na * 2), *b = malloc(nb * 2),
		 *c = malloc((nc + GUARD) * 2);
	if (!a || !b || !c) {
		CHECK(0);
		goto out;
	}
	for (size_t i = 0; i < na; i++)
		a[i] = wg_val((int)(i % 100003), 37, 11, 61);
	for (size_t i = 0; i < nb; i++)
		b[i] = wg_val((int)(i % 100003), 53, 5, 59);
	memset(c, 0xFF, (nc + GUARD) * 2);
	SArg sa[] = {{a, na * 2, PTRT_BFLOAT16, 2, {m, k}, {0}},
		     {b, nb * 2, PTRT_BFLOAT16, 2, {n, k}, {0}},
		     {c, (nc + GUARD) * 2, PTRT_BFLOAT16, 2, {m, n}, {0}},
		     {NULL, 0, 0, 0, {0}, ptrt_arg_i32(sms)}};
	char name[96];
	snprintf(name, sizeof(name), "%s (%dx%dx%d)", script, m, n, k);
	ScriptRun sr;
	if (script_run(t, &sr, script, "sm_90a", sa, 4, flags) == PT_OK) {
		const uint16_t *o = script_out(&sr, 2, (nc + GUARD) * 2);
		int bad = 0, guard = 0;
		for (int i = 0; i < m; i++)
			for (int j = 0; j < n; j++) {
				double s = 0;
				for (int q = 0; q < k; q++)
					s += from_bf16(a[(size_t)i * k + q]) *
					     from_bf16(b[(size_t)j * k + q]);
				bad += o[(size_t)i * n + j] != bf16_rne(s);
			}
		for (int i = 0; i < GUARD; i++)
			guard += o[nc + i] != 0xFFFF;
		if (bad || guard)
			test_fail(t, __FILE__, __LINE__,
				  "%s: %d wrong, %d guard elements written",
				  name, bad, guard);
	}
	ptem_free(sr.e);
out:
	free(a);
	free(b);
	free(c);
}

TEST(emu_script_gemm_wgmma)
{
	/* examples/gemm_wgmma.py at 256 x 256 x 512: two 128 x 256 tiles
	 * (CTAs 0 and 1; the grid is min(sms, tiles)), eight k-tiles
	 * through the 4-stage ring (so the stages and their parities wrap),
	 * TMA with the 128B swizzle, wgmma m64n256k16 with the descriptors
	 * ptxtile builds, wait_group 1 pipelining, the epilogue through
	 * stmatrix and TMA stores from both CTAs of the cluster (and the
	 * direct-store variant); eager, then late completion with the race
	 * check */
	static const char *const s[] = {"examples/gemm_wgmma.py",
					"examples/gemm_wgmma_direct.py"};
	for (int i = 0; i < 2; i++) {
		gemm_wgmma_check(t, s[i], 256, 256, 512, 132, 0);
		gemm_wgmma_check(t, s[i], 256, 256, 512, 132,
				 PTEM_LATE_COMPLETION | PTEM_CHECK_RACES);
	}
}

TEST(emu_script_gemm_wgmma_ragged)
{
	/* runtime sizes off the tile grid: TMA zero fill past M, N and K
	 * (K = 72: one full and one 8-wide k-tile), masked edge stores;
	 * odd N (the direct variant's b16 stores), even ragged N (TMA
	 * stores clipped at M and N; the direct variant's b32 pairs), a
	 * single row, and one 2-CTA cluster (sms = 1) walking both 256-row
	 * blocks, its ring (and the TMA store's two C buffers) continuing
	 * across them; M = 300 has three 128-row tiles, so the second
	 * block's rank-1 CTA loads only zeros and stores nothing */
	static const char *const s[] = {"examples/gemm_wgmma.py",
					"examples/gemm_wgmma_direct.py"};
	gemm_wgmma_check(t, s[1], 129, 257, 72, 132, 0);
	gemm_wgmma_check(t, s[0], 129, 264, 72, 132, 0);
	for (int i = 0; i < 2; i++) {
		gemm_wgmma_check(t, s[i], 130, 264, 200, 132,
				 PTEM_LATE_COMPLETION);
		gemm_wgmma_check(t, s[i], 1, 8, 8, 132, 0);
		gemm_wgmma_check(t, s[i], 300, 200, 136, 1,
				 PTEM_LATE_COMPLETION | PTEM_CHECK_RACES);
	}
}

/* The launch of examples/gemm_wgmma.py at m x n x k is refused before
 * any driver call with status want, the message naming why. */
static void
gemm_wgmma_refused(TestCtx *t, int64_t m, int64_t n, int64_t k, int want,
		   const char *msg)
{
	Arena a;
	arena_init(&a, NULL);
	size_t len = 0;
	char *text = read_file(&a, "examples/gemm_wgmma.py", &len);
	pt_ctx *ctx = pt_ctx_new(NULL);
	pt_module *mod = NULL;
	const char *ptx = NULL, *meta = NULL;
	RtMeta rm;
	RtStatus rs;
	LaunchPlan plan;
	memset(&rs, 0, sizeof(rs));
	int st = text ? pt_load(ctx, "gemm_wgmma.py", text, len, &mod)
		      : PT_E_NOMEM;
	if (!st)
		st = pt_compile(ctx, mod, "sm_90a", &ptx, &meta);
	if (!st)
		st = meta_parse(&a, meta, strlen(meta), &rm, &rs);
	CHECK_INT(st, PT_OK);
	if (!st) {
		int64_t sa[2] = {m, k}, sb[2] = {n, k}, sc[2] = {m, n};
		ptrt_arg args[] = {
			ptrt_arg_tensor(0x10000, PTRT_BFLOAT16, 2, sa, NULL),
			ptrt_arg_tensor(0x20000000, PTRT_BFLOAT16, 2, sb, NULL),
			ptrt_arg_tensor(0x40000000, PTRT_BFLOAT16, 2, sc, NULL),
			ptrt_arg_i32(132)};
		CHECK_INT(launch_plan(&a, &rm.kernels[0], args, 4, &plan, &rs),
			  want);
		if (!strstr(rs.msg, msg))
			test_fail(t, __FILE__, __LINE__,
				  "message \"%s\" lacks \"%s\"", rs.msg, msg);
	}
	pt_ctx_free(ctx);
	arena_free(&a);
}

TEST(emu_gemm_wgmma_refused_sizes)
{
	/* TMA row strides are multiples of 16 bytes: K % 8 == 0 */
	gemm_wgmma_refused(t, 128, 256, 12, PT_E_RT_ARG_STRIDE,
			   "stride 24 bytes of dim 1 (innermost first) must "
			   "be a positive multiple of 16");
	/* an empty operand: a tensor map dim must be at least 1 */
	gemm_wgmma_refused(t, 0, 256, 64, PT_E_RT_TMA_LIMIT,
			   "size 0 of dim 1 (innermost first) is outside");
	/* K = 0: refused by the tensor map's limits (A, B and C are used
	 * only through tensor maps, so no dense-stride check runs) */
	gemm_wgmma_refused(t, 128, 256, 0, PT_E_RT_TMA_LIMIT,
			   "size 0 of dim 0 (innermost first) is outside");
	/* the TMA store of C: N % 8 == 0 (odd N is the direct variant's) */
	gemm_wgmma_refused(t, 128, 257, 64, PT_E_RT_ARG_STRIDE,
			   "tensor map \"C_tmap\": stride 514 bytes of dim 1");
}

/* out = text with the first occurrence of from replaced by to. */
static void
replace_first(char *out, size_t cap, const char *text, const char *from,
	      const char *to)
{
	const char *p = strstr(text, from);
	if (!p) {
		snprintf(out, cap, "%s", text);
		return;
	}
	snprintf(out, cap, "%.*s%s%s", (int)(p - text), text, to,
		 p + strlen(from));
}

/* mma_ptx with A in TMEM: every thread stores its A row (16 words: 32
 * bf16, two per cell, the lower k in the low half) with tcgen05.st
 * 32x32b.x16 at columns 64..79 of its lane; the MMAs read K 0..15 from
 * [ta + 64] and K 16..31 from [ta + 72]. */
static void
mma_a_tmem_ptx(char *out, size_t cap)
{
	static char x[8192], y[8192];
	static const char store[] =
		"\tmul.wide.u32 %rd11, %r1, 64;\n\tadd.s64 %rd11, %rd1, %rd11;\n"
		"\tld.global.v4.u32 {%q0, %q1, %q2, %q3}, [%rd11];\n"
		"\tld.global.v4.u32 {%q4, %q5, %q6, %q7}, [%rd11+16];\n"
		"\tld.global.v4.u32 {%q8, %q9, %q10, %q11}, [%rd11+32];\n"
		"\tld.global.v4.u32 {%q12, %q13, %q14, %q15}, [%rd11+48];\n"
		"\tshl.b32 %r31, %r2, 21;\n\tadd.s32 %r31, %r31, %r6;\n"
		"\tadd.s32 %r31, %r31, 64;\n"
		"\ttcgen05.st.sync.aligned.32x32b.x16.b32 [%r31], {%q0, %q1, "
		"%q2, %q3, %q4, %q5, %q6, %q7, %q8, %q9, %q10, %q11, %q12, "
		"%q13, %q14, %q15};\n\ttcgen05.wait::st.sync.aligned;\n"
		"\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n"
		"\ttcgen05.fence::after_thread_sync;\n"
		"\tadd.s32 %r31, %r6, 64;\n\tadd.s32 %r32, %r6, 72;\n"
		"\t@!%p2 bra $L_wait;\n";
	static const char mma[] =
		"tcgen05.mma.cta_group::1.kind::f16 [%r6], %rd6, %rd7";
	replace_first(x, sizeof(x), mma_ptx, "\t.reg .b32 %r<40>;\n",
		      "\t.reg .b32 %r<40>;\n\t.reg .b32 %q<16>;\n");
	replace_first(y, sizeof(y), x, "[ta], 64;", "[ta], 128;");
	replace_first(x, sizeof(x), y, "%r6, 64;", "%r6, 128;");
	replace_first(y, sizeof(y), x, "\t@!%p2 bra $L_wait;\n", store);
	replace_first(x, sizeof(x), y, mma,
		      "tcgen05.mma.cta_group::1.kind::f16 [%r6], [%r31], %rd7");
	replace_first(out, cap, x, mma,
		      "tcgen05.mma.cta_group::1.kind::f16 [%r6], [%r32], %rd7");
}

/* mma_ptx on a CTA pair (grid 2, cluster 2): CTA v copies its own A
 * image (rows 128 v.., 16 KiB apart in ga) and B image (rows 32 v..,
 * 8 KiB apart in gb); alloc/dealloc .cta_group::2; a cluster barrier
 * before CTA 0's thread 0 issues the two .cta_group::2 MMAs (M256 N64)
 * and commits with .multicast::cluster to both CTAs' barriers; each CTA
 * reads its 128 rows of D from its own TMEM to out + 32 KiB v. */
static void
mma_pair_ptx(char *out, size_t cap)
{
	static char x[8192], y[8192];
	static const char rank[] =
		"\tld.param.u32 %r30, [idesc];\n"
		"\tmov.u32 %r35, %cluster_ctarank;\n"
		"\tmul.wide.u32 %rd12, %r35, 16384;\n\tadd.s64 %rd1, %rd1, %rd12;\n"
		"\tmul.wide.u32 %rd12, %r35, 8192;\n\tadd.s64 %rd2, %rd2, %rd12;\n"
		"\tmul.wide.u32 %rd12, %r35, 32768;\n\tadd.s64 %rd3, %rd3, %rd12;\n"
		"\tmov.b16 %rs1, 3;\n";
	static const char mma1[] = "tcgen05.mma.cta_group::1.kind::f16";
	static const char mma2[] = "tcgen05.mma.cta_group::2.kind::f16";
	replace_first(x, sizeof(x), mma_ptx, "\t.reg .b32 %r<40>;\n",
		      "\t.reg .b32 %r<40>;\n\t.reg .b16 %rs<2>;\n");
	replace_first(y, sizeof(y), x, "\tld.param.u32 %r30, [idesc];\n",
		      rank);
	replace_first(x, sizeof(x), y, "alloc.cta_group::1", "alloc.cta_group::2");
	replace_first(y, sizeof(y), x, "dealloc.cta_group::1",
		      "dealloc.cta_group::2");
	replace_first(x, sizeof(x), y,
		      "tcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n",
		      "tcgen05.fence::before_thread_sync;\n"
		      "\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n");
	replace_first(y, sizeof(y), x, "\t@!%p2 bra $L_wait;\n",
		      "\tsetp.eq.and.u32 %p2, %r35, 0, %p2;\n"
		      "\t@!%p2 bra $L_wait;\n");
	replace_first(x, sizeof(x), y, mma1, mma2);
	replace_first(y, sizeof(y), x, mma1, mma2);
	replace_first(out, cap, y,
		      "tcgen05.commit.cta_group::1.mbarrier::arrive::one."
		      "shared::cluster.b64 [bar];",
		      "tcgen05.commit.cta_group::2.mbarrier::arrive::one."
		      "shared::cluster.multicast::cluster.b64 [bar], %rs1;");
}

/* One pair run of mma_pair_ptx with M = 256 (Layout A: CTA v's D rows
 * 128 v + i at its lane i) or M = 128 (Layout B, "M = 128 + cta_group::2
 * + dense A": CTA v holds A rows 64 v.. - the first 64 rows of its image -
 * and its D rows 64 v + i as a 2x2 data path: column n < N/2 at lane i,
 * column n; n >= N/2 at lane i + 64, column n - N/2, CUTLASS's
 * tmem_frg_2sm "2x2" atom for 64 rows per CTA); B rows 32 v.. in CTA v. */
static void
mma_pair_case(TestCtx *t, int M)
{
	enum { N = 64, K = 32 };
	static uint16_t a[256 * K], b[N * K];
	static uint8_t ia[2 * 16384], ib[2 * 8192];
	static char ptx[8192];
	int rows = M / 2;
	memset(ia, 0, sizeof(ia));
	for (int i = 0; i < M * K; i++)
		a[i] = to_bf16((float)((i * 31 + 5 + M) % 63 - 31) / 8.0f);
	for (int i = 0; i < N * K; i++)
		b[i] = to_bf16((float)((i * 41 + 7 + M) % 63 - 31) / 8.0f);
	place_kmajor_128b(ia, rows, a, K);
	place_kmajor_128b(ia + 16384, rows, a + rows * K, K);
	place_kmajor_128b(ib, 32, b, K);
	place_kmajor_128b(ib + 8192, 32, b + 32 * K, K);
	mma_pair_ptx(ptx, sizeof(ptx));
	CHECK(strstr(ptx, "cta_group::2.kind::f16 [%r6], %rd6") != NULL);
	ptem *e = ptem_new();
	uint64_t ga = 0, gb = 0, go = 0;
	/* D f32, A/B bf16, N >> 3 at bit 17, M >> 4 at bit 24 */
	uint32_t idesc = 1u << 4 | 1u << 7 | 1u << 10 | (N >> 3) << 17 |
			 (uint32_t)(M >> 4) << 24;
	int st = ptem_load(e, ptx, strlen(ptx));
	if (!st)
		st = ptem_alloc(e, sizeof(ia), &ga);
	if (!st)
		st = ptem_alloc(e, sizeof(ib), &gb);
	if (!st)
		st = ptem_alloc(e, (size_t)2 * 128 * N * 4, &go);
	if (!st) {
		memcpy(ptem_host(e, ga, sizeof(ia)), ia, sizeof(ia));
		memcpy(ptem_host(e, gb, sizeof(ib)), ib, sizeof(ib));
		ptem_arg args[] = {{&ga, 8}, {&gb, 8}, {&go, 8}, {&idesc, 4}};
		ptem_launch l = {{2, 1, 1}, {128, 1, 1}, {2, 1, 1}, 0,
				 PTEM_LATE_COMPLETION, 0};
		st = ptem_run(e, "k", &l, args, 4);
	}
	CHECK_INT(st, PT_OK);
	if (st) {
		fprintf(stderr, "  %s\n", ptem_errmsg(e));
	} else {
		const float *d = ptem_host(e, go, (size_t)2 * 128 * N * 4);
		int bad = 0;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;
				for (int q = 0; q < K; q++)
					s += from_bf16(a[i * K + q]) *
					     from_bf16(b[j * K + q]);
				int v = i / rows, lane = i % rows, col = j;
				if (M == 128) {
					lane += 64 * (j / 32);
					col = j % 32;
				}
				bad += d[(v * 128 + lane) * N + col] != (float)s;
			}
		CHECK_INT(bad, 0);
	}
	ptem_free(e);
}

TEST(emu_tcgen05_mma_pair)
{
	mma_pair_case(t, 256);
}

TEST(emu_tcgen05_mma_pair_layout_b)
{
	mma_pair_case(t, 128);
}

/* mma_ptx with .ws (B collector fill, a zero zero-column mask). */
static void
mma_ws_ptx(char *out, size_t cap)
{
	static char x[8192];
	static const char from[] =
		"tcgen05.mma.cta_group::1.kind::f16 [%r6], %rd6, %rd7, %r30, %p3;";
	static const char to[] =
		"mov.b64 %rd15, 0;\n\ttcgen05.mma.ws.cta_group::1.kind::f16."
		"collector::b0::fill [%r6], %rd6, %rd7, %r30, %p3, %rd15;";
	replace_first(x, sizeof(x), mma_ptx, from, to);
	replace_first(out, cap, x, from, to);
}

enum { MMA_SMEM, MMA_A_TMEM, MMA_WS128, MMA_WS64 };

/* A from shared memory (the 128B-swizzled image) or, MMA_A_TMEM, the
 * plain row-major A stored into TMEM by the kernel: the same D; .ws with
 * M 128 (Layout D, as without .ws) and M 64 (Layout E: D[m, n] at lane
 * m + 64 (n / 32), column n % 32 for N = 64). */
static void
tcgen05_mma_case(TestCtx *t, int form)
{
	enum { N = 64, K = 32 };
	bool a_tmem = form == MMA_A_TMEM;
	int M = form == MMA_WS64 ? 64 : 128;
	static uint16_t a[128 * K], b[N * K];
	static uint8_t ia[16384], ib[8192];
	static char ptx[8192];
	for (int i = 0; i < 128 * K; i++)
		a[i] = to_bf16((float)((i * 29 + 3) % 64 - 32) / 8.0f);
	for (int i = 0; i < N * K; i++)
		b[i] = to_bf16((float)((i * 43 + 9) % 64 - 32) / 8.0f);
	memset(ia, 0, sizeof(ia));
	if (a_tmem)
		memcpy(ia, a, sizeof(a));
	else
		place_kmajor_128b(ia, 128, a, K);
	place_kmajor_128b(ib, N, b, K);
	if (a_tmem)
		mma_a_tmem_ptx(ptx, sizeof(ptx));
	else if (form != MMA_SMEM)
		mma_ws_ptx(ptx, sizeof(ptx));
	else
		snprintf(ptx, sizeof(ptx), "%s", mma_ptx);
	ptem *e = ptem_new();
	uint64_t ga = 0, gb = 0, go = 0;
	/* kind::f16 idesc: D f32 (1 << 4), A/B bf16 (1 << 7, 1 << 10),
	 * N >> 3 at bit 17, M >> 4 at bit 24 (ptx_facts.md §2.1) */
	uint32_t idesc = 1u << 4 | 1u << 7 | 1u << 10 | (N >> 3) << 17 |
			 (M >> 4) << 24;
	CHECK_HEX(idesc, M == 128 ? 0x08100490u : 0x04100490u);
	int st = ptem_load(e, ptx, strlen(ptx));
	if (!st)
		st = ptem_alloc(e, sizeof(ia), &ga);
	if (!st)
		st = ptem_alloc(e, sizeof(ib), &gb);
	if (!st)
		st = ptem_alloc(e, (size_t)128 * N * 4, &go);
	if (!st) {
		memcpy(ptem_host(e, ga, sizeof(ia)), ia, sizeof(ia));
		memcpy(ptem_host(e, gb, sizeof(ib)), ib, sizeof(ib));
		ptem_arg args[] = {{&ga, 8}, {&gb, 8}, {&go, 8}, {&idesc, 4}};
		ptem_launch l = {{1, 1, 1}, {128, 1, 1}, {1, 1, 1}, 0, 0, 0};
		st = ptem_run(e, "k", &l, args, 4);
	}
	CHECK_INT(st, PT_OK);
	if (st) {
		fprintf(stderr, "  %s\n", ptem_errmsg(e));
	} else {
		const float *d = ptem_host(e, go, (size_t)128 * N * 4);
		int bad = 0;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;
				for (int q = 0; q < K; q++)
					s += from_bf16(a[i * K + q]) *
					     from_bf16(b[j * K + q]);
				int at = M == 128 ? i * N + j
					 : (i + 64 * (j / 32)) * N + j % 32;
				bad += d[at] != (float)s;
			}
		CHECK_INT(bad, 0);
	}
	ptem_free(e);
}

TEST(emu_tcgen05_mma)
{
	tcgen05_mma_case(t, MMA_SMEM);
}

TEST(emu_tcgen05_mma_a_tmem)
{
	tcgen05_mma_case(t, MMA_A_TMEM);
}

TEST(emu_tcgen05_mma_ws)
{
	tcgen05_mma_case(t, MMA_WS128);
	tcgen05_mma_case(t, MMA_WS64);
}

TEST(emu_race_check)
{
	/* thread i writes word i of shared memory and reads word i ^ 1:
	 * without the barrier between, PT_E_EMU_RACE names both threads;
	 * with it, the run is clean; without the check, nothing is said */
	const char *fmt = "%s"
		"\tmul.lo.s32 %%r2, %%r1, 4;\n\tmov.u32 %%r3, sm;\n"
		"\tadd.s32 %%r4, %%r3, %%r2;\n\tst.shared.u32 [%%r4], %%r1;\n%s"
		"\txor.b32 %%r5, %%r2, 4;\n\tadd.s32 %%r5, %%r3, %%r5;\n"
		"\tld.shared.u32 %%r6, [%%r5];\n"
		"\tcvt.u64.u32 %%rd2, %%r2;\n\tadd.s64 %%rd3, %%rd1, %%rd2;\n"
		"\tst.global.u32 [%%rd3], %%r6;\n\tret;\n";
	char body[4096];
	ptem *e;
	uint8_t *b;
	snprintf(body, sizeof(body), fmt, regs, "");
	CHECK_INT(run_small(body, 32, PTEM_CHECK_RACES, &e, &b), PT_E_EMU_RACE);
	/* threads run one after another: thread 0 has read word 1 when
	 * thread 1 writes it */
	CHECK(strstr(ptem_errmsg(e), "thread (1,0,0), PTX line 17") &&
	      strstr(ptem_errmsg(e), "thread (0,0,0) of CTA rank 0 read it at "
				     "PTX line 20"));
	ptem_free(e);
	CHECK_INT(run_small(body, 32, 0, &e, &b), PT_OK);
	ptem_free(e);
	snprintf(body, sizeof(body), fmt, regs, "\tbar.sync 0;\n");
	CHECK_INT(run_small(body, 32, PTEM_CHECK_RACES, &e, &b), PT_OK);
	for (int i = 0; b && i < 32; i++)
		CHECK_INT(out_word(b, i), i ^ 1);
	ptem_free(e);
	/* read after write: odd threads read what the even ones wrote */
	snprintf(body, sizeof(body), "%s"
		 "\tand.b32 %%r2, %%r1, 1;\n\tshr.u32 %%r3, %%r1, 1;\n"
		 "\tshl.b32 %%r3, %%r3, 2;\n\tmov.u32 %%r4, sm;\n"
		 "\tadd.s32 %%r4, %%r4, %%r3;\n\tsetp.eq.u32 %%p1, %%r2, 0;\n"
		 "\t@%%p1 st.shared.u32 [%%r4], %%r1;\n"
		 "\t@!%%p1 ld.shared.u32 %%r5, [%%r4];\n\tret;\n", regs);
	CHECK_INT(run_small(body, 32, PTEM_CHECK_RACES, &e, &b), PT_E_EMU_RACE);
	CHECK(strstr(ptem_errmsg(e), "thread (1,0,0), PTX line 21") &&
	      strstr(ptem_errmsg(e), "thread (0,0,0) of CTA rank 0 wrote it "
				     "at PTX line 20"));
	ptem_free(e);
}

/* The reader takes every PTX file ptxtile's golden tests hold (every
 * family ptxtile emits, sm_80 to sm_100a). */
TEST(emu_reads_every_golden)
{
	static const char *const names[] = {
		"casts", "cluster_copy", "control_flow", "ids_sync",
		"kernel_attrs", "memory", "scalars", "tile_bulk_copy",
		"tile_cp_async", "tile_ewise", "tile_ld_st", "tile_ldmatrix",
		"tile_ldmatrix_sm80", "tile_mma", "tile_mma_sm90a",
		"tile_registers", "tile_sm100", "tile_tcgen05_cp",
		"tile_tcgen05_ld_st", "tile_tcgen05_mma", "tile_tma",
		"tile_wgmma",
		"tile_tma_sm100",
	};
	for (size_t i = 0; i < countof(names); i++) {
		char path[128];
		snprintf(path, sizeof(path), "tests/golden/%s.ptx", names[i]);
		Arena a;
		arena_init(&a, NULL);
		size_t len = 0;
		char *text = read_file(&a, path, &len);
		CHECK(text != NULL);
		ptem *e = ptem_new();
		int st = text ? ptem_load(e, text, len) : -1;
		if (st != PT_OK)
			test_fail(t, __FILE__, __LINE__, "%s: %s", path,
				  ptem_errmsg(e));
		ptem_free(e);
		arena_free(&a);
	}
}

TEST(emu_script_tcgen05_gemm)
{
	/* examples/tcgen05_gemm.py: TMA (128B swizzle) + tcgen05.mma with
	 * the descriptors ptxtile builds + commit + tcgen05.ld; D[i, j] ==
	 * sum_k A[i, k] * B[j, k], exact here (multiples of 1/8 in [-4, 4)),
	 * in late completion mode with the race check on */
	enum { M = 128, N = 128, K = 64 };
	static uint16_t a[M * K], b[N * K];
	static float d[M * N];
	for (int i = 0; i < M * K; i++)
		a[i] = to_bf16((float)((i * 13 + 7) % 64 - 32) / 8.0f);
	for (int i = 0; i < N * K; i++)
		b[i] = to_bf16((float)((i * 59 + 1) % 64 - 32) / 8.0f);
	SArg sa[] = {{a, sizeof(a), PTRT_BFLOAT16, 2, {M, K}, {0}},
		     {b, sizeof(b), PTRT_BFLOAT16, 2, {N, K}, {0}},
		     {d, sizeof(d), PTRT_UINT32, 2, {M, N}, {0}}};
	ScriptRun sr;
	if (script_run(t, &sr, "examples/tcgen05_gemm.py", "sm_100a", sa, 3,
		       PTEM_LATE_COMPLETION | PTEM_CHECK_RACES) == PT_OK) {
		const float *o = script_out(&sr, 2, sizeof(d));
		int bad = 0;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;
				for (int q = 0; q < K; q++)
					s += from_bf16(a[i * K + q]) *
					     from_bf16(b[j * K + q]);
				bad += o[i * N + j] != (float)s;
			}
		CHECK_INT(bad, 0);
	}
	ptem_free(sr.e);
}

/* examples/gemm_mxf8_sm100.py shrunk to M = N = K = 256: one CTA pair
 * (grid 2, cluster 2), two k-tiles; tcgen05.alloc/cp/mma/commit
 * .cta_group::2, tcgen05.cp 32x128b.warpx4 of the scale images,
 * .kind::mxf8f6f4.block_scale.scale_vec::1X M256 N256 with A and B halves
 * in both CTAs' shared memory, the commit multicast to both CTAs.  A and
 * B are e4m3 codes of {0, +-0.5, +-1, +-2}, the UE8M0 scale exponents
 * 125..129, arranged as the script's header states (SFA[mt, kt, l, 4c + s]
 * = SA[128 mt + 32 c + l, 4 kt + s], SFB[nt, kt, h, l, 4c + s] = SB[256 nt
 * + 128 h + 32 c + l, 4 kt + s]); C[m, n] = sum_k A[m, k] 2^(SA[m, k/32]
 * - 127) B[n, k] 2^(SB[n, k/32] - 127), exact in f32 here. */
static double
e4m3_value(uint8_t b)
{
	int e = (b >> 3) & 15, m = b & 7;
	double v = e ? ldexp(1.0 + m / 8.0, e - 7) : ldexp(m / 8.0, -6);
	return (b & 0x80) ? -v : v;
}

TEST(emu_script_gemm_mxf8_sm100)
{
	enum { M = 256, N = 256, K = 256, KB = K / 32, KT = K / 128 };
	static const uint8_t codes[] = {0x00, 0x30, 0xb0, 0x38, 0xb8, 0x40,
					0xc0};
	static uint8_t a[M * K], b[N * K], sa[M * KB], sb[N * KB];
	static uint8_t sfa[2 * KT * 32 * 16], sfb[KT * 2 * 32 * 16];
	static float c[M * N];
	uint32_t seed = 7;
	for (int i = 0; i < M * K; i++) {
		seed = seed * 1103515245u + 12345u;
		a[i] = codes[(seed >> 16) % 7];
	}
	for (int i = 0; i < N * K; i++) {
		seed = seed * 1103515245u + 12345u;
		b[i] = codes[(seed >> 16) % 7];
	}
	for (int i = 0; i < M * KB; i++) {
		seed = seed * 1103515245u + 12345u;
		sa[i] = (uint8_t)(125 + (seed >> 16) % 5);
		seed = seed * 1103515245u + 12345u;
		sb[i] = (uint8_t)(125 + (seed >> 16) % 5);
	}
	for (int mt = 0; mt < 2; mt++)
		for (int kt = 0; kt < KT; kt++)
			for (int l = 0; l < 32; l++)
				for (int cs = 0; cs < 16; cs++)
					sfa[((mt * KT + kt) * 32 + l) * 16 + cs] =
						sa[(128 * mt + 32 * (cs / 4) + l) * KB +
						   4 * kt + cs % 4];
	for (int kt = 0; kt < KT; kt++)
		for (int h = 0; h < 2; h++)
			for (int l = 0; l < 32; l++)
				for (int cs = 0; cs < 16; cs++)
					sfb[((kt * 2 + h) * 32 + l) * 16 + cs] =
						sb[(128 * h + 32 * (cs / 4) + l) * KB +
						   4 * kt + cs % 4];
	static const char *const from[] = {"M = 1024\n", "N = 1024\n",
					   "K = 2048\n"};
	static const char *const to[] = {"M = 256\n", "N = 256\n",
					 "K = 256\n"};
	Arena ar;
	arena_init(&ar, NULL);
	char *text = shrunk_text(&ar, "examples/gemm_mxf8_sm100.py", from, to,
				 3);
	CHECK(text != NULL);
	SArg args[] = {
		{a, sizeof(a), PTRT_FLOAT8_E4M3FN, 2, {M, K}, {0}},
		{b, sizeof(b), PTRT_FLOAT8_E4M3FN, 2, {N, K}, {0}},
		{sfa, sizeof(sfa), PTRT_UINT8, 4, {2, KT, 32, 16}, {0}},
		{sfb, sizeof(sfb), PTRT_UINT8, 5, {1, KT, 2, 32, 16}, {0}},
		{c, sizeof(c), PTRT_FLOAT32, 2, {M, N}, {0}}};
	ScriptRun sr;
	if (text && script_run_text(t, &sr, "gemm_mxf8_sm100 (256^3)", text,
				    "sm_100a", args, 5,
				    PTEM_LATE_COMPLETION) == PT_OK) {
		const float *o = script_out(&sr, 4, sizeof(c));
		int bad = 0;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;
				for (int q = 0; q < K; q++)
					s += e4m3_value(a[i * K + q]) *
					     ldexp(1.0, sa[i * KB + q / 32] - 127) *
					     e4m3_value(b[j * K + q]) *
					     ldexp(1.0, sb[j * KB + q / 32] - 127);
				if (o[i * N + j] != (float)s && bad++ < 3)
					test_fail(t, __FILE__, __LINE__,
						  "C[%d, %d] = %g, expected %g", i,
						  j, (double)o[i * N + j], s);
			}
		CHECK_INT(bad, 0);
	}
	ptem_free(sr.e);
	arena_free(&ar);
}

/* tcgen05.cp: shared memory holds word value (byte offset + 0x10000) at
 * every word, so each TMEM cell shows where it was read from; expected
 * from the reference's address walk ("Shared-to-TMEM copies": row r at
 * (r//8)*SDO + (r%8)*(16 << swizzle), word w at (w//4)*LDO + (w%4)*4
 * without swizzle, 4*w and the Swizzle<B,4,3> of the address with it) and
 * its lane table (128x256b: lane r; 32x128b.warpx4: lanes r + 32q). */
static const char cp_ptx_fmt[] =
	".version 8.8\n.target sm_100a\n.address_size 64\n"
	".visible .entry k(.param .u64 out, .param .u64 desc)\n{\n"
	"\t.reg .pred %%p<4>;\n\t.reg .b32 %%r<40>;\n\t.reg .b64 %%rd<20>;\n"
	"\t.shared .align 1024 .b8 sm[4096];\n"
	"\t.shared .align 8 .b8 bar[8];\n\t.shared .align 4 .b8 ta[4];\n"
	"\tld.param.u64 %%rd1, [out];\n\tld.param.u64 %%rd2, [desc];\n"
	"\tmov.u32 %%r1, %%tid.x;\n\tshr.u32 %%r2, %%r1, 5;\n"
	"\tsetp.eq.u32 %%p1, %%r2, 0;\n\t@!%%p1 bra $L_na;\n"
	"\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [ta], 32;\n"
	"$L_na:\n\tsetp.eq.u32 %%p2, %%r1, 0;\n"
	"\t@%%p2 mbarrier.init.shared.b64 [bar], 1;\n\tmov.u32 %%r3, %%r1;\n"
	"$L_f:\n\tshl.b32 %%r4, %%r3, 2;\n\tadd.s32 %%r5, %%r4, 0x10000;\n"
	"\tmov.u32 %%r6, sm;\n\tadd.s32 %%r6, %%r6, %%r4;\n"
	"\tst.shared.u32 [%%r6], %%r5;\n\tadd.s32 %%r3, %%r3, 128;\n"
	"\tsetp.lt.u32 %%p3, %%r3, 1024;\n\t@%%p3 bra $L_f;\n"
	"\tfence.proxy.async.shared::cta;\n"
	"\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n"
	"\ttcgen05.fence::after_thread_sync;\n\tld.shared.u32 %%r7, [ta];\n"
	"\t@!%%p2 bra $L_w;\n\tmov.u32 %%r8, sm;\n\tshr.u32 %%r8, %%r8, 4;\n"
	"\tcvt.u64.u32 %%rd3, %%r8;\n\tor.b64 %%rd3, %%rd3, %%rd2;\n"
	"\ttcgen05.cp.cta_group::1.%s [%%r7], %%rd3;\n"
	"\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];\n"
	"$L_w:\n\tmbarrier.try_wait.parity.shared::cta.b64 %%p3, [bar], 0;\n"
	"\t@!%%p3 bra $L_w;\n\ttcgen05.fence::after_thread_sync;\n"
	"\tshl.b32 %%r9, %%r2, 21;\n\tadd.s32 %%r9, %%r9, %%r7;\n"
	"\ttcgen05.ld.sync.aligned.32x32b.x8.b32 {%%r10, %%r11, %%r12, %%r13, "
	"%%r14, %%r15, %%r16, %%r17}, [%%r9];\n"
	"\ttcgen05.wait::ld.sync.aligned;\n"
	"\tmul.wide.u32 %%rd4, %%r1, 32;\n\tadd.s64 %%rd5, %%rd1, %%rd4;\n"
	"\tst.global.v8.b32 [%%rd5], {%%r10, %%r11, %%r12, %%r13, %%r14, "
	"%%r15, %%r16, %%r17};\n"
	"\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n"
	"\t@!%%p1 bra $L_end;\n"
	"\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %%r7, 32;\n"
	"$L_end:\n\tret;\n}\n";

TEST(emu_tcgen05_cp)
{
	/* desc: version bit 46, SBO at bit 32, LBO at bit 16 (16-byte
	 * units), swizzle at bit 61 (0 none, 2 = 128B) */
	static const struct {
		const char *shape;
		uint64_t desc;
		int swz; /* 0 none (SDO 256, LDO 128), 3 = 128B (SDO 1024) */
		int words, rows;
	} cases[] = {
		{"128x256b", 1ull << 46 | 16ull << 32 | 8ull << 16, 0, 8, 128},
		{"32x128b.warpx4", 2ull << 61 | 1ull << 46 | 64ull << 32 |
					   1ull << 16, 3, 4, 32},
	};
	for (int c = 0; c < 2; c++) {
		char ptx[8192];
		snprintf(ptx, sizeof(ptx), cp_ptx_fmt, cases[c].shape);
		ptem *e = ptem_new();
		uint64_t out = 0, desc = cases[c].desc;
		int st = ptem_load(e, ptx, strlen(ptx));
		if (!st)
			st = ptem_alloc(e, 128 * 32, &out);
		ptem_arg args[] = {{&out, 8}, {&desc, 8}};
		ptem_launch l = {{1, 1, 1}, {128, 1, 1}, {1, 1, 1}, 0, 0, 0};
		if (!st)
			st = ptem_run(e, "k", &l, args, 2);
		CHECK_INT(st, PT_OK);
		if (st) {
			fprintf(stderr, "  %s\n", ptem_errmsg(e));
			ptem_free(e);
			continue;
		}
		const uint32_t *o = ptem_host(e, out, 128 * 32);
		int bad = 0;
		for (int lane = 0; lane < 128; lane++)
			for (int w = 0; w < cases[c].words; w++) {
				int r = lane % cases[c].rows;
				uint32_t a;
				if (cases[c].swz == 0) {
					a = (uint32_t)((r / 8) * 256 + (r % 8) * 16 +
						       (w / 4) * 128 + (w % 4) * 4);
				} else {
					a = (uint32_t)((r / 8) * 1024 + (r % 8) * 128 +
						       4 * w);
					a ^= ((a >> 7) & 7) << 4;
				}
				bad += o[lane * 8 + w] != a + 0x10000;
			}
		CHECK_INT(bad, 0);
		ptem_free(e);
	}
}

/* examples/gemm_nvf4_sm100.py: TMA of packed FP4 A and B (128B swizzle)
 * and of the UE4M3 scale images, tcgen05.cp 32x128b.warpx4 of the
 * scales, four K64 slices of tcgen05.mma kind::mxf4nvf4 block16 with
 * the descriptors ptxtile builds, commit, tcgen05.ld.  A, B: random E2M1
 * codes (values 0, 0.5, 1, 1.5, 2, 3, 4, 6 and negatives) packed two per
 * byte, the lower k in the low nibble; SA, SB: UE4M3 codes with exponent
 * 4..9, value (1 + m/8) 2^(e - 7), arranged as the script's header says
 * (SFA[s, l, 4c + b] = SA[32c + l, 4s + b]); D[m, n] = sum_k A[m, k]
 * SA[m, k/16] B[n, k] SB[n, k/16]: each K64 MMA's exact sum added to
 * the f32 D and rounded (D is f32 between the instructions). */
static double
e2m1_value(unsigned c)
{
	static const double v[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
	return (c & 8) ? -v[c & 7] : v[c & 7];
}

TEST(emu_script_gemm_nvf4_sm100)
{
	enum { M = 128, N = 128, K = 256, KB = K / 16 };
	static uint8_t ca[M * K], cb[N * K], a[M * K / 2], b[N * K / 2];
	static uint8_t sa[M * KB], sb[N * KB], sfa[4 * 32 * 16], sfb[4 * 32 * 16];
	static float d[M * N];
	uint32_t seed = 99;
	for (int i = 0; i < M * K; i++) {
		seed = seed * 1103515245u + 12345u;
		ca[i] = (uint8_t)((seed >> 16) & 15);
		seed = seed * 1103515245u + 12345u;
		cb[i] = (uint8_t)((seed >> 16) & 15);
	}
	for (int i = 0; i < M * K / 2; i++) {
		a[i] = (uint8_t)(ca[2 * i] | ca[2 * i + 1] << 4);
		b[i] = (uint8_t)(cb[2 * i] | cb[2 * i + 1] << 4);
	}
	for (int i = 0; i < M * KB; i++) {
		seed = seed * 1103515245u + 12345u;
		sa[i] = (uint8_t)((4 + (seed >> 16) % 6) << 3 | ((seed >> 24) & 7));
		seed = seed * 1103515245u + 12345u;
		sb[i] = (uint8_t)((4 + (seed >> 16) % 6) << 3 | ((seed >> 24) & 7));
	}
	for (int s = 0; s < 4; s++)
		for (int l = 0; l < 32; l++)
			for (int cb4 = 0; cb4 < 16; cb4++) {
				int row = 32 * (cb4 / 4) + l, blk = 4 * s + cb4 % 4;
				sfa[(s * 32 + l) * 16 + cb4] = sa[row * KB + blk];
				sfb[(s * 32 + l) * 16 + cb4] = sb[row * KB + blk];
			}
	SArg args[] = {{a, sizeof(a), PTRT_UINT8, 2, {M, K / 2}, {0}},
		       {b, sizeof(b), PTRT_UINT8, 2, {N, K / 2}, {0}},
		       {sfa, sizeof(sfa), PTRT_UINT8, 3, {4, 32, 16}, {0}},
		       {sfb, sizeof(sfb), PTRT_UINT8, 3, {4, 32, 16}, {0}},
		       {d, sizeof(d), PTRT_UINT32, 2, {M, N}, {0}}};
	ScriptRun sr;
	if (script_run(t, &sr, "examples/gemm_nvf4_sm100.py", "sm_100a", args,
		       5, PTEM_LATE_COMPLETION | PTEM_CHECK_RACES) == PT_OK) {
		const float *o = script_out(&sr, 4, sizeof(d));
		int bad = 0;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				/* D is f32 between the four K64 MMAs: each
				 * slice's exact sum is added and rounded */
				float s = 0;
				for (int q0 = 0; q0 < K; q0 += 64) {
					double p = 0;
					for (int q = q0; q < q0 + 64; q++) {
						unsigned ea = sa[i * KB + q / 16];
						unsigned eb = sb[j * KB + q / 16];
						p += e2m1_value(ca[i * K + q]) *
						     ldexp(1 + (ea & 7) / 8.0,
							   (int)(ea >> 3) - 7) *
						     e2m1_value(cb[j * K + q]) *
						     ldexp(1 + (eb & 7) / 8.0,
							   (int)(eb >> 3) - 7);
					}
					s = (float)((double)s + p);
				}
				if (o[i * N + j] != s && bad++ < 3)
					test_fail(t, __FILE__, __LINE__,
						  "D[%d, %d] = %g, expected %g", i,
						  j, (double)o[i * N + j], (double)s);
			}
		CHECK_INT(bad, 0);
	}
	ptem_free(sr.e);
}

/* examples/gemm_fp4_f8f6f4_sm100.py: TMA with format float4_e2m1fn
 * (16U4_ALIGN16B, 128B swizzle) into padded images, four K32 slices of
 * tcgen05.mma kind::f8f6f4 over them with a_format/b_format
 * float4_e2m1fn (descriptors and idesc by ptxtile), commit, tcgen05.ld.
 * A, B: random E2M1 codes packed two per byte (the lower k in the low
 * nibble); D[m, n] = sum_k A[m, k] B[n, k] (multiples of 1/4 below
 * 2^13: exact in f32 after every slice), in late mode with the race
 * check. */
TEST(emu_script_gemm_fp4_f8f6f4)
{
	enum { M = 128, N = 128, K = 128 };
	static uint8_t ca[M * K], cb[N * K], a[M * K / 2], b[N * K / 2];
	static float d[M * N];
	uint32_t seed = 5;
	for (int i = 0; i < M * K; i++) {
		seed = seed * 1103515245u + 12345u;
		ca[i] = (uint8_t)((seed >> 16) & 15);
		seed = seed * 1103515245u + 12345u;
		cb[i] = (uint8_t)((seed >> 16) & 15);
	}
	for (int i = 0; i < M * K / 2; i++) {
		a[i] = (uint8_t)(ca[2 * i] | ca[2 * i + 1] << 4);
		b[i] = (uint8_t)(cb[2 * i] | cb[2 * i + 1] << 4);
	}
	SArg args[] = {{a, sizeof(a), PTRT_FLOAT4_E2M1FN, 2, {M, K}, {0}},
		       {b, sizeof(b), PTRT_FLOAT4_E2M1FN, 2, {N, K}, {0}},
		       {d, sizeof(d), PTRT_UINT32, 2, {M, N}, {0}}};
	ScriptRun sr;
	if (script_run(t, &sr, "examples/gemm_fp4_f8f6f4_sm100.py", "sm_100a",
		       args, 3, PTEM_LATE_COMPLETION | PTEM_CHECK_RACES) ==
	    PT_OK) {
		const float *o = script_out(&sr, 2, sizeof(d));
		int bad = 0;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;
				for (int q = 0; q < K; q++)
					s += e2m1_value(ca[i * K + q]) *
					     e2m1_value(cb[j * K + q]);
				if (o[i * N + j] != (float)s && bad++ < 3)
					test_fail(t, __FILE__, __LINE__,
						  "D[%d, %d] = %g, expected %g", i,
						  j, (double)o[i * N + j], s);
			}
		CHECK_INT(bad, 0);
	}
	ptem_free(sr.e);
}

/* A bf16/f16 .max/.min TMA reduction ignores one NaN operand (what the
 * H200 wrote in the emu_fuzz tma_reduce differential: a NaN in global
 * memory gave the shared value) and gives the canonical NaN 0x7fff for
 * two (as max/min.f16 without .NaN); other elements are the IEEE
 * max/min. */
static const char tma_reduce_nan_script[] =
	"from tvm_tirx.script import tirx as T\n"
	"@T.function\n"
	"def red(D: T.Tensor((32,), \"%s\", align=16), "
	"O: T.Tensor((32,), \"%s\", align=16)):\n"
	"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n"
	"    lane = T.cuda.lane_id()\n"
	"    t = T.alloc_shared((32,), \"%s\", align=128)\n"
	"    t[lane] = O[lane]\n"
	"    T.ptx.fence.proxy.async_.shared__cta()\n"
	"    T.cuda.cta_sync()\n"
	"    if lane == 0:\n"
	"        T.cuda.tile.apply(T.ptx[\"cp.reduce.async.bulk.tensor.1d."
	"global.shared::cta.%s.tile.bulk_group\"], D, t, box=(32,), "
	"coords=(0,))\n"
	"        T.ptx.cp.async_.bulk.commit_group()\n"
	"        T.ptx.cp.async_.bulk.wait_group(0)\n";

TEST(emu_tma_reduce_minmax_nan)
{
	/* bf16: 1.0 = 0x3f80, 2.0 = 0x4000, -3.0 = 0xc040, NaN 0x7fc1 and
	 * a negative NaN 0xffa0; f16: 1.0 = 0x3c00, 2.0 = 0x4000, -3.0 =
	 * 0xc200, NaN 0x7e01 */
	static const struct {
		const char *dt, *op;
		int ptrt;
		uint16_t one, two, m3, nan1, nan2;
	} cs[] = {{"bfloat16", "max", PTRT_BFLOAT16, 0x3f80, 0x4000, 0xc040,
		   0x7fc1, 0xffa0},
		  {"bfloat16", "min", PTRT_BFLOAT16, 0x3f80, 0x4000, 0xc040,
		   0x7fc1, 0xffa0},
		  {"float16", "max", PTRT_FLOAT16, 0x3c00, 0x4000, 0xc200,
		   0x7e01, 0xfe00},
		  {"float16", "min", PTRT_FLOAT16, 0x3c00, 0x4000, 0xc200,
		   0x7e01, 0xfe00}};
	for (size_t k = 0; k < sizeof cs / sizeof *cs; k++) {
		static uint16_t d[32], o[32];
		uint16_t want[32];
		bool max = cs[k].op[1] == 'a';
		for (int i = 0; i < 32; i++) {
			/* i % 5: (1, 2), (NaN, 2), (1, NaN), (-3, -NaN),
			 * (NaN, -NaN) */
			switch (i % 5) {
			case 0: d[i] = cs[k].one; o[i] = cs[k].two;
				want[i] = max ? cs[k].two : cs[k].one; break;
			case 1: d[i] = cs[k].nan1; o[i] = cs[k].two;
				want[i] = cs[k].two; break;
			case 2: d[i] = cs[k].one; o[i] = cs[k].nan1;
				want[i] = cs[k].one; break;
			case 3: d[i] = cs[k].m3; o[i] = cs[k].nan2;
				want[i] = cs[k].m3; break;
			default: d[i] = cs[k].nan1; o[i] = cs[k].nan2;
				want[i] = 0x7fff; break;
			}
		}
		char text[2048];
		snprintf(text, sizeof text, tma_reduce_nan_script, cs[k].dt,
			 cs[k].dt, cs[k].dt, cs[k].op);
		SArg sa[] = {{d, sizeof(d), cs[k].ptrt, 1, {32}, {0}},
			     {o, sizeof(o), cs[k].ptrt, 1, {32}, {0}}};
		ScriptRun sr;
		int st = script_run_text(t, &sr, "reduce_nan.py", text,
					 "sm_90a", sa, 2, 0);
		CHECK_INT(st, PT_OK);
		if (st == PT_OK) {
			const uint16_t *r = script_out(&sr, 0, sizeof(d));
			for (int i = 0; i < 32; i++)
				CHECK(r[i] == want[i]);
		}
		ptem_free(sr.e);
	}
}

/* setmaxnreg is its own family (SETMAXNREG), whose warp executor runs
 * it: a .sync.aligned collective, so the whole warp executes it, and
 * half a warp is a COLLECTIVE error naming it. */
TEST(emu_setmaxnreg_family)
{
	static const char *const bound[] = {"32", "16"};
	for (int half = 0; half <= 1; half++) {
		char text[512];
		snprintf(text, sizeof text,
			 "\t.reg .pred %%p<2>;\n\t.reg .b32 %%r<2>;\n"
			 "\tmov.u32 %%r1, %%tid.x;\n"
			 "\tsetp.ge.u32 %%p1, %%r1, %s;\n\t@%%p1 ret;\n"
			 "\tsetmaxnreg.dec.sync.aligned.u32 40;\n\tret;\n",
			 bound[half]);
		ptem *e;
		uint8_t *buf;
		int st = run_small(text, 32, 0, &e, &buf);
		const Kernel *k = e->m ? e->m->kernels : NULL;
		CHECK(k && k->ncode == 5);
		if (k && k->ncode == 5) {
			CHECK_INT(k->code[3].fam, PTXF_SETMAXNREG);
			CHECK(k->code[3].coll);
		}
		CHECK_INT(st, half ? PT_E_EMU_COLLECTIVE : PT_OK);
		if (half)
			CHECK(strstr(ptem_errmsg(e), "setmaxnreg") != NULL);
		ptem_free(e);
	}
}

/* Issue 21: the loader selects each instruction once through the PTX
 * form table; equal instructions share the selected form, the family
 * (not an op range) picks the executor, qualifiers are the form's set,
 * and the messages of a miss come from the rows. */
TEST(emu_selects_through_form_table)
{
	static const char ptx[] =
		".version 8.0\n.target sm_90a\n.address_size 64\n"
		".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n"
		"\t.reg .pred %p<2>;\n"
		"\tadd.s32 %r1, %r2, %r3;\n\tadd.s32 %r2, %r1, %r3;\n"
		"\tadd.s32 %r2, %r1, 7;\n"
		"\tshfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;\n"
		"\tbar.warp.sync -1;\n\tbar.sync 0;\n\tret;\n}\n";
	ptem *e = ptem_new();
	CHECK_INT(ptem_load(e, ptx, strlen(ptx)), PT_OK);
	const Kernel *k = e->m->kernels;
	CHECK_INT(k->ncode, 7);
	if (k->ncode == 7) {
		const Insn *c = k->code;
		CHECK(c[0].sel && c[0].sel == c[1].sel); /* one selection */
		CHECK(c[2].sel != c[0].sel); /* an immediate: another key */
		CHECK_INT(c[0].fam, PTXF_ARITH);
		CHECK_INT(c[0].sel->type, PTY_S32);
		CHECK_INT(c[3].fam, PTXF_SHFL);
		CHECK(c[3].coll && c[3].member_mask);
		CHECK(ptx_has(c[3].sel, PQ_BFLY) && !ptx_has(c[3].sel, PQ_UP));
		/* bar.warp.sync is a collective of BARRIER, bar.sync is not */
		CHECK_INT(c[4].fam, PTXF_BARRIER);
		CHECK(c[4].coll && c[4].member_mask);
		CHECK_INT(c[5].fam, PTXF_BARRIER);
		CHECK(!c[5].coll);
		CHECK_INT(c[6].fam, PTXF_CONTROL);
	}
	ptem_free(e);
	static const struct {
		const char *body;
		int status;
		const char *msg;
	} bad[] = {
		{"shfl.sync.bfly.b32 %r1, %r2, 1;", PT_E_EMU_OPERAND_COUNT,
		 "shfl.sync.bfly.b32 takes 5 operands, not 3"},
		{"add.s32 %r1, %r2;", PT_E_EMU_OPERAND_COUNT,
		 "add.s32 takes 3 operands, not 2"},
		{"tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd1, %r1, "
		 "%p1;", PT_E_EMU_UNSUPPORTED,
		 "qualifier .sp is in no PTX form of tcgen05.mma"},
		{"setp.lo.s32 %p1, %r1, %r2;", PT_E_EMU_UNSUPPORTED,
		 "no PTX form of setp takes these qualifiers together"},
		{"bar.sync 16;", PT_E_EMU_UNSUPPORTED, "an immediate is out of range"},
		{"add.u32 %r1, [%rd1], %r2;", PT_E_EMU_UNSUPPORTED,
		 "operand kinds"},
		/* rows spell them, no executor models them: refused from the
		 * selection's qualifier bits */
		{"prmt.b32.f4e %r1, %r2, %r3, %r1;", PT_E_EMU_UNSUPPORTED,
		 "modifier .f4e of prmt.b32.f4e is not modelled"},
		{"lop3.or.b32 %r1|%p1, %r2, %r3, %r1, 0xfe, %p0;",
		 PT_E_EMU_UNSUPPORTED,
		 "modifier .or of lop3.or.b32 is not modelled"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[1024];
		snprintf(text, sizeof(text),
			 ".version 8.6\n.target sm_100a\n.address_size 64\n"
			 ".visible .entry k()\n{\n\t.reg .b32 %%r<4>;\n"
			 "\t.reg .b64 %%rd<4>;\n\t.reg .pred %%p<2>;\n"
			 "\t%s\n\tret;\n}\n", bad[i].body);
		e = ptem_new();
		CHECK_INT(ptem_load(e, text, strlen(text)), bad[i].status);
		if (!strstr(ptem_errmsg(e), bad[i].msg))
			test_fail(t, __FILE__, __LINE__, "%s: %s", bad[i].body,
				  ptem_errmsg(e));
		ptem_free(e);
	}
}

/* ---- emu_vocab: the loader's selection alone (tests/suites/vocab.sh) ---- */

typedef struct VocabSeen {
	int rows, misses, miss_line;
	char miss[64];
} VocabSeen;

static void
vocab_seen(void *ud, int line, const char *insn, EmuVocabLine kind,
	   const char *why)
{
	VocabSeen *v = ud;
	if (kind == EMU_VOCAB_ROW)
		v->rows++;
	else {
		v->misses++;
		v->miss_line = line;
		snprintf(v->miss, sizeof v->miss, "%s", insn);
	}
}

/* Every instruction line is reported: rows (bra's with its label
 * operand among them), and a line no row takes (setp.lt.b32: an ordered
 * comparison of a .b type, which the PTX ISA does not define) without ending
 * the read; a refusal of another kind (an unread directive) is the load's
 * status instead. */
TEST(emu_vocab_reports_every_line)
{
	static const char ptx[] =
		".version 8.0\n.target sm_90a\n.address_size 64\n"
		".visible .entry k()\n{\n"
		"\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n"
		"L1:\n"
		"\tmov.u32 %r1, 1;\n"		 /* line 9 */
		"\tsetp.lt.b32 %p1, %r1, %r2;\n" /* line 10 */
		"\t@%p1 bra L1;\n"
		"\tret;\n}\n";
	ptem *e = ptem_new();
	VocabSeen v = {0};
	CHECK_INT(emu_vocab(e, ptx, strlen(ptx), vocab_seen, &v), PT_OK);
	CHECK_INT(v.rows, 3);
	CHECK_INT(v.misses, 1);
	CHECK_INT(v.miss_line, 10);
	CHECK_STR(v.miss, "setp.lt.b32");
	ptem_free(e);

	static const char odd[] = ".version 8.0\n.target sm_90a\n"
				  ".bogus_directive\n";
	e = ptem_new();
	memset(&v, 0, sizeof v);
	CHECK_INT(emu_vocab(e, odd, strlen(odd), vocab_seen, &v),
		  PT_E_EMU_UNSUPPORTED);
	CHECK(strstr(ptem_errmsg(e), ".bogus_directive") != NULL);
	CHECK_INT(v.rows + v.misses, 0);
	ptem_free(e);
}

/* printf's call sequence is rows of the form table (forms_call.def),
 * selected like every other line: a call argument's st.param, the call
 * of the declared vprintf, the ld.param of its return; a st.param whose
 * address is no .param of a call block is no row's. */
TEST(emu_vocab_printf_call_is_rows)
{
	static const char ptx[] =
		".version 8.0\n.target sm_90a\n.address_size 64\n"
		".extern .func (.param .b32 r) vprintf(.param .b64 f, "
		".param .b64 a);\n"
		".visible .entry k()\n{\n"
		"\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<3>;\n"
		"\t{\n\t.param .b64 f;\n\t.param .b64 a;\n\t.param .b32 r;\n"
		"\tst.param.b64 [f], %rd1;\n\tst.param.b64 [a], %rd2;\n"
		"\tcall.uni (r), vprintf, (f, a);\n"
		"\tld.param.b32 %r1, [r];\n\t}\n"
		"\tst.param.b64 [%rd1], %rd2;\n" /* line 18: no call .param */
		"\tret;\n}\n";
	ptem *e = ptem_new();
	VocabSeen v = {0};
	CHECK_INT(emu_vocab(e, ptx, strlen(ptx), vocab_seen, &v), PT_OK);
	CHECK_INT(v.rows, 5);
	CHECK_INT(v.misses, 1);
	CHECK_INT(v.miss_line, 18);
	CHECK_STR(v.miss, "st.param.b64");
	ptem_free(e);
}
