/*
 * tcgen05.c - tensor memory (PTX §9.7.16): per CTA 128 lanes x 512
 * columns of 32-bit cells; alloc/dealloc/relinquish, ld/st in every shape
 * with .pack::16b/.unpack::16b, wait, fences and commit.
 *
 * A TMEM address is lane << 16 | column.  A warp reaches only the 32
 * lanes of its sub-partition (warp id % 4).  Lane/column maps of one
 * repetition for lane t of the warp (g = t/4, c = t%4; ptx_facts.md §3.5,
 * from the ISA's Table 49 and its fragment figures):
 *   32x32b   reg i -> (t, i)
 *   16x64b   reg i -> (g + 8(t%2), (t/2)%2 + 2i)
 *   16x128b  reg 2i+j -> (g + 8j, c + 4i)
 *   16x256b  reg 4i+j -> (g + 8(j/2), 2c + j%2 + 8i)
 *   16x32bx2 reg i -> (t%16, i), plus immHalfSplitoff (an address offset)
 *            for t >= 16
 * With .pack::16b a register packs the low 16 bits of the cells at
 * columns 2k and 2k+1 of that map (low half first); .unpack::16b is the
 * inverse and writes each half zero-extended into its cell.
 *
 * tcgen05.mma is in tcgen05_mma.c; the shared-memory descriptor walk it
 * shares with tcgen05.cp is here (desc_addr).
 *
 * ld/st, cp and mma complete immediately here, so wait::ld/st and the
 * fences have nothing left to order; commit arrives on its mbarrier at
 * once.  tcgen05.cp (every shape and warpx replica mode, .cta_group::1
 * or ::2, with or without FP4/FP6 decompression) walks the descriptor
 * addresses in 32-bit words.
 */
#include <math.h>
#include <string.h>

#include "emu/tcgen05.h"

uint32_t *
tmem_cell(Run *r, Cta *c, Thread *t, const Insn *in, uint32_t lane,
	  uint32_t col, bool partition)
{
	if (!c->tmem || lane >= TM_LANES || col >= TM_COLS ||
	    !(c->tmem_used & (1u << (col / 32))))
		emu_fail(r, PT_E_EMU_TMEM, t, in,
			 "TMEM lane %u column %u is not allocated", lane, col);
	uint32_t part = t->warp % 4;
	if (partition && lane / 32 != part)
		emu_fail(r, PT_E_EMU_TMEM, t, in,
			 "warp %u (sub-partition %u) accesses TMEM lane %u; it "
			 "reaches lanes %u..%u only", t->warp, part, lane,
			 32 * part, 32 * part + 31);
	return &c->tmem[lane * TM_COLS + col];
}

typedef enum Shape { SH_32X32B, SH_16X64B, SH_16X128B, SH_16X256B, SH_16X32BX2 } Shape;

static int
shape_of(Run *r, Thread *t, const Insn *in, int *regs_per_rep)
{
	static const struct {
		PtxQual q;
		int regs;
	} shapes[] = {{PQ_S32X32B, 1}, {PQ_S16X64B, 1}, {PQ_S16X128B, 2},
		      {PQ_S16X256B, 4}, {PQ_S16X32BX2, 1}};
	for (int i = 0; i < 5; i++)
		if (insn_q(in, shapes[i].q)) {
			*regs_per_rep = shapes[i].regs;
			return i;
		}
	emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "unknown shape");
}

/* Lane and column offsets of register i of lane t (unpacked map). */
static void
shape_map(int shape, uint32_t t, uint32_t i, uint32_t *lane, uint32_t *col)
{
	uint32_t g = t / 4, c = t % 4;
	switch (shape) {
	case SH_32X32B: *lane = t; *col = i; break;
	case SH_16X64B: *lane = g + 8 * (t % 2); *col = (t / 2) % 2 + 2 * i; break;
	case SH_16X128B: *lane = g + 8 * (i % 2); *col = c + 4 * (i / 2); break;
	case SH_16X256B:
		*lane = g + 8 * ((i % 4) / 2);
		*col = 2 * c + (i % 2) + 8 * (i / 4);
		break;
	default: *lane = t % 16; *col = i; break;
	}
}

