/*
 * test_emu_tcgen05.c - the emulator's tcgen05.mma forms beyond kind::f16
 * K-major (the block-scaled kinds with FP4/FP6/FP8 data and UE8M0/UE4M3
 * scales, f8f6f4 and i8, MN-major operands and negation, A in TMEM, the
 * .ws collector and zero-column mask) and tcgen05.cp decompression.
 *
 * One harness kernel (128 threads, 512 TMEM columns): the test's shared
 * image is copied to shared memory, its 128 x 64-word TMEM image to
 * columns 256..319 (scale factors, A, preloaded D), thread 0 runs the
 * case's instructions and commits, and every thread dumps its lane's
 * columns 0..319.  Images are built here from the ISA's canonical
 * layouts, packing formats and scale-factor layout; expected values are
 * exact host sums of elements decoded here from the format definitions.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "ptxtile.h"
#include "ptxtile_emu.h"

enum { SM_BYTES = 16384, TCOLS = 64, RCOLS = 320 };

typedef struct Tc {
	uint8_t sm[SM_BYTES];
	uint32_t tm[128][TCOLS];   /* TMEM columns 256..319 */
	uint32_t idesc;
	uint64_t da, db;           /* descriptors, start relative to sm */
	uint32_t out[128 * RCOLS]; /* lane x columns 0..319 */
	char err[512];
	struct Tc *peer;           /* a CTA pair: CTA 1's images and dump */
} Tc;

static const char tc_head[] =
	".version 8.8\n.target sm_100a\n.address_size 64\n"
	".visible .entry k(.param .u64 gs, .param .u64 gt, .param .u64 out,\n"
	"  .param .u32 idesc, .param .u64 da, .param .u64 db)\n{\n"
	"\t.reg .pred %p<8>;\n\t.reg .b32 %r<64>;\n\t.reg .b64 %rd<32>;\n"
	"\t.reg .b32 %q<64>;\n"
	"\t.shared .align 1024 .b8 sm[16384];\n"
	"\t.shared .align 8 .b8 bar[8];\n\t.shared .align 4 .b8 ta[4];\n"
	"\tld.param.u64 %rd1, [gs];\n\tld.param.u64 %rd2, [gt];\n"
	"\tld.param.u64 %rd3, [out];\n\tld.param.u32 %r30, [idesc];\n"
	"\tld.param.u64 %rd6, [da];\n\tld.param.u64 %rd7, [db];\n"
	"\tmov.u32 %r1, %tid.x;\n\tshr.u32 %r2, %r1, 5;\n"
	"\tsetp.eq.u32 %p1, %r2, 0;\n\t@!%p1 bra $L_na;\n"
	"\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [ta], 512;\n"
	"$L_na:\n\tsetp.eq.u32 %p2, %r1, 0;\n"
	"\t@%p2 mbarrier.init.shared.b64 [bar], 1;\n"
	"\tshl.b32 %r3, %r1, 4;\n"
	"$L_c:\n\tcvt.u64.u32 %rd4, %r3;\n\tadd.s64 %rd5, %rd1, %rd4;\n"
	"\tld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd5];\n"
	"\tmov.u32 %r4, sm;\n\tadd.s32 %r4, %r4, %r3;\n"
	"\tst.shared.v4.u32 [%r4], {%r10, %r11, %r12, %r13};\n"
	"\tadd.s32 %r3, %r3, 2048;\n\tsetp.lt.u32 %p3, %r3, 16384;\n"
	"\t@%p3 bra $L_c;\n"
	"\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n"
	"\ttcgen05.fence::after_thread_sync;\n\tld.shared.u32 %r6, [ta];\n"
	"\tmul.wide.u32 %rd8, %r1, 256;\n\tadd.s64 %rd8, %rd2, %rd8;\n";
static const char tc_mid[] =
	"\tshl.b32 %r5, %r2, 21;\n\tadd.s32 %r5, %r5, %r6;\n"
	"\tadd.s32 %r5, %r5, 256;\n"
	"\ttcgen05.st.sync.aligned.32x32b.x64.b32 [%r5], {%q0, %q1, %q2, %q3, "
	"%q4, %q5, %q6, %q7, %q8, %q9, %q10, %q11, %q12, %q13, %q14, %q15, "
	"%q16, %q17, %q18, %q19, %q20, %q21, %q22, %q23, %q24, %q25, %q26, "
	"%q27, %q28, %q29, %q30, %q31, %q32, %q33, %q34, %q35, %q36, %q37, "
	"%q38, %q39, %q40, %q41, %q42, %q43, %q44, %q45, %q46, %q47, %q48, "
	"%q49, %q50, %q51, %q52, %q53, %q54, %q55, %q56, %q57, %q58, %q59, "
	"%q60, %q61, %q62, %q63};\n"
	"\ttcgen05.wait::st.sync.aligned;\n\tfence.proxy.async.shared::cta;\n"
	"\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n"
	"\ttcgen05.fence::after_thread_sync;\n\t@!%p2 bra $L_w;\n"
	"\tmov.u32 %r7, sm;\n\tshr.u32 %r7, %r7, 4;\n\tcvt.u64.u32 %rd9, %r7;\n"
	"\tadd.s64 %rd6, %rd6, %rd9;\n\tadd.s64 %rd7, %rd7, %rd9;\n"
	"\tadd.s32 %r40, %r6, 256;\n\tadd.s32 %r41, %r6, 260;\n"
	"\tadd.s32 %r42, %r6, 264;\n\tadd.s32 %r43, %r6, 272;\n"
	"\tsetp.ne.u32 %p3, %r1, 0;\n\tsetp.eq.u32 %p4, %r1, 0;\n";
static const char tc_tail[] =
	"\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];\n"
	"$L_w:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p5, [bar], 0;\n"
	"\t@!%p5 bra $L_w;\n\ttcgen05.fence::after_thread_sync;\n"
	"\tshl.b32 %r9, %r2, 21;\n\tadd.s32 %r9, %r9, %r6;\n\tmov.u32 %r20, 0;\n"
	"$L_rd:\n\tadd.s32 %r21, %r9, %r20;\n"
	"\ttcgen05.ld.sync.aligned.32x32b.x1.b32 {%r22}, [%r21];\n"
	"\ttcgen05.wait::ld.sync.aligned;\n"
	"\tmul.lo.s32 %r23, %r1, 320;\n\tadd.s32 %r23, %r23, %r20;\n"
	"\tmul.wide.u32 %rd10, %r23, 4;\n\tadd.s64 %rd11, %rd3, %rd10;\n"
	"\tst.global.u32 [%rd11], %r22;\n\tadd.s32 %r20, %r20, 1;\n"
	"\tsetp.lt.u32 %p6, %r20, 320;\n\t@%p6 bra $L_rd;\n"
	"\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n"
	"\t@!%p1 bra $L_end;\n"
	"\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r6, 512;\n"
	"$L_end:\n\tret;\n}\n";

/* With EMU_TC_DUMP=DIR every harness kernel is also written to
 * DIR/tcN.ptx, for tests/suites/emu.sh to check with ptxas -arch=sm_100a
 * (the emulator must not accept PTX the real assembler rejects). */
static void
tc_dump(const char *ptx)
{
	static int seq;
	const char *dir = getenv("EMU_TC_DUMP");
	char path[4096];
	if (!dir || snprintf(path, sizeof(path), "%s/tc%d.ptx", dir, seq++) >=
			    (int)sizeof(path))
		return;
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(ptx, f);
		fclose(f);
	}
}

/* Replaces the first `from` in buf (capacity cap) by `to`. */
static void
subst(char *buf, size_t cap, const char *from, const char *to)
{
	char *p = strstr(buf, from);
	size_t nf = strlen(from), nt = strlen(to), n = strlen(buf);
	if (!p || n - nf + nt >= cap)
		return;
	memmove(p + nt, p + nf, n - (size_t)(p - buf) - nf + 1);
	memcpy(p, to, nt);
}

