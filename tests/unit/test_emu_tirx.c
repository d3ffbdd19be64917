/*
 * test_emu_tirx.c - the emulator runs the raw forms TIRx kernels use
 * (issue 22): fns.b32, movmatrix.sync.aligned.m8n8.trans.b16, st.bulk
 * and add{.rnd}{.sat}.f32.{f16,bf16}.  Hand-written sm_100a kernels whose
 * expected values the test computes from the PTX ISA's definitions (its
 * own bit loop for fns, its own transpose, the bytes st.bulk must and
 * must not touch, exact sums rounded by the test), a negative case per
 * rule the emulator enforces at run time, and tests/ptxforms' two
 * scripts compiled by ptxtile and run end to end.  With EMU_TIRX_DUMP=DIR
 * every hand-written kernel is also written to DIR/tirxN.ptx, which
 * tests/suites/emu.sh assembles with ptxas -arch=sm_100a.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "ptxtile.h"
#include "ptxtile_emu.h"
#include "base/base.h"

/* Kernel k(in, out): the body runs after %rd1 = in, %rd2 = out,
 * %r1 = %tid.x, %r10 = the shared buffer sm (1024 bytes) and %rd10 its
 * generic address. */
static const char tirx_head[] =
	".version 8.6\n.target sm_100a\n.address_size 64\n\n"
	".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
	"\t.reg .pred %p<8>;\n\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<40>;\n"
	"\t.reg .f32 %f<40>;\n\t.reg .b64 %rd<16>;\n"
	"\t.shared .align 16 .b8 sm[1024];\n"
	"\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n"
	"\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r10, sm;\n"
	"\tmov.u64 %rd12, sm;\n\tcvta.shared.u64 %rd10, %rd12;\n";

typedef struct Kernel1 {
	ptem *e;
	uint64_t out;
	size_t outb;
	int status;
	char text[16384];
} Kernel1;

static void
dump_kernel(const char *text)
{
	static int seq;
	const char *dir = getenv("EMU_TIRX_DUMP");
	char path[4096];
	if (!dir || snprintf(path, sizeof(path), "%s/tirx%d.ptx", dir, seq++) >=
			    (int)sizeof(path))
		return;
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Runs body on `threads` threads of one CTA with in (inb bytes) and a
 * zeroed out buffer of outb bytes; k->status is ptem_run's. */
static void
run_body(Kernel1 *k, const char *body, unsigned threads, const void *in,
	 size_t inb, size_t outb, unsigned flags)
{
	snprintf(k->text, sizeof(k->text), "%s%s\tret;\n}\n", tirx_head, body);
	dump_kernel(k->text);
	k->e = ptem_new();
	k->outb = outb;
	uint64_t a = 0;
	k->status = ptem_load(k->e, k->text, strlen(k->text));
	if (!k->status)
		k->status = ptem_alloc(k->e, inb, &a);
	if (!k->status)
		k->status = ptem_alloc(k->e, outb, &k->out);
	if (!k->status) {
		memcpy(ptem_host(k->e, a, inb), in, inb);
		memset(ptem_host(k->e, k->out, outb), 0, outb);
		ptem_arg args[] = {{&a, 8}, {&k->out, 8}};
		ptem_launch l = {.grid = {1, 1, 1},
				 .block = {threads, 1, 1},
				 .flags = flags};
		k->status = ptem_run(k->e, "k", &l, args, 2);
	}
}

static const uint8_t *
out_of(Kernel1 *k)
{
	return ptem_host(k->e, k->out, k->outb);
}

static uint32_t
word_at(const uint8_t *p, size_t i)
{
	uint32_t v;
	memcpy(&v, p + 4 * i, 4);
	return v;
}

/* The PTX line of the first occurrence of needle in text (1-based). */
static int
line_of(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);
	int line = 1;
	for (const char *q = text; p && q < p; q++)
		line += *q == '\n';
	return p ? line : 0;
}

/* The run failed with code, naming the line of `insn` and saying what. */
static void
check_error(TestCtx *t, Kernel1 *k, int code, const char *insn,
	    const char *what, int src_line)
{
	const char *msg = ptem_errmsg(k->e);
	char where[64];
	snprintf(where, sizeof(where), "PTX line %d (", line_of(k->text, insn));
	if (k->status != code || !strstr(msg, where) || !strstr(msg, what))
		test_fail(t, __FILE__, src_line,
			  "status %d, expected %d at %s..., '%s': %s",
			  k->status, code, where, what, msg);
}

static uint32_t
lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s;
}

/* ---- fns ---- */