static void
exec_ld_st(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	Thread *t0 = lanes[__builtin_ctz(mask)];
	bool st = in->op == PTXMN_TCGEN05_ST;
	int per;
	int shape = shape_of(r, t0, in, &per);
	long num = in->sel->num; /* .xN */
	bool pack = insn_q(in, st ? PQ_UNPACK_16B : PQ_PACK_16B);
	int nreg = (int)num * per;
	if (in->nop < 2) /* the operand picks below index from both ends */
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
			 "malformed (an address and registers expected)");
	const Opnd *addr = &in->o[st ? 0 : 1];
	const Opnd *regs = &in->o[st ? in->nop - 1 : 0];
	bool split = shape == SH_16X32BX2;
	if (num < 1 || num > 128 || (num & (num - 1)) || nreg > 128 ||
	    regs->kind != K_VEC || regs->n != nreg ||
	    in->nop != (split ? 3u : 2u) || mask != 0xffffffffu)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
			 "malformed (%d registers expected, a full warp)", nreg);
	if (!c->tmem)
		emu_fail(r, PT_E_EMU_TMEM, t0, in, "no TMEM is allocated");
	for (uint32_t l = 0; l < 32; l++) {
		Thread *t = lanes[l];
		uint32_t ta = (uint32_t)emu_addr(r, c, t, addr);
		uint32_t imm = split ? (uint32_t)opnd_get(r, c, t, &in->o[st ? 1 : 2])
				     : 0;
		uint32_t base_lane = ta >> 16, base_col = ta & 0xffff;
		if (split && l >= 16) {
			base_lane += imm >> 16;
			base_col += imm & 0xffff;
		}
		for (int i = 0; i < nreg; i++) {
			uint32_t lo, co;
			shape_map(shape, l, (uint32_t)i, &lo, &co);
			const Opnd *o = vec_elem(r, regs, (unsigned)i);
			uint32_t lane = base_lane + lo;
			if (!pack) {
				uint32_t *cell = tmem_cell(r, c, t, in, lane,
							   base_col + co, true);
				if (st)
					*cell = (uint32_t)opnd_get(r, c, t, o);
				else
					reg_set(t, o, *cell, PTY_B32);
				continue;
			}
			uint32_t *c0 = tmem_cell(r, c, t, in, lane, base_col + 2 * co,
						 true);
			uint32_t *c1 = tmem_cell(r, c, t, in, lane,
						 base_col + 2 * co + 1, true);
			if (st) {
				uint32_t v = (uint32_t)opnd_get(r, c, t, o);
				*c0 = v & 0xffff;
				*c1 = v >> 16;
			} else {
				reg_set(t, o, (*c0 & 0xffff) | (*c1 & 0xffff) << 16,
					PTY_B32);
			}
		}
	}
}

static void
exec_alloc(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	Thread *t0 = lanes[__builtin_ctz(mask)];
	bool alloc = in->op == PTXMN_TCGEN05_ALLOC;
	/* .cta_group::2: one warp of each CTA of the pair executes it; each
	 * allocates the same columns of its own TMEM (the lowest free range
	 * gives both CTAs the same address when they allocate alike) */
	if (!insn_q(in, PQ_CTA_GROUP_1) && !insn_q(in, PQ_CTA_GROUP_2))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
			 ".cta_group::1 or ::2 expected");
	if (in->nop != 2)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in, "malformed");
	uint64_t ncols = opnd_get(r, c, t0, &in->o[1]);
	if (ncols < 32 || ncols > 512 || (ncols & (ncols - 1)))
		emu_fail(r, PT_E_EMU_TMEM, t0, in,
			 "nCols %llu is not a power of 2 in [32, 512]",
			 (unsigned long long)ncols);
	uint32_t chunks = (uint32_t)ncols / 32;
	uint32_t bits = chunks >= 32 ? ~0u : (1u << chunks) - 1;
	if (!alloc) {
		uint32_t ta = (uint32_t)opnd_get(r, c, t0, &in->o[0]);
		uint32_t col = ta & 0xffff;
		if ((ta >> 16) || col % 32 || col >= TM_COLS ||
		    (c->tmem_used & (bits << (col / 32))) != bits << (col / 32))
			emu_fail(r, PT_E_EMU_TMEM, t0, in,
				 "dealloc of %llu columns at 0x%x, which were "
				 "not allocated", (unsigned long long)ncols, ta);
		c->tmem_used &= ~(bits << (col / 32));
		return;
	}
	if (!c->tmem)
		c->tmem = NEWN(r->arena, uint32_t, TM_LANES * TM_COLS);
	/* the lowest free range aligned to its size */
	for (uint32_t s = 0; s + chunks <= 16; s += chunks) {
		if (c->tmem_used & (bits << s))
			continue;
		c->tmem_used |= bits << s;
		uint64_t a = emu_addr(r, c, t0, &in->o[0]);
		uint8_t *p = emu_mem(r, c, t0, in, PSP_SHARED, a, 4, true);
		uint32_t ta = s * 32;
		memcpy(p, &ta, 4);
		return;
	}
	emu_fail(r, PT_E_EMU_TMEM, t0, in,
		 "cannot allocate %llu TMEM columns (in use: mask 0x%04x of "
		 "32-column chunks); the GPU would wait for a dealloc that "
		 "never comes here", (unsigned long long)ncols, c->tmem_used);
}