/* The harness on a CTA pair (grid 2, cluster 2): .cta_group::2 alloc and
 * dealloc, CTA v's images and dump at v times their size, a cluster
 * barrier before CTA 0's thread 0 issues, the commit multicast to both
 * CTAs' barriers. */
static void
pair_ptx(char *ptx, size_t cap)
{
	subst(ptx, cap, "\t.reg .b32 %q<64>;\n",
	      "\t.reg .b32 %q<64>;\n\t.reg .b16 %rs<2>;\n");
	subst(ptx, cap, "\tmov.u32 %r1, %tid.x;\n",
	      "\tmov.u32 %r50, %cluster_ctarank;\n"
	      "\tmul.wide.u32 %rd12, %r50, 16384;\n\tadd.s64 %rd1, %rd1, %rd12;\n"
	      "\tmul.wide.u32 %rd12, %r50, 32768;\n\tadd.s64 %rd2, %rd2, %rd12;\n"
	      "\tmul.wide.u32 %rd12, %r50, 163840;\n\tadd.s64 %rd3, %rd3, %rd12;\n"
	      "\tmov.u32 %r1, %tid.x;\n");
	subst(ptx, cap, "alloc.cta_group::1", "alloc.cta_group::2");
	subst(ptx, cap, "dealloc.cta_group::1", "dealloc.cta_group::2");
	subst(ptx, cap, "\tfence.proxy.async.shared::cta;\n"
	      "\ttcgen05.fence::before_thread_sync;\n\tbar.sync 0;\n",
	      "\tfence.proxy.async.shared::cta;\n"
	      "\ttcgen05.fence::before_thread_sync;\n"
	      "\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n");
	subst(ptx, cap, "\t@!%p2 bra $L_w;\n\tmov.u32 %r7, sm;",
	      "\tsetp.eq.and.u32 %p2, %r50, 0, %p2;\n"
	      "\t@!%p2 bra $L_w;\n\tmov.u32 %r7, sm;");
	subst(ptx, cap,
	      "tcgen05.commit.cta_group::1.mbarrier::arrive::one."
	      "shared::cluster.b64 [bar];",
	      "mov.b16 %rs1, 3;\n\ttcgen05.commit.cta_group::2.mbarrier::"
	      "arrive::one.shared::cluster.multicast::cluster.b64 [bar], %rs1;");
}

/* Runs the harness with `body` issued by thread 0 (of CTA 0 of a pair
 * when x->peer is set); the status. */
static int
tc_run(Tc *x, const char *body)
{
	static char ptx[32768];
	size_t n = 0;
	unsigned ncta = x->peer ? 2 : 1;
	n += (size_t)snprintf(ptx + n, sizeof(ptx) - n, "%s", tc_head);
	for (int i = 0; i < 16; i++)
		n += (size_t)snprintf(ptx + n, sizeof(ptx) - n,
				      "\tld.global.v4.u32 {%%q%d, %%q%d, %%q%d, "
				      "%%q%d}, [%%rd8+%d];\n", 4 * i, 4 * i + 1,
				      4 * i + 2, 4 * i + 3, 16 * i);
	snprintf(ptx + n, sizeof(ptx) - n, "%s%s%s", tc_mid, body, tc_tail);
	if (x->peer)
		pair_ptx(ptx, sizeof(ptx));
	tc_dump(ptx);
	ptem *e = ptem_new();
	uint64_t gs = 0, gt = 0, go = 0;
	int st = ptem_load(e, ptx, strlen(ptx));
	if (!st)
		st = ptem_alloc(e, ncta * SM_BYTES, &gs);
	if (!st)
		st = ptem_alloc(e, ncta * sizeof(x->tm), &gt);
	if (!st)
		st = ptem_alloc(e, ncta * sizeof(x->out), &go);
	for (unsigned v = 0; v < ncta && !st; v++) {
		const Tc *y = v ? x->peer : x;
		memcpy(ptem_host(e, gs + v * SM_BYTES, SM_BYTES), y->sm, SM_BYTES);
		memcpy(ptem_host(e, gt + v * sizeof(x->tm), sizeof(x->tm)), y->tm,
		       sizeof(x->tm));
	}
	if (!st) {
		ptem_arg args[] = {{&gs, 8}, {&gt, 8}, {&go, 8},
				   {&x->idesc, 4}, {&x->da, 8}, {&x->db, 8}};
		ptem_launch l = {{ncta, 1, 1}, {128, 1, 1}, {ncta, 1, 1}, 0,
				 PTEM_LATE_COMPLETION, 0};
		st = ptem_run(e, "k", &l, args, 6);
	}
	snprintf(x->err, sizeof(x->err), "%s", st ? ptem_errmsg(e) : "");
	for (unsigned v = 0; v < ncta && !st; v++)
		memcpy((v ? x->peer : x)->out,
		       ptem_host(e, go + v * sizeof(x->out), sizeof(x->out)),
		       sizeof(x->out));
	ptem_free(e);
	return st;
}

/* ---- element formats, decoded from their definitions ---- */

static uint32_t rng_state;

static uint32_t
rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

/* A binary float with e exponent bits (bias 2^(e-1) - 1), m mantissa
 * bits, no infinities or NaN (the caller avoids those codes). */
static double
fp_decode(uint32_t v, int e, int m)
{
	uint32_t ex = v >> m & ((1u << e) - 1), mant = v & ((1u << m) - 1);
	int bias = (1 << (e - 1)) - 1;
	double x = ex == 0 ? mant / (double)(1 << m) * pow(2, 1 - bias)
			   : (1 + mant / (double)(1 << m)) * pow(2, (int)ex - bias);
	return v >> (e + m) & 1 ? -x : x;
}

typedef enum F { F_E4M3, F_E5M2, F_E2M3, F_E3M2, F_E2M1, F_S8, F_U8 } F;
static const int f_bits[] = {8, 8, 6, 6, 4, 8, 8};

static double
f_value(F f, uint32_t v)
{
	switch (f) {
	case F_E4M3: return fp_decode(v, 4, 3);
	case F_E5M2: return fp_decode(v, 5, 2);
	case F_E2M3: return fp_decode(v, 2, 3);
	case F_E3M2: return fp_decode(v, 3, 2);
	case F_E2M1: return fp_decode(v, 2, 1);
	case F_S8: return (int8_t)v;
	default: return v;
	}
}

/* A random code of format f: finite (e4m3 0x7f/0xff and e5m2 exponent 31
 * avoided) and small enough for exact sums. */
static uint32_t
f_code(F f)
{
	uint32_t v = rnd() & ((1u << f_bits[f]) - 1);
	if (f == F_E4M3)
		v &= 0xbf; /* exponent <= 7 */
	if (f == F_E5M2)
		v &= 0xbf; /* exponent <= 15 */
	return v;
}

/* Row of K codes packed as the MMA reads it from shared memory: 8-bit
 * one per byte; FP4/FP6 of f8f6f4/mxf8f6f4 sixteen to a 16-byte block
 * (bits [w e, w e + w), then padding, here filled with junk); FP4 of
 * mxf4/mxf4nvf4 two per byte, low nibble first. */
static void
pack_row(uint8_t *row, const uint32_t *code, int k, int bits, bool dense4)
{
	memset(row, 0, 32);
	for (int i = 0; i < k; i++) {
		int bit = bits == 8 || dense4 ? bits * i
			  : 128 * (i / 16) + bits * (i % 16);
		for (int b = 0; b < bits; b++)
			if (code[i] >> b & 1)
				row[(bit + b) / 8] |= (uint8_t)(1u << ((bit + b) % 8));
	}
	if (bits < 8 && !dense4)
		for (int blk = 0; blk < 2; blk++)
			for (int p = bits * 2; p < 16; p++)
				row[16 * blk + p] = (uint8_t)(0xa5 ^ p);
}

