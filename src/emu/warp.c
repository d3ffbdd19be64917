/*
 * warp.c - warp collectives, executed once for the lanes in `mask` when
 * all of them have reached the instruction: shfl/vote/redux/elect
 * (PTX §9.7.9.x, §9.7.13), ldmatrix/stmatrix/movmatrix (§9.7.14.5.15-17)
 * and mma.sync (§9.7.14.5.x) with the fragment layouts of the ISA's
 * figures:
 *
 *   g = lane / 4, q = lane % 4
 *   ldmatrix m8n8 .b16: lanes 8i..8i+7 give the row addresses of matrix i;
 *     register i of a lane holds row g, columns 2q, 2q+1 (.trans: rows
 *     2q, 2q+1 of column g).  movmatrix .m8n8.trans.b16 reads one such
 *     register and writes the .trans one.
 *   mma m16n8k16 .f16/.bf16: A regs (g, 2q..), (g+8, 2q..), (g, 2q+8..),
 *     (g+8, 2q+8..); B regs (k 2q.., n g), (k 2q+8.., n g); C/D f32
 *     (g, 2q), (g, 2q+1), (g+8, 2q), (g+8, 2q+1).  m16n8k8: A (g, 2q..),
 *     (g+8, 2q..); B (k 2q.., n g).
 *
 * mma accumulates each D element as one sum of exact products in double,
 * rounded once to the accumulator type: the hardware's order and internal
 * precision are unspecified, so results agree with it within the MMA
 * tolerance docs/emulator.md states, not bit for bit.
 */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emu/emu.h"

static uint64_t
lane_get(Run *r, Cta *c, Thread *t, const Opnd *o)
{
	return opnd_get(r, c, t, o);
}

/* ---- shfl, vote, redux, elect ---- */

static void
exec_shfl(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	/* shfl.sync.mode.b32 d[|p], a, b, c, membermask */
	uint32_t val[32] = {0};
	for (int l = 0; l < 32; l++)
		if (lanes[l] && lanes[l]->st != TS_EXIT)
			val[l] = (uint32_t)lane_get(r, c, lanes[l], &in->o[1]);
	const Opnd *d = &in->o[0];
	PtxQual mode = insn_q(in, PQ_UP) ? PQ_UP : insn_q(in, PQ_DOWN) ? PQ_DOWN
		       : insn_q(in, PQ_BFLY) ? PQ_BFLY : PQ_COUNT; /* .idx */
	for (int l = 0; l < 32; l++) {
		if (!(mask & (1u << l)))
			continue;
		Thread *t = lanes[l];
		uint32_t b = (uint32_t)lane_get(r, c, t, &in->o[2]) & 31;
		uint32_t cc = (uint32_t)lane_get(r, c, t, &in->o[3]);
		uint32_t seg = (cc >> 8) & 31, cval = cc & 31;
		uint32_t maxl = ((uint32_t)l & seg) | (cval & ~seg);
		uint32_t minl = (uint32_t)l & seg;
		int32_t j;
		bool pval;
		if (mode == PQ_UP) {
			j = l - (int32_t)b;
			pval = j >= (int32_t)maxl;
		} else if (mode == PQ_DOWN) {
			j = l + (int32_t)b;
			pval = j <= (int32_t)maxl;
		} else if (mode == PQ_BFLY) {
			j = l ^ (int32_t)b;
			pval = j <= (int32_t)maxl;
		} else {
			j = (int32_t)(minl | (b & ~seg));
			pval = j <= (int32_t)maxl;
		}
		if (!pval || j < 0 || j > 31)
			j = l;
		const Opnd *dd = d->kind == K_VEC ? vec_elem(r, d, 0) : d;
		reg_set(t, dd, val[j], PTY_B32);
		if (d->kind == K_VEC && d->n == 2)
			reg_set(t, vec_elem(r, d, 1), pval, PTY_PRED);
	}
}