/* fns by masking instead of the ISA's walk: forward, the bits at and
 * above base, the lowest n-1 of them cleared, then the lowest left;
 * backward, the bits at and below base, the highest n-1 cleared, then
 * the highest left; offset 0, bit base itself. */
static uint32_t
ref_fns(uint32_t mask, uint32_t base, int32_t offset)
{
	if (offset == 0)
		return mask >> base & 1 ? base : 0xffffffffu;
	int64_t n = offset > 0 ? offset : -(int64_t)offset;
	uint32_t m = offset > 0 ? mask & (0xffffffffu << base)
				: mask & (0xffffffffu >> (31 - base));
	for (; m && n > 1; n--)
		m = offset > 0 ? m & (m - 1)
			       : m & ~(0x80000000u >> __builtin_clz(m));
	if (!m)
		return 0xffffffffu;
	return offset > 0 ? (uint32_t)__builtin_ctz(m)
			  : 31u - (uint32_t)__builtin_clz(m);
}

static const char fns_body[] =
	"\tmul.wide.u32 %rd3, %r1, 12;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
	"\tld.global.u32 %r2, [%rd4];\n\tld.global.u32 %r3, [%rd4+4];\n"
	"\tld.global.u32 %r4, [%rd4+8];\n"
	"\tfns.b32 %r5, %r2, %r3, %r4;\n"
	"\tfns.b32 %r6, 0xaaaaaaaa, %r3, %r4;\n"
	"\tfns.b32 %r7, %r2, %r3, -2;\n"
	"\tfns.b32 %r8, %r2, 0, %r4;\n"
	"\tmul.wide.u32 %rd5, %r1, 16;\n\tadd.s64 %rd6, %rd2, %rd5;\n"
	"\tst.global.v4.u32 [%rd6], {%r5, %r6, %r7, %r8};\n";

TEST(emu_tirx_fns)
{
	enum { N = 96 };
	/* the ISA's examples (mask 0xaaaaaaaa: base 3 offset 1 and -1 give
	 * 3, base 2 gives 3 forward and 1 backward), offset 0 on a set and
	 * a clear bit, the 32nd/33rd bit of a full mask both ways, the
	 * extreme offsets, then random masks (some sparse), bases, offsets */
	static const uint32_t hand[][4] = {
		{0xaaaaaaaau, 3, 1, 3},
		{0xaaaaaaaau, 3, (uint32_t)-1, 3},
		{0xaaaaaaaau, 2, 1, 3},
		{0xaaaaaaaau, 2, (uint32_t)-1, 1},
		{0x00000020u, 5, 0, 5},
		{0xffffffdfu, 5, 0, 0xffffffffu},
		{0xffffffffu, 0, 32, 31},
		{0xffffffffu, 0, 33, 0xffffffffu},
		{0xffffffffu, 31, (uint32_t)-32, 0},
		{0xffffffffu, 31, (uint32_t)-33, 0xffffffffu},
		{0x80000001u, 0, 2, 31},
		{0x80000001u, 31, (uint32_t)-2, 0},
		{0xffffffffu, 5, 0x80000000u, 0xffffffffu},
		{0xffffffffu, 5, 0x7fffffffu, 0xffffffffu},
		{0, 0, 1, 0xffffffffu},
	};
	static uint32_t in[N][3];
	uint32_t s = 7;
	for (int i = 0; i < N; i++) {
		if (i < (int)countof(hand)) {
			memcpy(in[i], hand[i], sizeof(in[i]));
			CHECK_INT(ref_fns(hand[i][0], hand[i][1],
					  (int32_t)hand[i][2]),
				  hand[i][3]);
			continue;
		}
		uint32_t m = lcg(&s);
		in[i][0] = i % 3 ? m : m & lcg(&s) & lcg(&s);
		in[i][1] = lcg(&s) >> 27;
		in[i][2] = (uint32_t)((int32_t)(lcg(&s) >> 16) % 41 - 20);
	}
	Kernel1 k;
	run_body(&k, fns_body, N, in, sizeof(in), N * 16, 0);
	CHECK_INT(k.status, PT_OK);
	const uint8_t *o = k.status ? NULL : out_of(&k);
	for (int i = 0; o && i < N; i++) {
		int32_t off = (int32_t)in[i][2];
		CHECK_INT(word_at(o, 4 * i), ref_fns(in[i][0], in[i][1], off));
		CHECK_INT(word_at(o, 4 * i + 1),
			  ref_fns(0xaaaaaaaau, in[i][1], off));
		CHECK_INT(word_at(o, 4 * i + 2),
			  ref_fns(in[i][0], in[i][1], -2));
		CHECK_INT(word_at(o, 4 * i + 3), ref_fns(in[i][0], 0, off));
	}
	ptem_free(k.e);
	/* a base above 31 is undefined in the ISA: refused, naming the
	 * line (thread 1 reads base 32) */
	uint32_t bad[2][3] = {{1, 0, 1}, {1, 32, 1}};
	run_body(&k, fns_body, 2, bad, sizeof(bad), 32, 0);
	check_error(t, &k, PT_E_EMU_UNSUPPORTED, "fns.b32 %r5",
		    "fns base 32 is outside 0..31", __LINE__);
	ptem_free(k.e);
}