/* K-major, no swizzle (the canonical ((8,m),(T,2)):((1T,SBO),(1,LBO))):
 * 16-byte chunk c of row r at (r % 8) 16 + (r / 8) SBO + c LBO with
 * LBO 128, SBO 256; the descriptor for an image at byte `at`. */
static uint64_t
place_kmajor(uint8_t *sm, uint32_t at, int rows, const uint8_t (*row)[32])
{
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < 2; c++)
			memcpy(sm + at + (r % 8) * 16 + (r / 8) * 256 + c * 128,
			       row[r] + 16 * c, 16);
	return 1ull << 46 | 16ull << 32 | 8ull << 16 | at >> 4;
}

/* Byte `byte` of TMEM column 256 + col at lane. */
static void
tm_byte(Tc *x, int lane, int col, int byte, uint32_t v)
{
	x->tm[lane][col] &= ~(0xffu << 8 * byte);
	x->tm[lane][col] |= v << 8 * byte;
}

static float
out_f(const Tc *x, int lane, int col)
{
	float f;
	memcpy(&f, &x->out[lane * RCOLS + col], 4);
	return f;
}

/* ---- block-scaled kinds ---- */

typedef struct Scaled {
	const char *insn;  /* the tcgen05.mma text (operands included) */
	int kind;          /* 0 mxf8f6f4, 1 mxf4, 2 mxf4nvf4 */
	F fa, fb;
	int nsf;           /* scales per row */
	bool ue4m3, nega, negb;
	int sfa, sfb;      /* scale-factor IDs */
} Scaled;

enum { SM_ = 128, SN = 64 };

/* Scale codes: UE8M0 2^(e - 127) with e in 122..133; UE4M3 positive
 * normal (exponent 4..9, any mantissa), value (1 + m/8) 2^(e - 7). */
static double
scale_decode(uint32_t v, bool ue4m3)
{
	return ue4m3 ? (1 + (v & 7) / 8.0) * pow(2, (int)(v >> 3) - 7)
		     : pow(2, (int)v - 127);
}

static uint32_t
scale_code(bool ue4m3)
{
	return ue4m3 ? (4 + rnd() % 6) << 3 | (rnd() & 7) : 122 + rnd() % 12;
}

static void
scaled_case(TestCtx *t, const Scaled *s)
{
	static Tc x;
	static uint32_t ca[SM_][64], cb[SN][64], sa[SM_][4], sb[SN][4];
	static uint8_t ra[SM_][32], rb[SN][32];
	memset(&x, 0, sizeof(x));
	int k = s->kind ? 64 : 32;
	bool dense4 = s->kind != 0;
	for (int i = 0; i < SM_; i++) {
		for (int q = 0; q < k; q++)
			ca[i][q] = f_code(s->fa);
		pack_row(ra[i], ca[i], k, f_bits[s->fa], dense4);
	}
	for (int j = 0; j < SN; j++) {
		for (int q = 0; q < k; q++)
			cb[j][q] = f_code(s->fb);
		pack_row(rb[j], cb[j], k, f_bits[s->fb], dense4);
	}
	x.da = place_kmajor(x.sm, 0, SM_, ra);
	x.db = place_kmajor(x.sm, 8192, SN, rb);
	/* junk everywhere in the scale columns, then the scales: row r at
	 * lane r % 32 of every sub-partition, column r / 32, byte id + b
	 * (SFA from column 256, SFB from 260) */
	for (int l = 0; l < 128; l++)
		for (int c = 0; c < 8; c++)
			x.tm[l][c] = rnd() | 0x80808080u;
	for (int i = 0; i < SM_; i++)
		for (int b = 0; b < s->nsf; b++)
			sa[i][b] = scale_code(s->ue4m3);
	for (int j = 0; j < SN; j++)
		for (int b = 0; b < s->nsf; b++)
			sb[j][b] = scale_code(s->ue4m3);
	for (int rep = 0; rep < 4; rep++) {
		for (int i = 0; i < SM_; i++)
			for (int b = 0; b < s->nsf; b++)
				tm_byte(&x, 32 * rep + i % 32, i / 32, s->sfa + b,
					sa[i][b]);
		for (int j = 0; j < SN; j++)
			for (int b = 0; b < s->nsf; b++)
				tm_byte(&x, 32 * rep + j % 32, 4 + j / 32,
					s->sfb + b, sb[j][b]);
	}
	/* PTX Tables 43/44: B SF ID [4,6), A/B format [7,10)/[10,13),
	 * negate 13/14, N >> 3 at 17, scale type 23 (UE8M0 1), M >> 7 at
	 * 27, A SF ID [29,31) */
	static const uint32_t code[] = {0, 1, 3, 4, 5};
	uint32_t fa = s->kind ? 1 : code[s->fa], fb = s->kind ? 1 : code[s->fb];
	x.idesc = (uint32_t)s->sfb << 4 | fa << 7 | fb << 10 |
		  (uint32_t)s->nega << 13 | (uint32_t)s->negb << 14 |
		  (SN >> 3) << 17 | (uint32_t)!s->ue4m3 << 23 |
		  (SM_ >> 7) << 27 | (uint32_t)s->sfa << 29;
	int st = tc_run(&x, s->insn);
	CHECK_INT(st, PT_OK);
	if (st) {
		fprintf(stderr, "  %s\n", x.err);
		return;
	}
	int bad = 0, blk = k / s->nsf;
	double sign = (s->nega ? -1 : 1) * (s->negb ? -1 : 1);
	for (int i = 0; i < SM_; i++)
		for (int j = 0; j < SN; j++) {
			double d = 0;
			for (int b = 0; b < s->nsf; b++) {
				double p = 0;
				for (int q = b * blk; q < (b + 1) * blk; q++)
					p += f_value(s->fa, ca[i][q]) *
					     f_value(s->fb, cb[j][q]);
				d += p * scale_decode(sa[i][b], s->ue4m3) *
				     scale_decode(sb[j][b], s->ue4m3);
			}
			/* two MMAs: D = s, then D + s */
			float once = (float)(sign * d);
			float want = (float)((double)once + sign * d);
			bad += out_f(&x, i, j) != want;
		}
	CHECK_INT(bad, 0);
}

static char *
twice(char *buf, size_t cap, const char *mma)
{
	snprintf(buf, cap, "\t%s %%p3;\n\t%s %%p4;\n", mma, mma);
	return buf;
}

TEST(emu_tcgen05_mma_mxf8f6f4_fp4_fp6)
{
	char b[512];
	rng_state = 7;
	/* E2M1 x E3M2, scale IDs 1 and 2 */
	Scaled s = {twice(b, sizeof(b),
		"tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale."
		"scale_vec::1X [%r6], %rd6, %rd7, %r30, [%r40], [%r41],"),
		0, F_E2M1, F_E3M2, 1, false, false, false, 1, 2};
	scaled_case(t, &s);
	/* E2M3 x E4M3, A negated, .block32, IDs 0 and 3 */
	Scaled s2 = {twice(b, sizeof(b),
		"tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32 "
		"[%r6], %rd6, %rd7, %r30, [%r40], [%r41],"),
		0, F_E2M3, F_E4M3, 1, false, true, false, 0, 3};
	scaled_case(t, &s2);
	/* E5M2 x E2M1, default scale vector, B negated */
	Scaled s3 = {twice(b, sizeof(b),
		"tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale "
		"[%r6], %rd6, %rd7, %r30, [%r40], [%r41],"),
		0, F_E5M2, F_E2M1, 1, false, false, true, 2, 1};
	scaled_case(t, &s3);
}

