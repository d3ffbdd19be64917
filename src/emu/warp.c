/*
 * warp.c - warp collectives, executed once for the lanes in `mask` when
 * all of them have reached the instruction: shfl/vote/redux/elect
 * (PTX §9.7.9.x, §9.7.13), ldmatrix/stmatrix (§9.7.14.5.15-16) and
 * mma.sync (§9.7.14.5.x) with the fragment layouts of the ISA's figures:
 *
 *   g = lane / 4, q = lane % 4
 *   ldmatrix m8n8 .b16: lanes 8i..8i+7 give the row addresses of matrix i;
 *     register i of a lane holds row g, columns 2q, 2q+1 (.trans: rows
 *     2q, 2q+1 of column g).
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
#include <math.h>
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
		if (insn_has(in, "up")) {
			j = l - (int32_t)b;
			pval = j >= (int32_t)maxl;
		} else if (insn_has(in, "down")) {
			j = l + (int32_t)b;
			pval = j <= (int32_t)maxl;
		} else if (insn_has(in, "bfly")) {
			j = l ^ (int32_t)b;
			pval = j <= (int32_t)maxl;
		} else {
			j = (int32_t)(minl | (b & ~seg));
			pval = j <= (int32_t)maxl;
		}
		if (!pval || j < 0 || j > 31)
			j = l;
		const Opnd *dd = d->kind == K_VEC ? vec_elem(r, d, 0) : d;
		reg_set(t, dd, val[j], TY_B32);
		if (d->kind == K_VEC && d->n == 2)
			reg_set(t, vec_elem(r, d, 1), pval, TY_PRED);
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
	for (int l = 0; l < 32; l++) {
		if (!(mask & (1u << l)))
			continue;
		if (insn_has(in, "ballot"))
			reg_set(lanes[l], &in->o[0], ballot, TY_B32);
		else
			reg_set(lanes[l], &in->o[0],
				insn_has(in, "all") ? all
				: insn_has(in, "any") ? any : uni, TY_PRED);
	}
}

static void
exec_redux(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	Ty ty = (Ty)in->ty[in->nty - 1];
	bool s = emu_ty[ty].cls == TC_S;
	uint64_t acc = 0;
	bool first = true;
	for (int l = 0; l < 32; l++) {
		if (!(mask & (1u << l)))
			continue;
		uint32_t v = (uint32_t)lane_get(r, c, lanes[l], &in->o[1]);
		if (first) {
			acc = v;
			first = false;
		} else if (insn_has(in, "add")) {
			acc += v;
		} else if (insn_has(in, "and")) {
			acc &= v;
		} else if (insn_has(in, "or")) {
			acc |= v;
		} else if (insn_has(in, "xor")) {
			acc ^= v;
		} else {
			bool lt = s ? (int32_t)v < (int32_t)acc : v < (uint32_t)acc;
			if (insn_has(in, "min") == lt)
				acc = v;
		}
	}
	for (int l = 0; l < 32; l++)
		if (mask & (1u << l))
			reg_set(lanes[l], &in->o[0], acc & 0xffffffffu, TY_B32);
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
				TY_B32);
			reg_set(lanes[l], vec_elem(r, d, 1), l == leader, TY_PRED);
		} else {
			reg_set(lanes[l], d, l == leader, TY_PRED);
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
	long n = insn_num(in, "x");
	if ((n != 1 && n != 2 && n != 4) || !insn_has(in, "m8n8") ||
	    !insn_has(in, "b16"))
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
	int sp = in->space == SP_GENERIC ? SP_GENERIC : SP_SHARED;
	return emu_mem(r, c, t, in, sp, a, 16, write);
}

static void
exec_matrix(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	Thread *t0 = full_warp(r, lanes, mask, in);
	bool st = in->op == OP_STMATRIX, trans = insn_has(in, "trans");
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
				reg_set(t, o, v, TY_B32);
			}
		}
	}
}

/* ---- mma.sync ---- */

static double
elem16(uint32_t reg, int half, Ty ty)
{
	uint32_t b = half ? reg >> 16 : reg & 0xffff;
	return ty == TY_BF16 ? emu_small_to_double(b, 8, 7)
			     : emu_small_to_double(b, 5, 10);
}

static uint32_t
reg_of(Run *r, Cta *c, Thread *t, const Opnd *v, int i)
{
	return (uint32_t)lane_get(r, c, t, vec_elem(r, v, (unsigned)i));
}