/* ---- movmatrix ---- */

static const char movmatrix_body[] =
	"\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
	"\tld.global.u32 %r2, [%rd4];\n"
	"\tmovmatrix.sync.aligned.m8n8.trans.b16 %r3, %r2;\n"
	"\tmovmatrix.sync.aligned.m8n8.trans.b16 %r4, %r3;\n"
	"\tmul.wide.u32 %rd5, %r1, 8;\n\tadd.s64 %rd6, %rd2, %rd5;\n"
	"\tst.global.v2.u32 [%rd6], {%r3, %r4};\n";

TEST(emu_tirx_movmatrix)
{
	/* two warps of random words; the ISA's source layout (its figure
	 * "movmatrix source matrix fragment layout"): lane l holds row l/4,
	 * columns 2(l%4) (low half) and 2(l%4)+1 (high half).  d holds the
	 * transpose in the same layout, and a second movmatrix gives back
	 * the input */
	enum { N = 64 };
	static uint32_t in[N];
	uint32_t s = 11;
	for (int i = 0; i < N; i++)
		in[i] = lcg(&s);
	Kernel1 k;
	run_body(&k, movmatrix_body, N, in, sizeof(in), N * 8, 0);
	CHECK_INT(k.status, PT_OK);
	const uint8_t *o = k.status ? NULL : out_of(&k);
	for (int w = 0; o && w < 2; w++) {
		uint16_t m[8][8], tr[8][8];
		for (int l = 0; l < 32; l++)
			for (int h = 0; h < 2; h++)
				m[l / 4][2 * (l % 4) + h] =
					(uint16_t)(in[32 * w + l] >> (16 * h));
		for (int i = 0; i < 8; i++)
			for (int j = 0; j < 8; j++)
				tr[i][j] = m[j][i];
		for (int l = 0; l < 32; l++) {
			int row = l / 4, col = 2 * (l % 4);
			uint32_t want =
				tr[row][col] | (uint32_t)tr[row][col + 1] << 16;
			CHECK_INT(word_at(o, 2 * (32 * w + l)), want);
			CHECK_INT(word_at(o, 2 * (32 * w + l) + 1),
				  in[32 * w + l]);
		}
	}
	ptem_free(k.e);
	/* .aligned: the lower half-warp has exited, the upper half alone
	 * cannot run it */
	char body[2048];
	snprintf(body, sizeof(body),
		 "\tsetp.lt.u32 %%p1, %%r1, 16;\n\t@%%p1 bra $L_end;\n%s"
		 "$L_end:\n",
		 movmatrix_body);
	run_body(&k, body, 32, in, sizeof(in), 32 * 8, 0);
	check_error(t, &k, PT_E_EMU_COLLECTIVE, "movmatrix",
		    "lanes 0xffff0000, not the full warp", __LINE__);
	ptem_free(k.e);
}

/* ---- st.bulk ---- */

/* 32 threads copy the 1024-byte pattern in[0..1024) to sm; after a
 * barrier thread 0 runs the st.bulk statement (size register %rd11 =
 * in[1024..1032), %rd10 the generic address of sm), and after another
 * every thread copies sm to out. */
static void
run_st_bulk(Kernel1 *k, const char *stmt, const uint8_t *pattern,
	    uint64_t size_reg, unsigned flags)
{
	static uint8_t in[1032];
	memcpy(in, pattern, 1024);
	memcpy(in + 1024, &size_reg, 8);
	char body[4096];
	snprintf(
		body, sizeof(body),
		"\tld.global.u64 %%rd11, [%%rd1+1024];\n"
		"\tshl.b32 %%r2, %%r1, 5;\n\tcvt.u64.u32 %%rd3, %%r2;\n"
		"\tadd.s64 %%rd4, %%rd1, %%rd3;\n\tadd.s32 %%r3, %%r10, %%r2;\n"
		"\tld.global.v4.u32 {%%r4, %%r5, %%r6, %%r7}, [%%rd4];\n"
		"\tst.shared.v4.u32 [%%r3], {%%r4, %%r5, %%r6, %%r7};\n"
		"\tld.global.v4.u32 {%%r4, %%r5, %%r6, %%r7}, [%%rd4+16];\n"
		"\tst.shared.v4.u32 [%%r3+16], {%%r4, %%r5, %%r6, %%r7};\n"
		"\tbar.sync 0;\n\tsetp.ne.u32 %%p1, %%r1, 0;\n"
		"\t@%%p1 bra $L_copy;\n\t%s\n$L_copy:\n\tbar.sync 0;\n"
		"\tadd.s64 %%rd5, %%rd2, %%rd3;\n"
		"\tld.shared.v4.u32 {%%r4, %%r5, %%r6, %%r7}, [%%r3];\n"
		"\tst.global.v4.u32 [%%rd5], {%%r4, %%r5, %%r6, %%r7};\n"
		"\tld.shared.v4.u32 {%%r4, %%r5, %%r6, %%r7}, [%%r3+16];\n"
		"\tst.global.v4.u32 [%%rd5+16], {%%r4, %%r5, %%r6, %%r7};\n",
		stmt);
	run_body(k, body, 32, in, sizeof(in), 1024, flags);
}