TEST(emu_tcgen05_mma_mxf4)
{
	char b[512];
	rng_state = 11;
	/* mxf4 2X: IDs 2 (A, also as the CUTLASS-style byte select in
	 * bits 31:30 of the scale address) and 0 */
	Scaled s = {twice(b, sizeof(b),
		"or.b32 %r45, %r40, 0x80000000;\n\ttcgen05.mma.cta_group::1."
		"kind::mxf4.block_scale.scale_vec::2X [%r6], %rd6, %rd7, %r30, "
		"[%r45], [%r41],"),
		1, F_E2M1, F_E2M1, 2, false, false, false, 2, 0};
	scaled_case(t, &s);
	/* mxf4nvf4 4X with UE4M3 scales, B negated */
	Scaled s2 = {twice(b, sizeof(b),
		"tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale."
		"scale_vec::4X [%r6], %rd6, %rd7, %r30, [%r40], [%r41],"),
		2, F_E2M1, F_E2M1, 4, true, false, true, 0, 0};
	scaled_case(t, &s2);
	/* mxf4nvf4 block32 (2X, UE8M0), IDs 0 and 2 */
	Scaled s3 = {twice(b, sizeof(b),
		"tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block32 "
		"[%r6], %rd6, %rd7, %r30, [%r40], [%r41],"),
		2, F_E2M1, F_E2M1, 2, false, true, false, 0, 2};
	scaled_case(t, &s3);
	/* mxf4nvf4 4X with UE8M0 scales */
	Scaled s4 = {twice(b, sizeof(b),
		"tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 "
		"[%r6], %rd6, %rd7, %r30, [%r40], [%r41],"),
		2, F_E2M1, F_E2M1, 4, false, false, false, 0, 0};
	scaled_case(t, &s4);
}

/* ---- dense kinds: f8f6f4 and i8 ---- */

/* x rounded to f16 (nearest even), for the f16 accumulator. */
static uint16_t
f16_rne(double v)
{
	uint16_t sign = v < 0 ? 0x8000 : 0;
	v = fabs(v);
	if (v == 0)
		return sign;
	int e;
	frexp(v, &e);
	int ex = e - 1 < -14 ? -14 : e - 1;
	uint32_t q = (uint32_t)nearbyint(ldexp(v, 10 - ex));
	if (q < 1024)
		return sign | (uint16_t)q;
	uint32_t E = (uint32_t)(ex + 15) + (q == 2048), M = q == 2048 ? 0 : q - 1024;
	return E >= 31 ? sign | 0x7c00 : (uint16_t)(sign | E << 10 | M);
}

typedef struct Dense {
	const char *insn;
	F fa, fb;
	int n, dfmt;       /* D: 0 f16, 1 f32, 2 s32 */
	bool sat, nega, negb;
	int dcol;          /* D at column dcol (272: preloaded, i8) */
} Dense;

static void
dense_case(TestCtx *t, const Dense *s)
{
	static Tc x;
	static uint32_t ca[128][32], cb[64][32];
	static uint8_t ra[128][32], rb[64][32];
	memset(&x, 0, sizeof(x));
	for (int i = 0; i < 128; i++) {
		for (int q = 0; q < 32; q++)
			ca[i][q] = f_code(s->fa);
		pack_row(ra[i], ca[i], 32, f_bits[s->fa], false);
	}
	for (int j = 0; j < s->n; j++) {
		for (int q = 0; q < 32; q++)
			cb[j][q] = f_code(s->fb);
		pack_row(rb[j], cb[j], 32, f_bits[s->fb], false);
	}
	x.da = place_kmajor(x.sm, 0, 128, ra);
	x.db = place_kmajor(x.sm, 8192, s->n, rb);
	/* D preloaded near the int32 limits (enable-input-d true) */
	for (int i = 0; i < 128; i++)
		for (int j = 0; j < s->n && s->dcol; j++)
			x.tm[i][s->dcol - 256 + j] = (i + j) % 2 ? 0x7fffff00u
								 : 0x80000100u;
	static const uint32_t fcode[] = {0, 1, 3, 4, 5, 1, 0};
	/* PTX Table 42: saturate 3, D format [4,6), A/B [7,10)/[10,13),
	 * negate 13/14, N >> 3 at 17, M >> 4 at 24 */
	x.idesc = (uint32_t)s->sat << 3 | (uint32_t)s->dfmt << 4 |
		  fcode[s->fa] << 7 | fcode[s->fb] << 10 |
		  (uint32_t)s->nega << 13 | (uint32_t)s->negb << 14 |
		  (uint32_t)(s->n >> 3) << 17 | (128 >> 4) << 24;
	int st = tc_run(&x, s->insn);
	CHECK_INT(st, PT_OK);
	if (st) {
		fprintf(stderr, "  %s\n", x.err);
		return;
	}
	int bad = 0;
	double sign = (s->nega ? -1 : 1) * (s->negb ? -1 : 1);
	for (int i = 0; i < 128; i++)
		for (int j = 0; j < s->n; j++) {
			double d = 0;
			for (int q = 0; q < 32; q++)
				d += f_value(s->fa, ca[i][q]) * f_value(s->fb, cb[j][q]);
			d *= sign;
			uint32_t got = x.out[i * RCOLS + s->dcol + j], want;
			if (s->dfmt == 2) {
				long long v = (long long)d + (s->dcol ? (int32_t)
					x.tm[i][s->dcol - 256 + j] : 0);
				if (s->sat)
					v = v > 2147483647LL ? 2147483647LL
					    : v < -2147483648LL ? -2147483648LL : v;
				want = (uint32_t)(unsigned long long)v;
			} else if (s->dfmt == 1) {
				float f = (float)d;
				memcpy(&want, &f, 4);
			} else {
				want = f16_rne(d);
				got &= 0xffff;
			}
			bad += got != want;
		}
	CHECK_INT(bad, 0);
}

TEST(emu_tcgen05_mma_f8f6f4_i8)
{
	rng_state = 23;
	static const char f[] =
		"\ttcgen05.mma.cta_group::1.kind::f8f6f4 [%r6], %rd6, %rd7, %r30, %p3;\n";
	Dense d1 = {f, F_E5M2, F_E2M1, 64, 1, false, false, false, 0};
	dense_case(t, &d1);
	/* E4M3 x E3M2 into an f16 accumulator, A negated */
	Dense d2 = {f, F_E4M3, F_E3M2, 64, 0, false, true, false, 0};
	dense_case(t, &d2);
	/* FP6 x FP6 (E2M3 x E3M2): both from padded images */
	Dense d3 = {f, F_E2M3, F_E3M2, 48, 1, false, false, true, 0};
	dense_case(t, &d3);
	/* i8: s8 x u8 onto D preloaded near the int32 limits, N 32: with
	 * the saturate bit the sums clamp, without it they wrap */
	static const char i8[] =
		"\ttcgen05.mma.cta_group::1.kind::i8 [%r43], %rd6, %rd7, %r30, %p4;\n";
	Dense d4 = {i8, F_S8, F_U8, 32, 2, true, false, false, 272};
	dense_case(t, &d4);
	Dense d5 = {i8, F_U8, F_S8, 32, 2, false, false, false, 272};
	dense_case(t, &d5);
}

/* ---- MN-major operands (the transpose bits) ---- */

/* Runs body and checks D (M 128 x N 64, lane i, column j) against
 * f32(scale * sum_k a[i][k] b[j][k]) for float operands of K columns. */
static void
run_check_f32(TestCtx *t, Tc *x, const char *body, const float *a,
	      const float *b, int k, double scale)
{
	int st = tc_run(x, body);
	CHECK_INT(st, PT_OK);
	if (st) {
		fprintf(stderr, "  %s\n", x->err);
		return;
	}
	int bad = 0;
	for (int i = 0; i < 128; i++)
		for (int j = 0; j < 64; j++) {
			double s = 0;
			for (int q = 0; q < k; q++)
				s += (double)a[i * k + q] * b[j * k + q];
			bad += out_f(x, i, j) != (float)(scale * s);
		}
	CHECK_INT(bad, 0);
}


static uint16_t
bf16_of(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16); /* exact: multiples of 1/8, small */
}