void
exec_tc_warp(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	switch (in->op) {
	case PTXMN_TCGEN05_ALLOC: case PTXMN_TCGEN05_DEALLOC:
		exec_alloc(r, c, lanes, mask, in);
		return;
	case PTXMN_TCGEN05_LD: case PTXMN_TCGEN05_ST:
		exec_ld_st(r, c, lanes, mask, in);
		return;
	case PTXMN_TCGEN05_RELINQUISH_ALLOC_PERMIT:
	case PTXMN_TCGEN05_WAIT_LD:
	case PTXMN_TCGEN05_WAIT_ST:
		return;
	default:
		emu_fail(r, PT_E_EMU_UNSUPPORTED, lanes[__builtin_ctz(mask)],
			 in, "not modelled");
	}
}

/* ---- shared-memory descriptors ---- */
SmemDesc
smem_desc(Run *r, Thread *t, const Insn *in, uint64_t d)
{
	SmemDesc s;
	s.start = (uint32_t)(d & 0x3fff) << 4;
	s.lbo = (uint32_t)((d >> 16) & 0x3fff) << 4;
	s.sbo = (uint32_t)((d >> 32) & 0x3fff) << 4;
	uint32_t mode = (uint32_t)(d >> 61) & 7;
	s.swz = mode == 0 ? 0 : mode == 1 || mode == 2 ? 128 : mode == 4 ? 64
		: mode == 6 ? 32 : -1;
	s.atom32 = mode == 1;
	if (((d >> 46) & 7) != 1 || ((d >> 49) & 7) || ((d >> 52) & 1) ||
	    s.swz < 0)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "shared memory descriptor 0x%016llx: only version 1, "
			 "base offset 0, relative LBO and swizzle none/32B/64B/"
			 "128B/128B_BASE32B are modelled", (unsigned long long)d);
	return s;
}

/* The canonical layouts (PTX §9.7.16.3.3, ptx_facts.md §1.3): rows of W
 * bytes (W = 16 without swizzle), eight to a group.  K-major: groups SBO
 * apart; without swizzle 16-byte chunks along K LBO apart, with it the
 * bytes contiguous.  MN-major: swizzled, groups SBO apart and W-byte
 * chunks along M/N LBO apart; unswizzled the two strides swap.  Then the
 * Swizzle<B,4,3> of the address.  128B_BASE32B (MN-major): four 128-byte
 * rows to a group, SBO apart, 128-byte chunks LBO apart, then bits [7,9)
 * XOR into bits [5,7). */
uint32_t
desc_addr(const SmemDesc *s, uint32_t row, uint32_t byte, bool mn)
{
	if (s->atom32) {
		uint32_t a = s->start + s->sbo * (row / 4) + 128 * (row % 4) +
			     s->lbo * (byte / 128) + byte % 128;
		return a ^ ((a >> 2) & 0x60);
	}
	uint32_t w = s->swz ? (uint32_t)s->swz : 16;
	uint32_t group = mn && !s->swz ? s->lbo : s->sbo;
	uint32_t a = s->start + group * (row / 8) + w * (row % 8);
	if (!mn && s->swz)
		a += byte;
	else
		a += (mn && !s->swz ? s->sbo : s->lbo) * (byte / w) + byte % w;
	if (!s->swz)
		return a;
	uint32_t bits = s->swz == 128 ? 7 : s->swz == 64 ? 3 : 1;
	return a ^ (((a >> 7) & bits) << 4);
}