TEST(emu_tirx_st_bulk)
{
	uint8_t pat[1024];
	for (int i = 0; i < 1024; i++)
		pat[i] = (uint8_t)(i % 251 + 1); /* no zero byte */
	/* (offset, size): the whole buffer, a middle piece, a start the
	 * ISA puts no alignment rule on, the last 8 bytes, size 0; each
	 * spelled four ways: .weak.shared::cta with an immediate size,
	 * .shared::cta with a register size, generic with a register size,
	 * generic .weak with an immediate size */
	static const unsigned cases[][2] = {
		{0, 1024}, {8, 64}, {4, 16}, {1016, 8}, {512, 0}};
	for (size_t c = 0; c < countof(cases); c++)
		for (int form = 0; form < 4; form++) {
			unsigned off = cases[c][0], n = cases[c][1];
			char stmt[128];
			if (form == 0)
				snprintf(stmt, sizeof(stmt),
					 "st.bulk.weak.shared::cta [%%r10+%u], "
					 "%u, 0;",
					 off, n);
			else if (form == 1)
				snprintf(stmt, sizeof(stmt),
					 "st.bulk.shared::cta [%%r10+%u], "
					 "%%rd11, 0;",
					 off);
			else if (form == 2)
				snprintf(stmt, sizeof(stmt),
					 "st.bulk [%%rd10+%u], %%rd11, 0;",
					 off);
			else
				snprintf(stmt, sizeof(stmt),
					 "st.bulk.weak [%%rd10+%u], %u, 0;",
					 off, n);
			Kernel1 k;
			run_st_bulk(&k, stmt, pat, n, PTEM_CHECK_RACES);
			if (k.status)
				test_fail(t, __FILE__, __LINE__, "%s: %s", stmt,
					  ptem_errmsg(k.e));
			const uint8_t *o = k.status ? NULL : out_of(&k);
			int bad = 0;
			for (unsigned i = 0; o && i < 1024; i++)
				bad += o[i] !=
				       (i >= off && i < off + n ? 0 : pat[i]);
			if (bad)
				test_fail(t, __FILE__, __LINE__,
					  "%s size %u: %d bytes wrong", stmt, n,
					  bad);
			ptem_free(k.e);
		}
	/* the ISA's rules, each refused naming the line: size a multiple
	 * of 8, at most 16777216; a generic address in the shared window;
	 * and the CTA's shared memory bounds */
	static const struct {
		const char *stmt;
		uint64_t size;
		int code;
		const char *what;
	} bad[] = {
		{"st.bulk.shared::cta [%r10], %rd11, 0;", 12, PT_E_EMU_OOB,
		 "size 12 is not a multiple of 8"},
		{"st.bulk [%rd10], %rd11, 0;", 16777224, PT_E_EMU_OOB,
		 "size 16777224 is not a multiple of 8 in [0, 16777216]"},
		{"st.bulk [%rd2], %rd11, 0;", 8, PT_E_EMU_OOB,
		 "which is not in the shared window"},
		{"st.bulk.weak.shared::cta [%r10+1016], 16, 0;", 0,
		 PT_E_EMU_OOB,
		 "shared access [0x3f8, +16) outside the 1024 bytes"},
		{"st.bulk [%rd10], %rd11, 0;", 16777216, PT_E_EMU_OOB,
		 "outside the 1024 bytes"},
	};
	for (size_t i = 0; i < countof(bad); i++) {
		Kernel1 k;
		run_st_bulk(&k, bad[i].stmt, pat, bad[i].size, 0);
		check_error(t, &k, bad[i].code, bad[i].stmt, bad[i].what,
			    __LINE__);
		ptem_free(k.e);
	}
	/* st.bulk is a write the race check sees: every thread zeroing the
	 * same bytes with no barrier between is a race */
	Kernel1 k;
	run_body(&k, "\tst.bulk.weak.shared::cta [%r10], 64, 0;\n", 32, pat, 8,
		 8, PTEM_CHECK_RACES);
	check_error(t, &k, PT_E_EMU_RACE, "st.bulk", "shared-memory race",
		    __LINE__);
	ptem_free(k.e);
}