/* bf16 M128 N64 K16: A MN-major with the 128B swizzle (canonical
 * ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)), T = 8: byte 2 (x % 64) +
 * LBO (x / 64) + 128 (k % 8) + SBO (k / 8), LBO 2048, SBO 1024, then
 * 16-byte chunk bits [4,7) ^= bits [7,10)); B MN-major without swizzle
 * (((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)): byte 2 (x % 8) + SBO (x / 8) +
 * 16 (k % 8) + LBO (k / 8), SBO 128, LBO 1024); B negated. */
static void
mn_bf16(TestCtx *t)
{
	static Tc x;
	static float a[128][16], b[64][16];
	memset(&x, 0, sizeof(x));
	for (int i = 0; i < 128; i++)
		for (int k = 0; k < 16; k++) {
			a[i][k] = (float)((int)(rnd() % 64) - 32) / 8;
			uint32_t o = (uint32_t)(2 * (i % 64) + 2048 * (i / 64) +
						128 * (k % 8) + 1024 * (k / 8));
			o ^= ((o >> 7) & 7) << 4;
			uint16_t h = bf16_of(a[i][k]);
			memcpy(x.sm + o, &h, 2);
		}
	for (int j = 0; j < 64; j++)
		for (int k = 0; k < 16; k++) {
			b[j][k] = (float)((int)(rnd() % 64) - 32) / 8;
			uint32_t o = (uint32_t)(8192 + 2 * (j % 8) + 128 * (j / 8) +
						16 * (k % 8) + 1024 * (k / 8));
			uint16_t h = bf16_of(b[j][k]);
			memcpy(x.sm + o, &h, 2);
		}
	x.da = 2ull << 61 | 1ull << 46 | 64ull << 32 | 128ull << 16;
	x.db = 1ull << 46 | 8ull << 32 | 64ull << 16 | 8192 >> 4;
	/* D f32, A/B bf16, negate B 14, A/B MN-major 15/16 */
	x.idesc = 1u << 4 | 1u << 7 | 1u << 10 | 1u << 14 | 1u << 15 |
		  1u << 16 | (64 >> 3) << 17 | (128 >> 4) << 24;
	run_check_f32(t, &x, "\ttcgen05.mma.cta_group::1.kind::f16 [%r6], "
		      "%rd6, %rd7, %r30, %p3;\n", &a[0][0], &b[0][0], 16, -1);
}

/* tf32 M128 N64 K8: A MN-major with 128B_BASE32B (descriptor mode 1:
 * four 128-byte K rows per SBO group, 128-byte M chunks LBO apart,
 * then offset ^ ((offset >> 2) & 96)), SBO 512, LBO 1024; B K-major
 * without swizzle; A negated. */
static void
mn_tf32(TestCtx *t)
{
	static Tc x;
	static float a[128][8], b[64][8];
	static uint8_t rb[64][32];
	memset(&x, 0, sizeof(x));
	for (int i = 0; i < 128; i++)
		for (int k = 0; k < 8; k++) {
			a[i][k] = (float)((int)(rnd() % 64) - 32) / 8;
			uint32_t o = (uint32_t)(4 * (i % 32) + 1024 * (i / 32) +
						128 * (k % 4) + 512 * (k / 4));
			o ^= (o >> 2) & 96;
			memcpy(x.sm + o, &a[i][k], 4);
		}
	for (int j = 0; j < 64; j++)
		for (int k = 0; k < 8; k++) {
			b[j][k] = (float)((int)(rnd() % 64) - 32) / 8;
			memcpy(rb[j] + 4 * k, &b[j][k], 4);
		}
	x.da = 1ull << 61 | 1ull << 46 | 32ull << 32 | 64ull << 16;
	x.db = place_kmajor(x.sm, 8192, 64, rb);
	/* D f32, A/B tf32 (2), negate A 13, A MN-major 15 */
	x.idesc = 1u << 4 | 2u << 7 | 2u << 10 | 1u << 13 | 1u << 15 |
		  (64 >> 3) << 17 | (128 >> 4) << 24;
	run_check_f32(t, &x, "\ttcgen05.mma.cta_group::1.kind::tf32 [%r6], "
		      "%rd6, %rd7, %r30, %p3;\n", &a[0][0], &b[0][0], 8, -1);
}

/* f8f6f4 E4M3 x E5M2, M128 N64 K32: A K-major, B MN-major with the 64B
 * swizzle (((T,4,m),(8,k)):((1,T,LBO),(4T,SBO)), T = 16: byte x % 64 +
 * LBO (x / 64) + 64 (k % 8) + SBO (k / 8), SBO 512, then chunk bits
 * [4,6) ^= bits [7,9)); scaled: the same as mxf8f6f4 1X with UE8M0
 * scales (IDs 0), A MN-major through the 128B swizzle instead. */
static void
mn_fp8(TestCtx *t, bool scaled)
{
	static Tc x;
	static uint32_t ca[128][32], cb[64][32], sa[128], sb[64];
	static uint8_t ra[128][32];
	memset(&x, 0, sizeof(x));
	for (int i = 0; i < 128; i++) {
		for (int k = 0; k < 32; k++)
			ca[i][k] = f_code(F_E4M3);
		pack_row(ra[i], ca[i], 32, 8, false);
		sa[i] = scaled ? scale_code(false) : 127;
	}
	x.da = place_kmajor(x.sm, 0, 128, ra);
	if (scaled) {
		/* A MN-major 128B: byte x % 128 + LBO (x / 128) + 128 (k % 8)
		 * + SBO (k / 8), SBO 1024; over the K-major image */
		memset(x.sm, 0, 8192);
		for (int i = 0; i < 128; i++)
			for (int k = 0; k < 32; k++) {
				uint32_t o = (uint32_t)(i + 128 * (k % 8) + 1024 * (k / 8));
				o ^= ((o >> 7) & 7) << 4;
				x.sm[o] = (uint8_t)ca[i][k];
			}
		x.da = 2ull << 61 | 1ull << 46 | 64ull << 32 | 256ull << 16;
	}
	for (int j = 0; j < 64; j++) {
		for (int k = 0; k < 32; k++) {
			cb[j][k] = f_code(F_E5M2);
			uint32_t o = (uint32_t)(8192 + j + 64 * (k % 8) + 512 * (k / 8));
			o ^= ((o >> 7) & 3) << 4;
			x.sm[o] = (uint8_t)cb[j][k];
		}
		sb[j] = scaled ? scale_code(false) : 127;
	}
	for (int rep = 0; rep < 4 && scaled; rep++) {
		for (int i = 0; i < 128; i++)
			tm_byte(&x, 32 * rep + i % 32, i / 32, 0, sa[i]);
		for (int j = 0; j < 64; j++)
			tm_byte(&x, 32 * rep + j % 32, 4 + j / 32, 0, sb[j]);
	}
	x.db = 4ull << 61 | 1ull << 46 | 32ull << 32 | 128ull << 16 | 8192 >> 4;
	x.idesc = scaled ? 1u << 10 | 1u << 15 | 1u << 16 | (64 >> 3) << 17 |
			   1u << 23 | 1u << 27
			 : 1u << 4 | 1u << 10 | 1u << 16 | (64 >> 3) << 17 |
			   (128 >> 4) << 24;
	int st = tc_run(&x, scaled
		? "\ttcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale "
		  "[%r6], %rd6, %rd7, %r30, [%r40], [%r41], %p3;\n"
		: "\ttcgen05.mma.cta_group::1.kind::f8f6f4 [%r6], "
		  "%rd6, %rd7, %r30, %p3;\n");
	CHECK_INT(st, PT_OK);
	if (st) {
		fprintf(stderr, "  %s\n", x.err);
		return;
	}
	int bad = 0;
	for (int i = 0; i < 128; i++)
		for (int j = 0; j < 64; j++) {
			double s = 0;
			for (int k = 0; k < 32; k++)
				s += f_value(F_E4M3, ca[i][k]) * f_value(F_E5M2, cb[j][k]);
			s *= scale_decode(sa[i], false) * scale_decode(sb[j], false);
			bad += out_f(&x, i, j) != (float)s;
		}
	CHECK_INT(bad, 0);
}