static void
exec_mma(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	Thread *t0 = full_warp(r, lanes, mask, in);
	int k = insn_has(in, "m16n8k16") ? 16 : insn_has(in, "m16n8k8") ? 8 : 0;
	Ty dty = (Ty)in->ty[0], aty = (Ty)in->ty[1], cty = (Ty)in->ty[3];
	if (!k || in->nty != 4 || !insn_has(in, "row") || !insn_has(in, "col") ||
	    (aty != TY_F16 && aty != TY_BF16) || in->ty[2] != aty ||
	    (dty != TY_F32 && dty != TY_F16) || (cty != TY_F32 && cty != TY_F16) ||
	    (aty == TY_BF16 && (dty != TY_F32 || cty != TY_F32)))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
			 "only m16n8k16/m16n8k8 .row.col with f16/bf16 inputs "
			 "is modelled");
	const Opnd *D = &in->o[0], *A = &in->o[1], *B = &in->o[2], *C = &in->o[3];
	int na = k / 4, nb = k / 8, nc = cty == TY_F32 ? 4 : 2;
	int nd = dty == TY_F32 ? 4 : 2;
	if (A->kind != K_VEC || A->n != na || B->kind != K_VEC || B->n != nb ||
	    C->kind != K_VEC || C->n != nc || D->kind != K_VEC || D->n != nd)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
			 "fragment register counts do not match the shape");
	double a[16][16], b[16][8], acc[16][8];
	for (int l = 0; l < 32; l++) {
		Thread *t = lanes[l];
		int g = l / 4, q = l % 4;
		for (int i = 0; i < na; i++) {
			uint32_t v = reg_of(r, c, t, A, i);
			int row = g + 8 * (i % 2), col = 2 * q + 8 * (i / 2);
			a[row][col] = elem16(v, 0, aty);
			a[row][col + 1] = elem16(v, 1, aty);
		}
		for (int i = 0; i < nb; i++) {
			uint32_t v = reg_of(r, c, t, B, i);
			b[2 * q + 8 * i][g] = elem16(v, 0, aty);
			b[2 * q + 8 * i + 1][g] = elem16(v, 1, aty);
		}
		for (int i = 0; i < 4; i++) {
			int row = g + 8 * (i / 2), col = 2 * q + i % 2;
			uint32_t v = reg_of(r, c, t, C, cty == TY_F32 ? i : i / 2);
			if (cty == TY_F32) {
				float f;
				memcpy(&f, &v, 4);
				acc[row][col] = f;
			} else {
				acc[row][col] = elem16(v, i % 2, TY_F16);
			}
		}
	}
	for (int m = 0; m < 16; m++)
		for (int n = 0; n < 8; n++)
			for (int kk = 0; kk < k; kk++)
				acc[m][n] += a[m][kk] * b[kk][n];
	for (int l = 0; l < 32; l++) {
		Thread *t = lanes[l];
		int g = l / 4, q = l % 4;
		uint32_t out[4] = {0};
		for (int i = 0; i < 4; i++) {
			double v = acc[g + 8 * (i / 2)][2 * q + i % 2];
			if (dty == TY_F32) {
				out[i] = emu_round_small(v, RND_RN, 8, 23);
				if (isnan(v))
					out[i] = 0x7fffffffu;
			} else {
				out[i / 2] |= emu_round_small(v, RND_RN, 5, 10)
					      << (16 * (i % 2));
			}
		}
		for (int i = 0; i < nd; i++)
			reg_set(t, vec_elem(r, D, (unsigned)i), out[i], TY_B32);
	}
}

void
exec_warp(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	switch (in->op) {
	case OP_SHFL: exec_shfl(r, c, lanes, mask, in); return;
	case OP_VOTE: exec_vote(r, c, lanes, mask, in); return;
	case OP_REDUX: exec_redux(r, c, lanes, mask, in); return;
	case OP_ELECT: exec_elect(r, lanes, mask, in); return;
	case OP_BAR_WARP: return;
	case OP_LDMATRIX: case OP_STMATRIX:
		exec_matrix(r, c, lanes, mask, in);
		return;
	case OP_MMA: exec_mma(r, c, lanes, mask, in); return;
	default:
		emu_fail(r, PT_E_EMU_UNSUPPORTED, lanes[__builtin_ctz(mask)],
			 in, "not modelled");
	}
}