/* ---- add.f32.{f16,bf16} ---- */

enum { RN, RZ, RM, RP };

static float
f32_of(uint32_t b)
{
	float f;
	memcpy(&f, &b, 4);
	return f;
}

static uint32_t
bits_of(float f)
{
	uint32_t b;
	memcpy(&b, &f, 4);
	return b;
}

/* A binary16 (ebits 5, mbits 10) or bfloat16 (8, 7) value, by its
 * fields. */
static double
half_value(uint32_t h, int ebits, int mbits)
{
	int e = (int)(h >> mbits & ((1u << ebits) - 1));
	int bias = (1 << (ebits - 1)) - 1;
	double m = (double)(h & ((1u << mbits) - 1)), v;
	if (e == (1 << ebits) - 1)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(m, 1 - bias - mbits);
	else
		v = ldexp(m + ldexp(1, mbits), e - bias - mbits);
	return h >> (ebits + mbits) & 1 ? -v : v;
}

/* The binary16 bits of v, which must be an f16 value. */
static uint16_t
f16_exact(double v)
{
	for (uint32_t b = 0; b < 0x10000; b++)
		if (half_value(b, 5, 10) == v)
			return (uint16_t)b;
	return 0x7e00;
}

/* x, the exact sum of two values, rounded to f32 in mode: the host's
 * round-to-nearest, then for the directed modes the neighbour on the
 * mode's side when inexact.  opposites: the sum of two nonzero values of
 * opposite sign and equal magnitude, which is +0, or -0 toward -inf
 * (IEEE 754 6.3). */
static uint32_t
round_f32(double x, int mode, bool opposites)
{
	if (isnan(x))
		return 0x7fffffffu; /* the GPU's canonical NaN */
	if (opposites)
		return mode == RM ? 0x80000000u : 0;
	float f = (float)x;
	if (mode == RN || (double)f == x)
		return bits_of(f);
	float lo = (double)f < x ? f : nextafterf(f, -INFINITY);
	float hi = (double)f > x ? f : nextafterf(f, INFINITY);
	float r = mode == RM ? lo : mode == RP ? hi : x > 0 ? lo : hi;
	return bits_of(r);
}

/* .sat: [0, 1], NaN to +0 (the ISA); -0 to +0 as well, the emulator's
 * rule for every f32 .sat (docs/emulator.md). */
static uint32_t
sat_f32(uint32_t b)
{
	float f = f32_of(b);
	if (isnan(f) || f <= 0)
		return 0;
	return f >= 1 ? 0x3f800000u : b;
}

typedef struct AddCase {
	uint16_t a;
	uint32_t c;
	uint32_t want[4]; /* rn rz rm rp, worked out in the table's notes */
} AddCase;

/* bf16: 1.5*2^-24 (0x33c0) added to 1: above halfway to 1+2^-23, so rn
 * and rp round up; below 1 the spacing halves, so 1 - 1.5*2^-24 is a
 * tie between 1-2^-23 (even, 0x3f7ffffe) and 1-2^-24; -(1+1.5*2^-24);
 * FLT_MAX + 2^103 (0x7300) is a tie with 2^128: rn (odd FLT_MAX) and rp
 * go to inf; 1 + 2^-24 (0x3380) a tie rn keeps at 1; NaN; inf - inf;
 * 1 + 0.5; -1 + 0.25; -0 + -0; 1 - 1 (+0, -0 toward -inf); -2^-126 +
 * 2^-127 (0x0040, a bf16 subnormal) is the f32 subnormal -2^-127
 * (0x80400000): nothing flushed. */