TEST(emu_tcgen05_mma_mn_major)
{
	rng_state = 31;
	mn_bf16(t);
	mn_tf32(t);
	mn_fp8(t, false);
	mn_fp8(t, true);
}

/* ---- tcgen05.cp decompression, and A from TMEM ----
 * A (E3M2, 128 x 32, padded FP6 image) is copied with
 * .128x256b.b8x16.b6x16_p32 to columns 288..295 and B's first 16 FP4
 * elements per row (the E2M1 padded image) with .128x128b.b8x16.b4x16_p64
 * to columns 304..307; the expanded bytes (PTX §9.7.16.9.1: a 4-bit
 * value gains two low zero bits, a 6-bit value two high zero bits) are
 * checked, and a kind::f8f6f4 MMA with A from those TMEM columns against
 * the host sums. */
TEST(emu_tcgen05_cp_decompress_a_tmem)
{
	static Tc x;
	static uint32_t ca[128][32], cb[128][32];
	static uint8_t ra[128][32], rb[128][32];
	rng_state = 41;
	memset(&x, 0, sizeof(x));
	for (int i = 0; i < 128; i++) {
		for (int k = 0; k < 32; k++) {
			ca[i][k] = f_code(F_E3M2);
			cb[i][k] = f_code(F_E2M1);
		}
		pack_row(ra[i], ca[i], 32, 6, false);
		pack_row(rb[i], cb[i], 32, 4, false);
	}
	x.da = place_kmajor(x.sm, 0, 128, ra);
	x.db = place_kmajor(x.sm, 8192, 128, rb);
	/* D f32, A E3M2 (4), B E2M1 (5), N 64, M 128 */
	x.idesc = 1u << 4 | 4u << 7 | 5u << 10 | (64 >> 3) << 17 | (128 >> 4) << 24;
	int st = tc_run(&x,
		"\tadd.s32 %r44, %r6, 288;\n\tadd.s32 %r46, %r6, 304;\n"
		"\ttcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%r44], %rd6;\n"
		"\ttcgen05.cp.cta_group::1.128x128b.b8x16.b4x16_p64 [%r46], %rd7;\n"
		"\ttcgen05.mma.cta_group::1.kind::f8f6f4 [%r6], [%r44], %rd7, "
		"%r30, %p3;\n");
	CHECK_INT(st, PT_OK);
	if (st) {
		fprintf(stderr, "  %s\n", x.err);
		return;
	}
	int bad_cp = 0, bad = 0;
	for (int l = 0; l < 128; l++)
		for (int e = 0; e < 32; e++) {
			uint32_t w = x.out[l * RCOLS + 288 + e / 4] >> 8 * (e % 4) & 0xff;
			bad_cp += w != ca[l][e];
			if (e < 16) {
				w = x.out[l * RCOLS + 304 + e / 4] >> 8 * (e % 4) & 0xff;
				bad_cp += w != cb[l][e] << 2;
			}
		}
	CHECK_INT(bad_cp, 0);
	for (int i = 0; i < 128; i++)
		for (int j = 0; j < 64; j++) {
			double s = 0;
			for (int k = 0; k < 32; k++)
				s += f_value(F_E3M2, ca[i][k]) * f_value(F_E2M1, cb[j][k]);
			bad += out_f(&x, i, j) != (float)s;
		}
	CHECK_INT(bad, 0);
}

/* ---- .ws: the B collector and the zero-column mask ---- */

static float wa[128][16], wb[72][16], wb2[64][16];

/* bf16 A (128 x 16) at 0, B (72 x 16) at 8192, another B' (64 x 16)
 * at 12288, all K-major without swizzle. */
static void
ws_images(Tc *x, int m)
{
	static uint8_t ra[128][32], rb[72][32], rb2[64][32];
	memset(x, 0, sizeof(*x));
	for (int i = 0; i < 128; i++)
		for (int k = 0; k < 16; k++) {
			wa[i][k] = (float)((int)(rnd() % 64) - 32) / 8;
			uint16_t h = bf16_of(wa[i][k]);
			memcpy(ra[i] + 2 * k, &h, 2);
		}
	for (int j = 0; j < 72; j++)
		for (int k = 0; k < 16; k++) {
			wb[j][k] = (float)((int)(rnd() % 64) - 32) / 8;
			uint16_t h = bf16_of(wb[j][k]);
			memcpy(rb[j] + 2 * k, &h, 2);
			if (j < 64) {
				wb2[j][k] = (float)((int)(rnd() % 64) - 32) / 8;
				h = bf16_of(wb2[j][k]);
				memcpy(rb2[j] + 2 * k, &h, 2);
			}
		}
	x->da = place_kmajor(x->sm, 0, 128, ra);
	x->db = place_kmajor(x->sm, 8192, 72, rb);
	place_kmajor(x->sm, 12288, 64, rb2);
	x->idesc = 1u << 4 | 1u << 7 | 1u << 10 | (64 >> 3) << 17 |
		   (uint32_t)(m >> 4) << 24;
}

/* The zero-column sub-mask as the ISA's examples spell it: runs that
 * alternate from the first-span value, ones `ones` long and zeros
 * `zeros` long, the first `sc` positions skipped. */
static void
zmask(int *mask, int len, int sc, int fs, int ones, int zeros)
{
	int val = fs, left = fs ? ones : zeros;
	for (int pos = -sc; pos < len; pos++) {
		if (pos >= 0)
			mask[pos] = val;
		if (--left == 0) {
			val = !val;
			left = val ? ones : zeros;
		}
	}
}

TEST(emu_tcgen05_mma_ws_collector)
{
	static Tc x;
	rng_state = 53;
	/* fill b1 from B, then lastuse b1 with the descriptor of B': the
	 * collector's B is used, so D = 2 A B */
	ws_images(&x, 128);
	run_check_f32(t, &x,
		"\ttcgen05.mma.ws.cta_group::1.kind::f16.collector::b1::fill "
		"[%r6], %rd6, %rd7, %r30, %p3;\n\tadd.s64 %rd12, %rd7, 256;\n"
		"\ttcgen05.mma.ws.cta_group::1.kind::f16.collector::b1::lastuse "
		"[%r6], %rd6, %rd12, %r30, %p4;\n", &wa[0][0], &wb[0][0], 16, 2);
	/* discard (the default) reads B' from shared memory */
	run_check_f32(t, &x,
		"\tadd.s64 %rd12, %rd7, 256;\n"
		"\ttcgen05.mma.ws.cta_group::1.kind::f16 [%r6], %rd6, %rd12, "
		"%r30, %p3;\n", &wa[0][0], &wb2[0][0], 16, 1);
	/* PT_E_EMU_COLLECTOR: use after lastuse; use of a buffer never
	 * filled; use of a fill of another shape (N 64 filled, N 128 used) */
	CHECK_INT(tc_run(&x,
		"\ttcgen05.mma.ws.cta_group::1.kind::f16.collector::b2::fill "
		"[%r6], %rd6, %rd7, %r30, %p3;\n"
		"\ttcgen05.mma.ws.cta_group::1.kind::f16.collector::b2::lastuse "
		"[%r6], %rd6, %rd7, %r30, %p4;\n"
		"\ttcgen05.mma.ws.cta_group::1.kind::f16.collector::b2::use "
		"[%r6], %rd6, %rd7, %r30, %p4;\n"), PT_E_EMU_COLLECTOR);
	CHECK(strstr(x.err, "collector buffer b2") != NULL);
	CHECK_INT(tc_run(&x,
		"\ttcgen05.mma.ws.cta_group::1.kind::f16.collector::b3::use "
		"[%r6], %rd6, %rd7, %r30, %p4;\n"), PT_E_EMU_COLLECTOR);
	CHECK_INT(tc_run(&x,
		"\ttcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill "
		"[%r6], %rd6, %rd7, %r30, %p3;\n\tadd.s32 %r47, %r30, 0x100000;\n"
		"\ttcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::use "
		"[%r6], %rd6, %rd7, %r47, %p4;\n"), PT_E_EMU_COLLECTOR);
	/* the A collector of the non-.ws forms: fill, then use with another
	 * A descriptor (B' image as A's first 64 rows would differ) */
	ws_images(&x, 128);
	run_check_f32(t, &x,
		"\ttcgen05.mma.cta_group::1.kind::f16.collector::a::fill "
		"[%r6], %rd6, %rd7, %r30, %p3;\n\tadd.s64 %rd12, %rd6, 16;\n"
		"\ttcgen05.mma.cta_group::1.kind::f16.collector::a::lastuse "
		"[%r6], %rd12, %rd7, %r30, %p4;\n", &wa[0][0], &wb[0][0], 16, 2);
}