static void
exec_vote(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	uint32_t ballot = 0;
	for (int l = 0; l < 32; l++)
		if (mask & (1u << l))
			ballot |= (uint32_t)(lane_get(r, c, lanes[l],
						      &in->o[1]) != 0) << l;
	bool all = (ballot & mask) == mask, any = ballot != 0;
	bool uni = ballot == 0 || ballot == mask;
	bool is_ballot = insn_q(in, PQ_BALLOT);
	bool v = insn_q(in, PQ_ALL) ? all : insn_q(in, PQ_ANY) ? any : uni;
	for (int l = 0; l < 32; l++) {
		if (!(mask & (1u << l)))
			continue;
		if (is_ballot)
			reg_set(lanes[l], &in->o[0], ballot, PTY_B32);
		else
			reg_set(lanes[l], &in->o[0], v, PTY_PRED);
	}
}

static void
exec_redux(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	PtxType ty = (PtxType)in->ty[in->nty - 1];
	bool s = emu_ty[ty].cls == TC_S;
	uint64_t acc = 0;
	bool first = true;
	PtxQual op = PQ_MAX;
	static const PtxQual ops[] = {PQ_ADD, PQ_AND, PQ_OR, PQ_XOR, PQ_MIN};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (insn_q(in, ops[i]))
			op = ops[i];
	for (int l = 0; l < 32; l++) {
		if (!(mask & (1u << l)))
			continue;
		uint32_t v = (uint32_t)lane_get(r, c, lanes[l], &in->o[1]);
		if (first) {
			acc = v;
			first = false;
		} else if (op == PQ_ADD) {
			acc += v;
		} else if (op == PQ_AND) {
			acc &= v;
		} else if (op == PQ_OR) {
			acc |= v;
		} else if (op == PQ_XOR) {
			acc ^= v;
		} else {
			bool lt = s ? (int32_t)v < (int32_t)acc : v < (uint32_t)acc;
			if ((op == PQ_MIN) == lt)
				acc = v;
		}
	}
	for (int l = 0; l < 32; l++)
		if (mask & (1u << l))
			reg_set(lanes[l], &in->o[0], acc & 0xffffffffu, PTY_B32);
}

static void
exec_elect(Run *r, Thread **lanes, uint32_t mask, const Insn *in)
{
	/* elect.sync d|p, membermask: the lowest member lane is the leader */
	int leader = __builtin_ctz(mask);
	const Opnd *d = &in->o[0];
	if (d->kind == K_VEC && d->n != 2)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, lanes[leader], in,
			 "elect.sync takes d|p or p");
	for (int l = 0; l < 32; l++) {
		if (!(mask & (1u << l)))
			continue;
		if (d->kind == K_VEC) {
			reg_set(lanes[l], vec_elem(r, d, 0), (uint64_t)leader,
				PTY_B32);
			reg_set(lanes[l], vec_elem(r, d, 1), l == leader, PTY_PRED);
		} else {
			reg_set(lanes[l], d, l == leader, PTY_PRED);
		}
	}
}

/* ---- ldmatrix / stmatrix ---- */

/* The first lane, after checking that the whole warp takes part. */
static Thread *
full_warp(Run *r, Thread **lanes, uint32_t mask, const Insn *in)
{
	Thread *t0 = lanes[__builtin_ctz(mask)];
	if (mask != 0xffffffffu)
		emu_fail(r, PT_E_EMU_COLLECTIVE, t0, in,
			 "executed by lanes 0x%08x, not the full warp", mask);
	return t0;
}

static int
matrix_count(Run *r, Thread *t, const Insn *in)
{
	long n = in->sel->vec; /* .xN */
	if ((n != 1 && n != 2 && n != 4) || !insn_q(in, PQ_M8N8) ||
	    !insn_q(in, PQ_B16))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "only .m8n8.x1/.x2/.x4.b16 is modelled");
	return (int)n;
}

/* The 16-byte row that lane `src` addresses for matrix row ri. */
static uint8_t *
matrix_row(Run *r, Cta *c, Thread **lanes, const Insn *in, int src,
	   const Opnd *addr, bool write)
{
	Thread *t = lanes[src];
	uint64_t a = emu_addr(r, c, t, addr);
	if (a % 16)
		emu_fail(r, PT_E_EMU_OOB, t, in,
			 "matrix row address 0x%llx is not 16-byte aligned",
			 (unsigned long long)a);
	int sp = in->space == PSP_GENERIC ? PSP_GENERIC : PSP_SHARED;
	return emu_mem(r, c, t, in, sp, a, 16, write);
}