static const AddCase bf16_cases[] = {
	{0x33c0,
	 0x3f800000u,
	 {0x3f800001u, 0x3f800000u, 0x3f800000u, 0x3f800001u}},
	{0xb3c0,
	 0x3f800000u,
	 {0x3f7ffffeu, 0x3f7ffffeu, 0x3f7ffffeu, 0x3f7fffffu}},
	{0xb3c0,
	 0xbf800000u,
	 {0xbf800001u, 0xbf800000u, 0xbf800001u, 0xbf800000u}},
	{0x7300,
	 0x7f7fffffu,
	 {0x7f800000u, 0x7f7fffffu, 0x7f7fffffu, 0x7f800000u}},
	{0x3380,
	 0x3f800000u,
	 {0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800001u}},
	{0x7fc0,
	 0x3f800000u,
	 {0x7fffffffu, 0x7fffffffu, 0x7fffffffu, 0x7fffffffu}},
	{0x7f80,
	 0xff800000u,
	 {0x7fffffffu, 0x7fffffffu, 0x7fffffffu, 0x7fffffffu}},
	{0x3f80,
	 0x3f000000u,
	 {0x3fc00000u, 0x3fc00000u, 0x3fc00000u, 0x3fc00000u}},
	{0xbf80,
	 0x3e800000u,
	 {0xbf400000u, 0xbf400000u, 0xbf400000u, 0xbf400000u}},
	{0x8000,
	 0x80000000u,
	 {0x80000000u, 0x80000000u, 0x80000000u, 0x80000000u}},
	{0x3f80, 0xbf800000u, {0, 0, 0x80000000u, 0}},
	{0x0040,
	 0x80800000u,
	 {0x80400000u, 0x80400000u, 0x80400000u, 0x80400000u}},
};

/* f16: 1 + 2^-24 (0x0001, the smallest subnormal) a tie kept at 1; 1 +
 * 3*2^-24 = 1 + 1.5*2^-23, a tie between 1+2^-23 (odd) and 1+2^-22
 * (even); 65504 (0x7bff) - 65504.5 = -0.5 exactly; NaN; inf - inf; 1 - 1;
 * 0.5 + 0.75. */
static const AddCase f16_cases[] = {
	{0x0001,
	 0x3f800000u,
	 {0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800001u}},
	{0x0003,
	 0x3f800000u,
	 {0x3f800002u, 0x3f800001u, 0x3f800001u, 0x3f800002u}},
	{0x7bff,
	 0xc77fe080u,
	 {0xbf000000u, 0xbf000000u, 0xbf000000u, 0xbf000000u}},
	{0x7e00,
	 0x3f800000u,
	 {0x7fffffffu, 0x7fffffffu, 0x7fffffffu, 0x7fffffffu}},
	{0x7c00,
	 0xff800000u,
	 {0x7fffffffu, 0x7fffffffu, 0x7fffffffu, 0x7fffffffu}},
	{0x3c00, 0xbf800000u, {0, 0, 0x80000000u, 0}},
	{0x3800,
	 0x3f400000u,
	 {0x3fa00000u, 0x3fa00000u, 0x3fa00000u, 0x3fa00000u}},
};

static const char add_body[] =
	"\tmul.wide.u32 %%rd3, %%r1, 8;\n\tadd.s64 %%rd4, %%rd1, %%rd3;\n"
	"\tld.global.u16 %%rs1, [%%rd4];\n\tld.global.f32 %%f1, [%%rd4+4];\n"
	"\tadd.f32.%1$s %%f2, %%rs1, %%f1;\n"
	"\tadd.rn.f32.%1$s %%f3, %%rs1, %%f1;\n"
	"\tadd.rz.f32.%1$s %%f4, %%rs1, %%f1;\n"
	"\tadd.rm.f32.%1$s %%f5, %%rs1, %%f1;\n"
	"\tadd.rp.f32.%1$s %%f6, %%rs1, %%f1;\n"
	"\tadd.sat.f32.%1$s %%f7, %%rs1, %%f1;\n"
	"\tadd.rn.sat.f32.%1$s %%f8, %%rs1, %%f1;\n"
	"\tadd.rz.sat.f32.%1$s %%f9, %%rs1, %%f1;\n"
	"\tadd.rm.sat.f32.%1$s %%f10, %%rs1, %%f1;\n"
	"\tadd.rp.sat.f32.%1$s %%f11, %%rs1, %%f1;\n"
	"\tadd.rz.f32.%1$s %%f12, %%rs1, 0f3FC00000;\n"
	"\tadd.rp.f32.%1$s %%f13, %%rs1, 1.5;\n"
	"\tmul.wide.u32 %%rd5, %%r1, 48;\n\tadd.s64 %%rd6, %%rd2, %%rd5;\n"
	"\tst.global.v4.f32 [%%rd6], {%%f2, %%f3, %%f4, %%f5};\n"
	"\tst.global.v4.f32 [%%rd6+16], {%%f6, %%f7, %%f8, %%f9};\n"
	"\tst.global.v4.f32 [%%rd6+32], {%%f10, %%f11, %%f12, %%f13};\n";