/* Zero-column mask (PTX §9.7.16.4.3): non-zero bit 39, Skip Span 2 at
 * [40,48) (runs of three ones), Use Span 3 at [48,56) (runs of four
 * zeros), column shift 2 at [56,62) (B rows 2..65 used); one sub-mask
 * per 128/M part of N, sub-mask s with start count s + 1 (bits 8s..) and
 * first span s % 2 == 0 (bit 32 + s).  D layouts: M 128 Layout D, M 64
 * Layout E (D[m][n] at lane m + 64 (n / 32), column n % 32), M 32
 * Layout G (lane m + 32 (n / 16), column n % 16). */
TEST(emu_tcgen05_mma_ws_zero_column_mask)
{
	static Tc x;
	rng_state = 59;
	for (int m = 128; m >= 32; m /= 2) {
		ws_images(&x, m);
		int mask[64], parts = 128 / m, w = 64 / parts;
		uint64_t z = 1ull << 39 | 2ull << 40 | 3ull << 48 | 2ull << 56;
		for (int s = 0; s < parts; s++) {
			zmask(mask + w * s, w, s + 1, s % 2 == 0, 3, 4);
			z |= (uint64_t)(s + 1) << 8 * s |
			     (uint64_t)(s % 2 == 0) << (32 + s);
		}
		char body[512];
		snprintf(body, sizeof(body),
			 "\tmov.b64 %%rd13, 0x%llx;\n"
			 "\ttcgen05.mma.ws.cta_group::1.kind::f16 [%%r6], %%rd6, "
			 "%%rd7, %%r30, %%p3, %%rd13;\n", (unsigned long long)z);
		int st = tc_run(&x, body);
		CHECK_INT(st, PT_OK);
		if (st) {
			fprintf(stderr, "  %s\n", x.err);
			continue;
		}
		int bad = 0, zeros = 0;
		for (int i = 0; i < m; i++)
			for (int j = 0; j < 64; j++) {
				double s = 0;
				for (int k = 0; k < 16 && !mask[j]; k++)
					s += (double)wa[i][k] * wb[j + 2][k];
				zeros += mask[j];
				int lane = i + (128 / parts) * (j / w);
				bad += out_f(&x, lane, j % w) != (float)s;
			}
		CHECK(zeros > 0);
		CHECK_INT(bad, 0);
	}
}

/* .ws M 64 and M 32 with A in TMEM (the reference's bank axis: A ends in
 * (128 / M, M, K), one copy per part of N at lanes M p.., the same
 * columns): bf16 A rows two per cell from column 264, B from shared
 * memory; D in Layout E / G. */
TEST(emu_tcgen05_mma_ws_a_tmem)
{
	static Tc x;
	rng_state = 61;
	for (int m = 64; m >= 32; m /= 2) {
		ws_images(&x, m);
		for (int l = 0; l < 128; l++)
			for (int k = 0; k < 16; k += 2) {
				int i = l % m;
				x.tm[l][8 + k / 2] = bf16_of(wa[i][k]) |
						     (uint32_t)bf16_of(wa[i][k + 1]) << 16;
			}
		int st = tc_run(&x, "\ttcgen05.mma.ws.cta_group::1.kind::f16 "
				    "[%r6], [%r42], %rd7, %r30, %p3;\n");
		CHECK_INT(st, PT_OK);
		if (st) {
			fprintf(stderr, "  %s\n", x.err);
			continue;
		}
		int bad = 0, parts = 128 / m, w = 64 / parts;
		for (int i = 0; i < m; i++)
			for (int j = 0; j < 64; j++) {
				double s = 0;
				for (int k = 0; k < 16; k++)
					s += (double)wa[i][k] * wb[j][k];
				bad += out_f(&x, i + m * (j / w), j % w) != (float)s;
			}
		CHECK_INT(bad, 0);
	}
}

/* Hostile instruction and shared-memory descriptors: random 32-bit idesc
 * values (and, every other run, random descriptor bits) under each form
 * end in a status - the MMA, an unmodelled/invalid field (E9502), an
 * out-of-range TMEM or shared access - never a crash or a sanitizer
 * report; a valid idesc still runs. */
TEST(emu_tcgen05_mma_hostile_idesc)
{
	static Tc x;
	static const char *const bodies[] = {
		"\ttcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 "
		"[%r6], %rd6, %rd7, %r30, [%r40], [%r41], %p3;\n",
		"\ttcgen05.mma.cta_group::1.kind::f8f6f4 [%r6], [%r42], %rd7, "
		"%r30, %p3;\n",
		"\tmov.b64 %rd13, 0xffffffffffffffff;\n\ttcgen05.mma.ws."
		"cta_group::1.kind::i8.collector::b3::fill [%r6], %rd6, %rd7, "
		"%r30, %p3, %rd13;\n",
		"\ttcgen05.mma.cta_group::1.kind::tf32 [%r6], %rd6, %rd7, %r30, "
		"{%r6, %r6, %r6, %r6}, %p4, 15;\n",
	};
	rng_state = 71;
	memset(&x, 0, sizeof(x));
	for (int i = 0; i < SM_BYTES; i++)
		x.sm[i] = (uint8_t)rnd();
	for (int l = 0; l < 128; l++)
		for (int c = 0; c < TCOLS; c++)
			x.tm[l][c] = rnd();
	int unsupported = 0, other = 0;
	for (int run = 0; run < 24; run++) {
		x.idesc = rnd() ^ rnd() << 12;
		x.da = 1ull << 46 | 16ull << 32 | 8ull << 16;
		x.db = x.da | 8192 >> 4;
		if (run % 2)
			x.da ^= (uint64_t)rnd() << 40 ^ rnd();
		int st = tc_run(&x, bodies[run % 4]);
		unsupported += st == PT_E_EMU_UNSUPPORTED;
		other += st != PT_OK && st != PT_E_EMU_UNSUPPORTED &&
			 st != PT_E_EMU_TMEM && st != PT_E_EMU_OOB;
	}
	CHECK(unsupported > 0);
	CHECK_INT(other, 0);
	/* a valid idesc (f32 D, bf16, N 64, M 128) after all that runs */
	x.idesc = 1u << 4 | 1u << 7 | 1u << 10 | (64 >> 3) << 17 | (128 >> 4) << 24;
	x.da = 1ull << 46 | 16ull << 32 | 8ull << 16;
	x.db = x.da | 8192 >> 4;
	CHECK_INT(tc_run(&x, "\ttcgen05.mma.cta_group::1.kind::f16 [%r6], "
			     "%rd6, %rd7, %r30, %p3;\n"), PT_OK);
}

/* Block-scaled MMAs on a CTA pair: CTA v holds A rows (M/2) v.. and B
 * rows (N/2) v.. in its shared memory (K-major, no swizzle), the scales
 * of its A rows and of all N in its TMEM (replicated, as above), and D
 * rows (M/2) v.. - Layout A for M 256 (lane i, column n), Layout B for
 * M 128 (lane i + 64 (n / (N/2)), column n % (N/2)). */
typedef struct PairScaled {
	const char *insn;
	int kind, m, n, nsf, sfa, sfb;
	F fa, fb;
	uint32_t want_idesc; /* a published test vector, or 0 */
} PairScaled;