static void
exec_matrix(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	Thread *t0 = full_warp(r, lanes, mask, in);
	bool st = in->op == PTXMN_STMATRIX, trans = insn_q(in, PQ_TRANS);
	int n = matrix_count(r, t0, in);
	const Opnd *regs = &in->o[st ? 1 : 0], *addr = &in->o[st ? 0 : 1];
	if ((n > 1 && (regs->kind != K_VEC || regs->n != n)) ||
	    (n == 1 && regs->kind == K_VEC && regs->n != 1))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
			 "register count does not match .x%d", n);
	for (int m = 0; m < n; m++) {
		uint8_t *row[8];
		for (int i = 0; i < 8; i++)
			row[i] = matrix_row(r, c, lanes, in, 8 * m + i, addr, st);
		for (int l = 0; l < 32; l++) {
			Thread *t = lanes[l];
			const Opnd *o = regs->kind == K_VEC ? vec_elem(r, regs, m)
							    : regs;
			int g = l / 4, q = l % 4;
			uint8_t *e0, *e1; /* the two 16-bit elements */
			if (trans) {
				e0 = row[2 * q] + 2 * g;
				e1 = row[2 * q + 1] + 2 * g;
			} else {
				e0 = row[g] + 4 * q;
				e1 = row[g] + 4 * q + 2;
			}
			if (st) {
				uint32_t v = (uint32_t)lane_get(r, c, t, o);
				e0[0] = (uint8_t)v;
				e0[1] = (uint8_t)(v >> 8);
				e1[0] = (uint8_t)(v >> 16);
				e1[1] = (uint8_t)(v >> 24);
			} else {
				uint32_t v = (uint32_t)e0[0] | (uint32_t)e0[1] << 8 |
					     (uint32_t)e1[0] << 16 |
					     (uint32_t)e1[1] << 24;
				reg_set(t, o, v, PTY_B32);
			}
		}
	}
}

/* movmatrix.sync.aligned.m8n8.trans.b16 d, a (PTX ISA "movmatrix"): a
 * holds the 8x8 matrix in ldmatrix's fragment layout - lane l has row
 * l/4, columns 2(l%4) (low half) and 2(l%4)+1 (high half) - and d gets
 * the transpose in that layout: lane l's d holds column l/4, rows 2(l%4)
 * and 2(l%4)+1 of the input.  .aligned: the whole warp executes it. */
static void
exec_movmatrix(Run *r, Cta *c, Thread **lanes, uint32_t mask,
	       const Insn *in)
{
	full_warp(r, lanes, mask, in);
	uint16_t m[8][8];
	for (int l = 0; l < 32; l++) {
		uint32_t v = (uint32_t)lane_get(r, c, lanes[l], &in->o[1]);
		m[l / 4][2 * (l % 4)] = (uint16_t)v;
		m[l / 4][2 * (l % 4) + 1] = (uint16_t)(v >> 16);
	}
	for (int l = 0; l < 32; l++) {
		int g = l / 4, q = l % 4;
		uint32_t v = m[2 * q][g] | (uint32_t)m[2 * q + 1][g] << 16;
		reg_set(lanes[l], &in->o[0], v, PTY_B32);
	}
}

/* ---- mma.sync (PTX ISA "Matrix fragments for mma.m16n8k*" and
 * "mma.m8n8k4 .f64") ---- */

enum { MF_F16, MF_BF16, MF_TF32, MF_E4M3, MF_E5M2, MF_S8, MF_U8, MF_F32,
       MF_S32, MF_F64, MF_N };
static const int mma_fmt_bits[MF_N] = {16, 16, 32, 8, 8, 8, 8, 32, 32, 64};

/* mma.sync's decoded form (Insn.aux), from decode_mma_sync at load. */
typedef struct MmaSyncForm {
	int f[4];    /* D, A, B, C formats (MF_*) */
	int m, n, k; /* the selected form's shape */
	bool ok;     /* four formats and a shape */
} MmaSyncForm;