/* The exact a + c in double, or false when it is not exact. */
static bool
exact_sum(double x, double y, double *s)
{
	*s = x + y;
	if (isnan(*s) || isinf(*s))
		return true;
	double big = fabs(x) >= fabs(y) ? x : y, small = big == x ? y : x;
	return (*s - big) - small == 0; /* Fast2Sum's error term */
}

static void
add_mixed_case(TestCtx *t, bool bf16)
{
	enum { N = 256 };
	const AddCase *hand = bf16 ? bf16_cases : f16_cases;
	size_t nhand = bf16 ? countof(bf16_cases) : countof(f16_cases);
	int eb = bf16 ? 8 : 5, mb = bf16 ? 7 : 10;
	static uint32_t in[N][2];
	uint32_t s = bf16 ? 3 : 5;
	for (int i = 0; i < N; i++) {
		if ((size_t)i < nhand) {
			in[i][0] = hand[i].a;
			in[i][1] = hand[i].c;
			continue;
		}
		/* a random finite half; c within 2^+-12 of it, any sign, so
		 * the sum is exact in double and often not in f32 */
		uint32_t a;
		do
			a = lcg(&s) >> 16;
		while (isnan(half_value(a, eb, mb)) ||
		       isinf(half_value(a, eb, mb)) || !(a & 0x7fff));
		double av = half_value(a, eb, mb);
		int e;
		frexp(av, &e);
		float c = ldexpf((float)(lcg(&s) >> 8) / 16777216.0f,
				 e + (int)(lcg(&s) % 25) - 12);
		in[i][0] = a;
		in[i][1] = bits_of(lcg(&s) & 1 ? -c : c);
	}
	char body[4096];
	snprintf(body, sizeof(body), add_body, bf16 ? "bf16" : "f16");
	Kernel1 k;
	run_body(&k, body, N, in, sizeof(in), N * 48, 0);
	CHECK_INT(k.status, PT_OK);
	const uint8_t *o = k.status ? NULL : out_of(&k);
	int differ = 0;
	for (int i = 0; o && i < N; i++) {
		double x = half_value(in[i][0], eb, mb), sum;
		float c = f32_of(in[i][1]);
		bool opp = x != 0 && x == -(double)c;
		uint32_t want[4];
		if ((size_t)i < nhand) {
			memcpy(want, hand[i].want, sizeof(want));
		} else {
			CHECK(exact_sum(x, c, &sum));
			for (int m = 0; m < 4; m++)
				want[m] = round_f32(sum, m, opp);
			differ += want[RN] != want[RZ] && want[RM] != want[RP];
		}
		/* the hand table agrees with the rounding the test computes */
		if ((size_t)i < nhand && exact_sum(x, c, &sum))
			for (int m = 0; m < 4; m++)
				CHECK_INT(round_f32(sum, m, opp), want[m]);
		uint32_t got[12];
		for (int j = 0; j < 12; j++)
			got[j] = word_at(o, 12 * (size_t)i + (size_t)j);
		CHECK_INT(got[0], want[RN]); /* no .rnd: .rn */
		for (int m = 0; m < 4; m++) {
			CHECK_INT(got[1 + m], want[m]);
			CHECK_INT(got[6 + m], sat_f32(want[m]));
		}
		CHECK_INT(got[5], sat_f32(want[RN]));
		double s15;
		if (exact_sum(x, 1.5, &s15)) { /* the immediate c = 1.5 */
			CHECK_INT(got[10], round_f32(s15, RZ, x == -1.5));
			CHECK_INT(got[11], round_f32(s15, RP, x == -1.5));
		}
	}
	/* the random cases round differently by mode often enough */
	if (o && differ < 40)
		test_fail(t, __FILE__, __LINE__,
			  "only %d random sums inexact in f32", differ);
	ptem_free(k.e);
}

TEST(emu_tirx_add_f32_mixed)
{
	add_mixed_case(t, true);
	add_mixed_case(t, false);
}

/* ---- tests/ptxforms' scripts through ptxtile and the emulator ---- */

/* Compiles the script for sm_100a and loads its PTX into a fresh ptem. */
static ptem *
compile_script(TestCtx *t, const char *path)
{
	Arena a;
	arena_init(&a, NULL);
	size_t len = 0;
	char *text = read_file(&a, path, &len);
	pt_ctx *ctx = pt_ctx_new(NULL);
	pt_module *m = NULL;
	const char *ptx = NULL, *meta = NULL;
	int st = text ? pt_load(ctx, path, text, len, &m) : PT_E_NOMEM;
	if (!st)
		st = pt_compile(ctx, m, "sm_100a", &ptx, &meta);
	ptem *e = ptem_new();
	if (!st)
		st = ptem_load(e, ptx, strlen(ptx));
	if (st)
		test_fail(t, __FILE__, __LINE__, "%s: %d %s", path, st,
			  ptem_errmsg(e));
	pt_ctx_free(ctx);
	arena_free(&a);
	if (st) {
		ptem_free(e);
		return NULL;
	}
	return e;
}