static void
scaled_pair_case(TestCtx *t, const PairScaled *s)
{
	static Tc x[2];
	static uint32_t ca[256][64], cb[256][64], sa[256][4], sb[256][4];
	static uint8_t ra[256][32], rb[256][32];
	memset(x, 0, sizeof(x));
	x[0].peer = &x[1];
	int k = s->kind ? 64 : 32, mloc = s->m / 2, nloc = s->n / 2;
	for (int i = 0; i < s->m; i++) {
		for (int q = 0; q < k; q++)
			ca[i][q] = f_code(s->fa);
		pack_row(ra[i], ca[i], k, f_bits[s->fa], s->kind != 0);
		for (int b = 0; b < s->nsf; b++)
			sa[i][b] = scale_code(false);
	}
	for (int j = 0; j < s->n; j++) {
		for (int q = 0; q < k; q++)
			cb[j][q] = f_code(s->fb);
		pack_row(rb[j], cb[j], k, f_bits[s->fb], s->kind != 0);
		for (int b = 0; b < s->nsf; b++)
			sb[j][b] = scale_code(false);
	}
	for (int v = 0; v < 2; v++) {
		x[0].da = place_kmajor(x[v].sm, 0, mloc, ra + mloc * v);
		x[0].db = place_kmajor(x[v].sm, 8192, nloc, rb + nloc * v);
		for (int rep = 0; rep < 4; rep++) {
			for (int i = 0; i < mloc; i++)
				for (int b = 0; b < s->nsf; b++)
					tm_byte(&x[v], 32 * rep + i % 32, i / 32,
						s->sfa + b, sa[mloc * v + i][b]);
			for (int j = 0; j < s->n; j++)
				for (int b = 0; b < s->nsf; b++)
					tm_byte(&x[v], 32 * rep + j % 32, 4 + j / 32,
						s->sfb + b, sb[j][b]);
		}
	}
	static const uint32_t code[] = {0, 1, 3, 4, 5};
	uint32_t fa = s->kind ? 1 : code[s->fa], fb = s->kind ? 1 : code[s->fb];
	x[0].idesc = (uint32_t)s->sfb << 4 | fa << 7 | fb << 10 |
		     (uint32_t)(s->n >> 3) << 17 | 1u << 23 |
		     (uint32_t)(s->m >> 7) << 27 | (uint32_t)s->sfa << 29;
	if (s->want_idesc)
		CHECK_INT(x[0].idesc, s->want_idesc);
	int st = tc_run(&x[0], s->insn);
	CHECK_INT(st, PT_OK);
	if (st) {
		fprintf(stderr, "  %s\n", x[0].err);
		return;
	}
	int bad = 0, blk = k / s->nsf;
	for (int i = 0; i < s->m; i++)
		for (int j = 0; j < s->n; j++) {
			double d = 0;
			for (int b = 0; b < s->nsf; b++) {
				double p = 0;
				for (int q = b * blk; q < (b + 1) * blk; q++)
					p += f_value(s->fa, ca[i][q]) *
					     f_value(s->fb, cb[j][q]);
				d += p * scale_decode(sa[i][b], false) *
				     scale_decode(sb[j][b], false);
			}
			int v = i / mloc, lane = i % mloc, col = j;
			if (s->m == 128) {
				lane += 64 * (j / nloc);
				col = j % nloc;
			}
			bad += out_f(&x[v], lane, col) != (float)d;
		}
	CHECK_INT(bad, 0);
}

TEST(emu_tcgen05_mma_pair_scaled)
{
	rng_state = 83;
	/* the golden's mma_mxf4_pair: mxf4 block32 M256 N256, SF IDs 2
	 * (idesc 0x50C004A0, ptx_facts.md §2.4) */
	PairScaled p1 = {"\ttcgen05.mma.cta_group::2.kind::mxf4.block_scale."
			 "block32 [%r6], %rd6, %rd7, %r30, [%r40], [%r41], %p3;\n",
			 1, 256, 256, 2, 2, 2, F_E2M1, F_E2M1, 0x50C004A0u};
	scaled_pair_case(t, &p1);
	/* mxf8f6f4 E2M1 x E4M3 1X, M 128 (Layout B), N 64, IDs 3 and 1 */
	PairScaled p2 = {"\ttcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale."
			 "scale_vec::1X [%r6], %rd6, %rd7, %r30, [%r40], [%r41], "
			 "%p3;\n", 0, 128, 64, 1, 3, 1, F_E2M1, F_E4M3, 0};
	scaled_pair_case(t, &p2);
}

/* What the ISA rules out or this model leaves out is E9502 with the
 * reason (not named emu_tcgen05_*: some of these kernels are not valid
 * PTX, and the emu suite assembles that group's kernels). */
TEST(emu_mma_rejects)
{
	static Tc x;
	static const struct {
		uint32_t idesc;
		const char *body, *why;
	} cases[] = {
		/* mxf4nvf4 must state its scale vector size: no form row
		 * spells it without one, so the loader's selection refuses
		 * it (before issue 21 the executor said "scale vector") */
		{1u << 7 | 1u << 10 | 16u << 17 | 1u << 27,
		 "\ttcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale [%r6], "
		 "%rd6, %rd7, %r30, [%r40], [%r41], %p3;\n",
		 "no PTX form of tcgen05.mma takes these qualifiers"},
		/* UE4M3 only with 4X (PTX Table 55) */
		{1u << 7 | 1u << 10 | 16u << 17 | 1u << 27,
		 "\ttcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block32 "
		 "[%r6], %rd6, %rd7, %r30, [%r40], [%r41], %p3;\n",
		 "instruction descriptor"},
		/* tf32 MN-major needs 128B_BASE32B; the descriptor is none */
		{1u << 4 | 2u << 7 | 2u << 10 | 1u << 15 | 8u << 17 | 8u << 24,
		 "\ttcgen05.mma.cta_group::1.kind::tf32 [%r6], %rd6, %rd7, %r30, "
		 "%p3;\n", "MN-major 32-bit"},
		/* FP4 (E2M1) operands are K-major only */
		{1u << 4 | 5u << 10 | 1u << 16 | 8u << 17 | 8u << 24,
		 "\ttcgen05.mma.cta_group::1.kind::f8f6f4 [%r6], %rd6, %rd7, %r30, "
		 "%p3;\n", "MN-major 4-bit"},
		/* a scale address byte select that is not the descriptor's ID */
		{1u << 7 | 1u << 10 | 16u << 17 | 1u << 23 | 1u << 27,
		 "\tor.b32 %r45, %r40, 0x40000000;\n\ttcgen05.mma.cta_group::1."
		 "kind::mxf4.block_scale [%r6], %rd6, %rd7, %r30, [%r45], "
		 "[%r41], %p3;\n", "byte select"},
		/* sparse and A-shift forms are not modelled */
		{1u << 4 | 1u << 7 | 1u << 10 | 8u << 17 | 8u << 24,
		 "\ttcgen05.mma.sp.cta_group::1.kind::f16 [%r6], %rd6, %rd7, "
		 "[%r40], %r30, %p3;\n", "qualifier .sp"},
		/* A in TMEM with M 64 outside .ws */
		{1u << 4 | 1u << 7 | 1u << 10 | 8u << 17 | 4u << 24,
		 "\ttcgen05.mma.cta_group::1.kind::f16 [%r6], [%r42], %rd7, %r30, "
		 "%p3;\n", "A in TMEM"},
	};
	memset(&x, 0, sizeof(x));
	x.da = 1ull << 46 | 16ull << 32 | 8ull << 16;
	x.db = x.da | 8192 >> 4;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		x.idesc = cases[i].idesc;
		CHECK_INT(tc_run(&x, cases[i].body), PT_E_EMU_UNSUPPORTED);
		if (!strstr(x.err, cases[i].why))
			test_fail(t, __FILE__, __LINE__, "case %zu: %s", i, x.err);
	}
}