uint32_t
desc_load(Run *r, Cta *c, Thread *t, const Insn *in, const SmemDesc *s,
	  uint32_t row, uint32_t byte, unsigned n, bool mn)
{
	uint32_t a = desc_addr(s, row, byte, mn);
	uint8_t *p = emu_smem(r, t, in, (c->rank << SMEM_RANK_SHIFT) | a, n,
			      NULL);
	return (uint32_t)emu_load_le(p, n);
}
/* ---- tcgen05.cp ---- */

/* Decompression (PTX §9.7.16.9.1): a 16-byte source block holds sixteen
 * packed 4-bit (b4x16_p64: eight bytes, then eight of padding) or 6-bit
 * (b6x16_p32: twelve bytes, then four) values, element e at bits
 * [w e, w e + w) of the block read little-endian; each becomes one byte
 * of the 16-byte destination: a 4-bit value gains two low zero bits, a
 * 6-bit value two high zero bits (the 8-bit containers of §9.7.16.10.4.3). */
static void
cp_expand(uint32_t w[4], int bits)
{
	uint8_t src[16], dst[16];
	memcpy(src, w, 16);
	for (unsigned e = 0; e < 16; e++) {
		unsigned at = e * (unsigned)bits;
		uint32_t v = (uint32_t)(src[at / 8] |
			     (at / 8 + 1 < 16 ? src[at / 8 + 1] << 8 : 0));
		v = (v >> (at % 8)) & ((1u << bits) - 1);
		dst[e] = (uint8_t)(bits == 4 ? v << 2 : v);
	}
	memcpy(w, dst, 16);
}

static void cp_one(Run *r, Cta *c, Thread *t, const Insn *in,
		   const SmemDesc *sd, uint32_t ta, int k, int bits);

static void
exec_cp(Run *r, Cta *c, Thread *t, const Insn *in)
{
	/* tcgen05.cp.cta_group::1.shape{.warpx..}{.b8x16.bNx16_pP} [taddr],
	 * s-desc: rows of 32-bit words from the descriptor's matrix into
	 * TMEM, with the shape's lane map and replicas (the reference's
	 * "Shared-to-TMEM copies" table) */
	static const struct {
		PtxQual shape;
		uint32_t rows, words;
	} shapes[] = {
		{PQ_S128X256B, 128, 8}, {PQ_S128X128B, 128, 4},
		{PQ_S4X256B, 4, 8},
		{PQ_S64X128B_02_13, 64, 4},
		{PQ_S64X128B_01_23, 64, 4},
		{PQ_S32X128B_WARPX4, 32, 4},
	};
	int k = -1;
	for (int i = 0; i < 6 && k < 0; i++)
		if (insn_q(in, shapes[i].shape))
			k = i;
	bool pair = insn_q(in, PQ_CTA_GROUP_2);
	bool dec = insn_q(in, PQ_B8X16);
	int bits = !dec ? 0 : insn_q(in, PQ_B4X16_P64) ? 4
		   : insn_q(in, PQ_B6X16_P32) ? 6 : -1;
	if (k < 0 || (!pair && !insn_q(in, PQ_CTA_GROUP_1)) || in->nop != 2 ||
	    bits < 0 || (!dec && (insn_q(in, PQ_B4X16_P64) ||
				  insn_q(in, PQ_B6X16_P32))))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "malformed (a shape, .cta_group, and .b8x16 with "
			 ".b4x16_p64 or .b6x16_p32 expected)");
	SmemDesc s = smem_desc(r, t, in, opnd_get(r, c, t, &in->o[1]));
	if (s.atom32)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "tcgen05.cp from a 128B_BASE32B descriptor");
	uint32_t ta = (uint32_t)emu_addr(r, c, t, &in->o[0]);
	/* .cta_group::2: the copy happens in both CTAs of the pair, each
	 * from its own shared memory into its own TMEM */
	for (uint32_t v = 0; v < (pair ? 2u : 1u); v++)
		cp_one(r, pair ? cta_of_rank(r, t, in, (c->rank & ~1u) + v) : c,
		       t, in, &s, ta, k, bits);
}