TEST(emu_tirx_script_fns_movmatrix)
{
	/* x = A[lane, 0]; A[lane, 0] = fns(x, 0, lane % 4);
	 * A[lane, 1] = movmatrix(x) */
	ptem *e = compile_script(t, "tests/ptxforms/fns_movmatrix.py");
	if (!e)
		return;
	uint32_t a[32][2], x[32];
	uint32_t s = 19;
	for (int l = 0; l < 32; l++) {
		x[l] = lcg(&s) & lcg(&s);
		a[l][0] = x[l];
		a[l][1] = 0;
	}
	uint64_t da = 0;
	CHECK_INT(ptem_alloc(e, sizeof(a), &da), PT_OK);
	memcpy(ptem_host(e, da, sizeof(a)), a, sizeof(a));
	ptem_arg args[] = {{&da, 8}};
	ptem_launch l = {{1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 0, 0, 0};
	int st = ptem_run(e, "fns_movmatrix", &l, args, 1);
	if (st)
		test_fail(t, __FILE__, __LINE__, "%s", ptem_errmsg(e));
	const uint32_t(*o)[2] = st ? NULL : ptem_host(e, da, sizeof(a));
	for (int ln = 0; o && ln < 32; ln++) {
		CHECK_INT(o[ln][0], ref_fns(x[ln], 0, ln % 4));
		/* lane ln gets column ln/4, rows 2(ln%4), 2(ln%4)+1 */
		int col = ln / 4, r0 = 2 * (ln % 4);
		uint32_t lo = x[4 * r0 + col / 2] >> (16 * (col % 2)) & 0xffff;
		uint32_t hi =
			x[4 * (r0 + 1) + col / 2] >> (16 * (col % 2)) & 0xffff;
		CHECK_INT(o[ln][1], lo | hi << 16);
	}
	ptem_free(e);
}

TEST(emu_tirx_script_add_st_bulk)
{
	/* A[lane] = add.rn.f32.bf16(H[lane], A[lane]), then overwritten by
	 * add.rz.sat.f32.f16(G[lane], 1.5); three st.bulk of the shared
	 * buffer (128 bytes, then n at offsets 0 and 32) */
	ptem *e = compile_script(t, "tests/ptxforms/sm100_add_st_bulk.py");
	if (!e)
		return;
	float a[32];
	uint16_t h[32], g[32];
	for (int l = 0; l < 32; l++) {
		a[l] = (float)l;
		h[l] = 0x3f80;			  /* bf16 1.0 */
		g[l] = f16_exact((l - 16) / 8.0); /* -2 .. 1.875 */
	}
	uint64_t n = 64;
	for (int run = 0; run < 2; run++) {
		uint64_t da, dh, dg;
		CHECK_INT(ptem_alloc(e, sizeof(a), &da), PT_OK);
		CHECK_INT(ptem_alloc(e, sizeof(h), &dh), PT_OK);
		CHECK_INT(ptem_alloc(e, sizeof(g), &dg), PT_OK);
		memcpy(ptem_host(e, da, sizeof(a)), a, sizeof(a));
		memcpy(ptem_host(e, dh, sizeof(h)), h, sizeof(h));
		memcpy(ptem_host(e, dg, sizeof(g)), g, sizeof(g));
		ptem_arg args[] = {{&da, 8}, {&dh, 8}, {&dg, 8}, {&n, 8}};
		ptem_launch l = {{1, 1, 1}, {32, 1, 1}, {1, 1, 1}, 0, 0, 0};
		int st = ptem_run(e, "add_st_bulk", &l, args, 4);
		if (run == 1) {
			/* n = 12: not a multiple of 8 */
			if (st != PT_E_EMU_OOB ||
			    !strstr(ptem_errmsg(e),
				    "(st.bulk): st.bulk size 12"))
				test_fail(t, __FILE__, __LINE__,
					  "n = 12: %d %s", st, ptem_errmsg(e));
			break;
		}
		if (st)
			test_fail(t, __FILE__, __LINE__, "%s", ptem_errmsg(e));
		const float *o = st ? NULL : ptem_host(e, da, sizeof(a));
		for (int ln = 0; o && ln < 32; ln++) {
			double sum = half_value(g[ln], 5, 10) + 1.5; /* exact */
			CHECK_INT(bits_of(o[ln]),
				  sat_f32(round_f32(sum, RZ, sum == 0)));
		}
		n = 12;
	}
	ptem_free(e);
}