/* The shape is the selected form's; the four formats are the type
 * signature, which the form rows spell as untagged groups, so they are
 * read from the spelling's dot-parts here, once, at load. */
void
decode_mma_sync(Arena *a, Insn *in)
{
	MmaSyncForm *d = NEW(a, MmaSyncForm);
	memset(d, 0, sizeof(*d));
	d->m = in->sel->shape_m;
	d->n = in->sel->shape_n;
	d->k = in->sel->shape_k;
	static const PtxType fmt_types[MF_N] = {
		PTY_F16, PTY_BF16, PTY_TF32, PTY_E4M3, PTY_E5M2, PTY_S8,
		PTY_U8, PTY_F32, PTY_S32, PTY_F64};
	int nf = 0;
	for (int t = 0; t < in->sel->ntypes; t++)
		for (int i = 0; i < MF_N; i++)
			if (in->sel->types[t] == fmt_types[i] && nf < 5) {
				if (nf < 4)
					d->f[nf] = i;
				nf++;
			}
	d->ok = nf == 4 && d->k > 0;
	in->aux = d;
}

/* Element e of a register holding 32 / bits elements of format f. */
static double
mma_elem(int f, uint32_t reg, int e)
{
	uint32_t v = mma_fmt_bits[f] == 32 ? reg
		     : (reg >> (e * mma_fmt_bits[f])) &
			       ((1u << mma_fmt_bits[f]) - 1);
	switch (f) {
	case MF_F16: return emu_small_to_double(v, 5, 10);
	case MF_BF16: return emu_small_to_double(v, 8, 7);
	case MF_TF32: {
		float x; /* an f32 image whose low 13 mantissa bits are ignored */
		v &= ~0x1fffu;
		memcpy(&x, &v, 4);
		return x;
	}
	case MF_E4M3: return emu_e4m3_to_double(v);
	case MF_E5M2: return emu_small_to_double(v, 5, 2);
	case MF_F32: {
		float x;
		memcpy(&x, &v, 4);
		return x;
	}
	case MF_S8: return (double)(int8_t)v;
	default: return (double)v; /* MF_U8 */
	}
}

/* Whether a m16n8kK form is one of the ISA's: A and B of one family, K
 * of that family's shapes, D/C of its accumulator types. */
static bool
mma_m16n8_ok(const int f[4], int k)
{
	int a = f[1], b = f[2], d = f[0], c = f[3];
	bool f16 = a == MF_F16 && b == a, bf16 = a == MF_BF16 && b == a;
	bool i8 = (a == MF_S8 || a == MF_U8) && (b == MF_S8 || b == MF_U8);
	bool f8 = (a == MF_E4M3 || a == MF_E5M2) &&
		  (b == MF_E4M3 || b == MF_E5M2);
	if (f16)
		return (k == 8 || k == 16) && (d == MF_F32 || d == MF_F16) &&
		       (c == MF_F32 || c == MF_F16);
	if (bf16)
		return (k == 8 || k == 16) && d == MF_F32 && c == MF_F32;
	if (a == MF_TF32 && b == a)
		return (k == 4 || k == 8) && d == MF_F32 && c == MF_F32;
	if (i8)
		return (k == 16 || k == 32) && d == MF_S32 && c == MF_S32;
	return f8 && k == 32 && d == MF_F32 && c == MF_F32;
}

static void
mma_check_regs(Run *r, Thread *t0, const Insn *in, const int want[4])
{
	for (int i = 0; i < 4; i++) {
		const Opnd *o = &in->o[i];
		int n = o->kind == K_VEC ? o->n : 1;
		if (n != want[i] || (want[i] > 1 && o->kind != K_VEC))
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
				 "fragment register counts do not match the "
				 "shape");
	}
}

static uint64_t
mma_reg(Run *r, Cta *c, Thread *t, const Opnd *o, int i)
{
	return lane_get(r, c, t, o->kind == K_VEC ? vec_elem(r, o, (unsigned)i)
						  : o);
}