static void
cp_one(Run *r, Cta *c, Thread *t, const Insn *in, const SmemDesc *sd,
       uint32_t ta, int k, int bits)
{
	static const uint32_t rows[] = {128, 128, 4, 64, 64, 32};
	static const uint32_t words[] = {8, 4, 8, 4, 4, 4};
	SmemDesc s = *sd;
	uint32_t lane0 = ta >> 16, col0 = ta & 0xffff;
	for (uint32_t row = 0; row < rows[k]; row++) {
		uint32_t lanes[4], n = 1;
		switch (k) {
		case 2: lanes[0] = 32 * row; break;
		case 3: lanes[0] = row; lanes[1] = row + 64; n = 2; break;
		case 4:
			lanes[0] = 64 * (row / 32) + row % 32;
			lanes[1] = lanes[0] + 32;
			n = 2;
			break;
		case 5:
			for (n = 0; n < 4; n++)
				lanes[n] = row + 32 * n;
			break;
		default: lanes[0] = row; break;
		}
		for (uint32_t w0 = 0; w0 < words[k]; w0 += 4) {
			uint32_t v[4];
			for (uint32_t w = 0; w < 4; w++)
				v[w] = desc_load(r, c, t, in, &s, row,
						 4 * (w0 + w), 4, false);
			if (bits)
				cp_expand(v, bits);
			for (uint32_t w = 0; w < 4; w++)
				for (uint32_t q = 0; q < n; q++)
					*tmem_cell(r, c, t, in, lane0 + lanes[q],
						   col0 + w0 + w, false) = v[w];
		}
	}
}

void
exec_tc(Run *r, Cta *c, Thread *t, const Insn *in)
{
	switch (in->op) {
	case PTXMN_TCGEN05_FENCE_BEFORE_THREAD_SYNC:
	case PTXMN_TCGEN05_FENCE_AFTER_THREAD_SYNC:
		return;
	case PTXMN_TCGEN05_COMMIT: {
		/* tcgen05.commit.cta_group::1.mbarrier::arrive::one
		 * .shared::cluster.b64 [mbar]: every earlier tcgen05 op of
		 * this thread is complete here, so the arrive is immediate */
		bool multi = insn_q(in, PQ_MULTICAST_CLUSTER);
		if (in->nop != (multi ? 2u : 1u))
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "malformed");
		uint64_t a = emu_addr(r, c, t, &in->o[0]);
		if (in->space == PSP_GENERIC && a >= WIN_SHARED)
			a -= WIN_SHARED;
		Cta *owner;
		emu_smem(r, t, in, (uint32_t)a, 8, &owner);
		if (!multi) {
			mbar_arrive(r, owner, (uint32_t)a, 1, t, in);
			return;
		}
		/* .multicast::cluster: the barrier at the same offset in
		 * every CTA whose rank bit is set in ctaMask */
		uint32_t mask = (uint32_t)opnd_get(r, c, t, &in->o[1]) & 0xffff;
		uint32_t off = (uint32_t)a & ((1u << SMEM_RANK_SHIFT) - 1);
		for (uint32_t rank = 0; rank < 16; rank++) {
			if (!(mask & (1u << rank)))
				continue;
			uint32_t ma = rank << SMEM_RANK_SHIFT | off;
			emu_smem(r, t, in, ma, 8, &owner);
			mbar_arrive(r, owner, ma, 1, t, in);
		}
		return;
	}
	case PTXMN_TCGEN05_MMA:
		exec_tc_mma(r, c, t, in);
		return;
	case PTXMN_TCGEN05_CP:
		exec_cp(r, c, t, in);
		return;
	default:
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "not modelled");
	}
}

void
tmem_check_exit(Run *r, Cta *c)
{
	if (c->tmem_used)
		emu_fail(r, PT_E_EMU_TMEM, NULL, NULL,
			 "CTA (%u,%u,%u) exited with TMEM columns still "
			 "allocated (chunk mask 0x%04x); the ISA requires "
			 "tcgen05.dealloc before exit", c->id[0], c->id[1],
			 c->id[2], c->tmem_used);
}