static void
mma_set(Run *r, Thread *t, const Opnd *o, int i, uint64_t v, PtxType ty)
{
	reg_set(t, o->kind == K_VEC ? vec_elem(r, o, (unsigned)i) : o, v, ty);
}

/* m16n8kK: register j of lane l holds per = 32 / bits elements e of A
 * at (g + 8 (j % 2), per q + e + 4 per (j / 2)) and of B at (per q + e +
 * 4 per j, g), g = l / 4, q = l % 4; C/D register i (0..3) is
 * (g + 8 (i / 2), 2 q + i % 2), two f16 per register for f16 C/D.  Each
 * D element is one exact sum (double for floats, integers exactly),
 * rounded once; s32 wraps, or clamps with .satfinite. */
static void
exec_mma_m16n8(Run *r, Cta *c, Thread **lanes, const Insn *in,
	       const int f[4], int k)
{
	Thread *t0 = lanes[0];
	int per = 32 / mma_fmt_bits[f[1]];
	int na = k / (2 * per), nb = k / (4 * per);
	int nd = f[0] == MF_F16 ? 2 : 4, nc = f[3] == MF_F16 ? 2 : 4;
	int want[4] = {nd, na, nb, nc};
	mma_check_regs(r, t0, in, want);
	double a[16][32], b[32][8], acc[16][8];
	int64_t iacc[16][8];
	bool ints = f[0] == MF_S32;
	for (int l = 0; l < 32; l++) {
		Thread *t = lanes[l];
		int g = l / 4, q = l % 4;
		for (int j = 0; j < na; j++) {
			uint32_t v = (uint32_t)mma_reg(r, c, t, &in->o[1], j);
			for (int e = 0; e < per; e++)
				a[g + 8 * (j % 2)][per * q + e + 4 * per * (j / 2)] =
					mma_elem(f[1], v, e);
		}
		for (int j = 0; j < nb; j++) {
			uint32_t v = (uint32_t)mma_reg(r, c, t, &in->o[2], j);
			for (int e = 0; e < per; e++)
				b[per * q + e + 4 * per * j][g] =
					mma_elem(f[2], v, e);
		}
		for (int i = 0; i < 4; i++) {
			int row = g + 8 * (i / 2), col = 2 * q + i % 2;
			uint32_t v = (uint32_t)mma_reg(r, c, t, &in->o[3],
						       nc == 4 ? i : i / 2);
			iacc[row][col] = (int32_t)v;
			acc[row][col] = f[3] == MF_F16 ? mma_elem(MF_F16, v, i % 2)
				      : mma_elem(MF_F32, v, 0);
		}
	}
	for (int m = 0; m < 16; m++)
		for (int n = 0; n < 8; n++)
			for (int kk = 0; kk < k; kk++) {
				acc[m][n] += a[m][kk] * b[kk][n];
				iacc[m][n] += (int64_t)a[m][kk] * (int64_t)b[kk][n];
			}
	bool satf = insn_q(in, PQ_SATFINITE);
	for (int l = 0; l < 32; l++) {
		Thread *t = lanes[l];
		int g = l / 4, q = l % 4;
		uint32_t out[4] = {0};
		for (int i = 0; i < 4; i++) {
			int row = g + 8 * (i / 2), col = 2 * q + i % 2;
			double v = acc[row][col];
			int64_t iv = iacc[row][col];
			if (ints)
				out[i] = satf ? (uint32_t)(iv > INT32_MAX ? INT32_MAX
							   : iv < INT32_MIN ? INT32_MIN
									    : iv)
					      : (uint32_t)iv;
			else if (f[0] == MF_F32)
				out[i] = isnan(v) ? 0x7fffffffu
						  : emu_round_small(v, RND_RN, 8, 23);
			else
				out[i / 2] |= emu_round_small(v, RND_RN, 5, 10)
					      << (16 * (i % 2));
		}
		for (int i = 0; i < nd; i++)
			mma_set(r, t, &in->o[0], i, out[i], PTY_B32);
	}
}

/* m8n8k4 .f64: A (g, q), B (q, g), C/D register i (g, 2 q + i); each D
 * element accumulates C + a0 b0 + ... + a3 b3 as a chain of fused
 * multiply-adds in the stated rounding mode (the ISA does not give the
 * order; exact whenever the partial sums are, as in the tests). */
static void
exec_mma_f64(Run *r, Cta *c, Thread **lanes, const Insn *in)
{
	static const int want[4] = {2, 1, 1, 2};
	mma_check_regs(r, lanes[0], in, want);
	double a[8][4], b[4][8], acc[8][8];
	for (int l = 0; l < 32; l++) {
		Thread *t = lanes[l];
		int g = l / 4, q = l % 4;
		uint64_t v = mma_reg(r, c, t, &in->o[1], 0);
		memcpy(&a[g][q], &v, 8);
		v = mma_reg(r, c, t, &in->o[2], 0);
		memcpy(&b[q][g], &v, 8);
		for (int i = 0; i < 2; i++) {
			v = mma_reg(r, c, t, &in->o[3], i);
			memcpy(&acc[g][2 * q + i], &v, 8);
		}
	}
	int old = fegetround();
	static const int modes[] = {FE_TONEAREST, FE_TONEAREST, FE_TOWARDZERO,
				    FE_DOWNWARD, FE_UPWARD};
	fesetround(modes[in->rnd <= RND_RP ? in->rnd : 0]);
	for (int m = 0; m < 8; m++)
		for (int n = 0; n < 8; n++)
			for (int kk = 0; kk < 4; kk++) {
				volatile double x = a[m][kk], y = b[kk][n];
				/* stored before the mode is restored */
				volatile double sum = fma(x, y, acc[m][n]);
				acc[m][n] = sum;
			}
	fesetround(old);
	for (int l = 0; l < 32; l++) {
		int g = l / 4, q = l % 4;
		for (int i = 0; i < 2; i++) {
			double v = acc[g][2 * q + i];
			uint64_t u;
			memcpy(&u, &v, 8);
			if (isnan(v))
				u = 0x7fffffffffffffffull;
			mma_set(r, lanes[l], &in->o[0], i, u, PTY_B64);
		}
	}
}

static void
exec_mma(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	Thread *t0 = full_warp(r, lanes, mask, in);
	const MmaSyncForm *d = in->aux; /* the selected rows are .row.col */
	const int *f = d->f;
	int m = d->m, n = d->n, k = d->k;
	if (!d->ok || in->nop != 4)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
			 "not an mma.sync form the emulator models");
	if (m == 8 && n == 8 && k == 4 && f[0] == MF_F64 && f[1] == MF_F64 &&
	    f[2] == MF_F64 && f[3] == MF_F64) {
		exec_mma_f64(r, c, lanes, in);
		return;
	}
	if (m != 16 || n != 8 || !mma_m16n8_ok(f, k) ||
	    (insn_q(in, PQ_SATFINITE) && f[0] != MF_S32))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
			 "not an mma.sync form the emulator models");
	exec_mma_m16n8(r, c, lanes, in, f, k);
}

void
exec_warp(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	switch (in->op) {
	case PTXMN_SHFL: exec_shfl(r, c, lanes, mask, in); return;
	case PTXMN_VOTE:
	case PTXMN_VOTE_SYNC: exec_vote(r, c, lanes, mask, in); return;
	case PTXMN_REDUX: exec_redux(r, c, lanes, mask, in); return;
	case PTXMN_ELECT: exec_elect(r, lanes, mask, in); return;
	case PTXMN_BAR: return; /* bar.warp.sync: the collective itself */
	case PTXMN_LDMATRIX: case PTXMN_STMATRIX:
		exec_matrix(r, c, lanes, mask, in);
		return;
	case PTXMN_MOVMATRIX: exec_movmatrix(r, c, lanes, mask, in); return;
	case PTXMN_MMA_SYNC: exec_mma(r, c, lanes, mask, in); return;
	default:
		emu_fail(r, PT_E_EMU_UNSUPPORTED, lanes[__builtin_ctz(mask)],
			 in, "not modelled");
	}
}
