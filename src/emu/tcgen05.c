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
 * tcgen05.mma (.cta_group::1, .kind::f16 and .kind::tf32, A and B from
 * K-major shared-memory descriptors with no/32B/64B/128B swizzle, M = 64
 * or 128, D f32 or f16, disable-output-lane, scale-input-d) reads the
 * operands through the sm_100 descriptor (ptx_facts.md §1.2-1.3, PTX
 * §9.7.16.4.1): for row r and k of a K-major operand with T elements per
 * 16 bytes, the byte address is
 *   no swizzle:  start + 16 (r % 8) + SBO (r / 8) + LBO (k / T) + esize (k % T)
 *   swizzle W:   start + W (r % 8) + SBO (r / 8) + esize k, then the
 *                Swizzle<B,4,3> of the address (W = 32/64/128, B = 1/2/3)
 * and the instruction descriptor (§2.1) gives the formats, M and N.  D
 * (M = 128: lane m, column n; M = 64: lane 32 (m / 16) + m % 16) gets
 * each element as one exact sum in double, rounded once.
 *
 * A may also come from TMEM (lane m, 16-bit elements two per cell);
 * .cta_group::2 M = 256 spreads A/D rows and B rows over the CTA pair;
 * .block_scale (.kind::mxf8f6f4, scale_vec::1X) is described at its
 * function.
 *
 * ld/st, cp and mma complete immediately here, so wait::ld/st and the
 * fences have nothing left to order; commit arrives on its mbarrier at
 * once.  tcgen05.cp (.cta_group::1, every shape and warpx replica mode,
 * no decompression) walks the same descriptor addresses, 32-bit words.
 */
#include <math.h>
#include <string.h>

#include "emu/emu.h"

enum { TM_LANES = 128, TM_COLS = 512 };

/* The cell at (lane, col); a warp's ld/st (partition) may only reach its
 * sub-partition's 32 lanes, an MMA any. */
static uint32_t *
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
		const char *name;
		int regs;
	} shapes[] = {{"32x32b", 1}, {"16x64b", 1}, {"16x128b", 2},
		      {"16x256b", 4}, {"16x32bx2", 1}};
	for (int i = 0; i < 5; i++)
		if (insn_has(in, shapes[i].name)) {
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
	bool st = in->op == OP_TC_ST;
	int per;
	int shape = shape_of(r, t0, in, &per);
	long num = insn_num(in, "x");
	bool pack = insn_has(in, st ? "unpack::16b" : "pack::16b");
	int nreg = (int)num * per;
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
					reg_set(t, o, *cell, TY_B32);
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
					TY_B32);
			}
		}
	}
}

static void
exec_alloc(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	Thread *t0 = lanes[__builtin_ctz(mask)];
	bool alloc = in->op == OP_TC_ALLOC;
	/* .cta_group::2: one warp of each CTA of the pair executes it; each
	 * allocates the same columns of its own TMEM (the lowest free range
	 * gives both CTAs the same address when they allocate alike) */
	if (!insn_has(in, "cta_group::1") && !insn_has(in, "cta_group::2"))
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
		uint8_t *p = emu_mem(r, c, t0, in, SP_SHARED, a, 4, true);
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
	case OP_TC_ALLOC: case OP_TC_DEALLOC:
		exec_alloc(r, c, lanes, mask, in);
		return;
	case OP_TC_LD: case OP_TC_ST:
		exec_ld_st(r, c, lanes, mask, in);
		return;
	case OP_TC_RELINQUISH: case OP_TC_WAIT:
		return;
	default:
		emu_fail(r, PT_E_EMU_UNSUPPORTED, lanes[__builtin_ctz(mask)],
			 in, "not modelled");
	}
}

/* ---- tcgen05.mma ---- */

typedef struct SmemDesc {
	uint32_t start, lbo, sbo;
	int swz; /* swizzle width in bytes, 0 none */
} SmemDesc;

static SmemDesc
smem_desc(Run *r, Thread *t, const Insn *in, uint64_t d)
{
	SmemDesc s;
	s.start = (uint32_t)(d & 0x3fff) << 4;
	s.lbo = (uint32_t)((d >> 16) & 0x3fff) << 4;
	s.sbo = (uint32_t)((d >> 32) & 0x3fff) << 4;
	uint32_t mode = (uint32_t)(d >> 61) & 7;
	s.swz = mode == 0 ? 0 : mode == 2 ? 128 : mode == 4 ? 64
		: mode == 6 ? 32 : -1;
	if (((d >> 46) & 7) != 1 || ((d >> 49) & 7) || ((d >> 52) & 1) ||
	    s.swz < 0)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "shared memory descriptor 0x%016llx: only version 1, "
			 "base offset 0, relative LBO and swizzle none/32B/64B/"
			 "128B are modelled", (unsigned long long)d);
	return s;
}

/* The shared address of byte `byte` of row `row` of a descriptor's
 * matrix: rows at (row / 8) SBO + (row % 8) W (W = 16 without swizzle);
 * without swizzle 16-byte chunks LBO apart, with it contiguous bytes and
 * then the Swizzle<B,4,3> of the address. */
static uint32_t
desc_addr(const SmemDesc *s, uint32_t row, uint32_t byte)
{
	uint32_t w = s->swz ? (uint32_t)s->swz : 16;
	uint32_t a = s->start + s->sbo * (row / 8) + w * (row % 8);
	if (!s->swz)
		return a + s->lbo * (byte / 16) + byte % 16;
	a += byte;
	uint32_t bits = s->swz == 128 ? 7 : s->swz == 64 ? 3 : 1;
	return a ^ (((a >> 7) & bits) << 4);
}

static uint32_t
desc_load(Run *r, Cta *c, Thread *t, const Insn *in, const SmemDesc *s,
	  uint32_t row, uint32_t byte, unsigned n)
{
	uint32_t a = desc_addr(s, row, byte);
	uint8_t *p = emu_smem(r, t, in, (c->rank << SMEM_RANK_SHIFT) | a, n,
			      NULL);
	return (uint32_t)emu_load_le(p, n);
}

/* Element (row, k) of a K-major MMA operand. */
static double
desc_elem(Run *r, Cta *c, Thread *t, const Insn *in, const SmemDesc *s,
	  uint32_t row, uint32_t k, int fmt, unsigned esize)
{
	uint32_t v = desc_load(r, c, t, in, s, row, esize * k, esize);
	if (fmt == 0) /* F16 */
		return emu_small_to_double(v, 5, 10);
	if (fmt == 1) /* BF16 */
		return emu_small_to_double(v, 8, 7);
	float f; /* TF32: an f32 image, the low 13 mantissa bits ignored */
	v &= ~0x1fffu;
	memcpy(&f, &v, 4);
	return f;
}

/* ---- tcgen05.cp ---- */

static void cp_one(Run *r, Cta *c, Thread *t, const Insn *in,
		   const SmemDesc *sd, uint32_t ta, int k);

static void
exec_cp(Run *r, Cta *c, Thread *t, const Insn *in)
{
	/* tcgen05.cp.cta_group::1.shape{.warpx..} [taddr], s-desc: rows of
	 * 32-bit words from the descriptor's matrix into TMEM, with the
	 * shape's lane map and replicas (the reference's "Shared-to-TMEM
	 * copies" table) */
	static const struct {
		const char *shape, *multi;
		uint32_t rows, words;
	} shapes[] = {
		{"128x256b", NULL, 128, 8}, {"128x128b", NULL, 128, 4},
		{"4x256b", NULL, 4, 8},
		{"64x128b", "warpx2::02_13", 64, 4},
		{"64x128b", "warpx2::01_23", 64, 4},
		{"32x128b", "warpx4", 32, 4},
	};
	int k = -1;
	for (int i = 0; i < 6 && k < 0; i++)
		if (insn_has(in, shapes[i].shape) &&
		    (!shapes[i].multi || insn_has(in, shapes[i].multi)))
			k = i;
	bool pair = insn_has(in, "cta_group::2");
	if (k < 0 || (!pair && !insn_has(in, "cta_group::1")) || in->nop != 2 ||
	    insn_has(in, "b8x16"))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "only copies without decompression are modelled");
	SmemDesc s = smem_desc(r, t, in, opnd_get(r, c, t, &in->o[1]));
	uint32_t ta = (uint32_t)emu_addr(r, c, t, &in->o[0]);
	/* .cta_group::2: the copy happens in both CTAs of the pair, each
	 * from its own shared memory into its own TMEM */
	for (uint32_t v = 0; v < (pair ? 2u : 1u); v++)
		cp_one(r, pair ? cta_of_rank(r, t, in, (c->rank & ~1u) + v) : c,
		       t, in, &s, ta, k);
}

static void
cp_one(Run *r, Cta *c, Thread *t, const Insn *in, const SmemDesc *sd,
       uint32_t ta, int k)
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
		for (uint32_t w = 0; w < words[k]; w++) {
			uint32_t v = desc_load(r, c, t, in, &s, row, 4 * w, 4);
			for (uint32_t q = 0; q < n; q++)
				*tmem_cell(r, c, t, in, lane0 + lanes[q], col0 + w,
					   false) = v;
		}
	}
}

/* ---- tcgen05.mma .block_scale (kind::mxf8f6f4, scale_vec::1X) ----
 * idesc (PTX Table 44): B scale-factor ID [4,6), A format [7,10), B
 * format [10,13) (E4M3 0, E5M2 1), negate A/B 13/14, major A/B 15/16,
 * N >> 3 [17,23), scale type 23 (UE8M0 1), M >> 7 [27,29), A scale-factor
 * ID [29,31).  One UE8M0 scale (2^(e - 127), 255 NaN) per row and 32 K:
 * the scale of A row m (of the CTA's M/cta_group rows) is byte sfid_a of
 * the TMEM cell at lane 32 (m / 32) + m % 32, column + m / 32 (the
 * sub-partition of D row m reads its own replica); the scale of B row n
 * the byte sfid_b at lane 32 (m / 32) + n % 32, column + n / 32.  With
 * .cta_group::2 (M = 256, Layout A) CTA v of the pair holds A rows
 * 128 v.. and B rows (N/2) v.. in its shared memory at the descriptors'
 * addresses, the scales of its rows and of all N in its TMEM, and gets D
 * rows 128 v.. (lane m - 128 v, all N columns) in its TMEM. */
static double
ue8m0(uint32_t e)
{
	return e == 255 ? NAN : ldexp(1.0, (int)e - 127);
}

static double
fp8_elem(Run *r, Cta *c, Thread *t, const Insn *in, const SmemDesc *s,
	 uint32_t row, uint32_t k, int fmt)
{
	uint32_t v = desc_load(r, c, t, in, s, row, k, 1);
	return fmt == 0 ? emu_e4m3_to_double(v) : emu_small_to_double(v, 5, 2);
}

static void
exec_mma_block_scale(Run *r, Cta *c, Thread *t, const Insn *in)
{
	bool pair = insn_has(in, "cta_group::2");
	uint32_t id = (uint32_t)opnd_get(r, c, t, &in->o[3]);
	int afmt = (int)(id >> 7) & 7, bfmt = (int)(id >> 10) & 7;
	uint32_t n = ((id >> 17) & 63) << 3, m = ((id >> 27) & 3) << 7;
	uint32_t sfb = (id >> 4) & 3, sfa = (id >> 29) & 3;
	bool ok = insn_has(in, "kind::mxf8f6f4") &&
		  (insn_has(in, "scale_vec::1X") || insn_has(in, "block32") ||
		   !insn_has(in, "scale_vec")) &&
		  in->nop == 7 && in->o[4].kind == K_ADDR &&
		  in->o[5].kind == K_ADDR && afmt <= 1 && bfmt <= 1 &&
		  !(id & 0xf) && !(id & (1u << 6)) && !(id & (0xfu << 13)) &&
		  (id & (1u << 23)) && !(id & (7u << 24)) && !(id >> 31) &&
		  m == (pair ? 256u : 128u) && n >= (pair ? 16u : 8u) &&
		  n <= 256 && n % (pair ? 16 : 8) == 0;
	if (!ok)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "instruction descriptor 0x%08x: only .kind::mxf8f6f4 "
			 ".scale_vec::1X, E4M3/E5M2 K-major A and B from "
			 "descriptors, UE8M0 scales, no negation, M 128 "
			 "(cta_group::1) or 256 (cta_group::2) is modelled", id);
	SmemDesc da = smem_desc(r, t, in, opnd_get(r, c, t, &in->o[1]));
	SmemDesc db = smem_desc(r, t, in, opnd_get(r, c, t, &in->o[2]));
	uint32_t ta = (uint32_t)emu_addr(r, c, t, &in->o[0]);
	uint32_t tsa = (uint32_t)emu_addr(r, c, t, &in->o[4]);
	uint32_t tsb = (uint32_t)emu_addr(r, c, t, &in->o[5]);
	bool acc = opnd_get(r, c, t, &in->o[6]) != 0;
	uint32_t ncta = pair ? 2 : 1, mloc = m / ncta, nloc = n / ncta;
	uint32_t base = pair ? c->rank & ~1u : c->rank;
	double *bm = NEWN(r->arena, double, (size_t)n * 32);
	for (uint32_t j = 0; j < n; j++) {
		Cta *owner = cta_of_rank(r, t, in, base + j / nloc);
		for (uint32_t k = 0; k < 32; k++)
			bm[j * 32 + k] = fp8_elem(r, owner, t, in, &db, j % nloc,
						  k, bfmt);
	}
	for (uint32_t v = 0; v < ncta; v++) {
		Cta *cv = cta_of_rank(r, t, in, base + v);
		for (uint32_t i = 0; i < mloc; i++) {
			double a[32];
			for (uint32_t k = 0; k < 32; k++)
				a[k] = fp8_elem(r, cv, t, in, &da, i, k, afmt);
			uint32_t q = 32 * (i / 32);
			double sa = ue8m0(*tmem_cell(r, cv, t, in,
				(tsa >> 16) + q + i % 32,
				(tsa & 0xffff) + i / 32, false) >> (8 * sfa) & 0xff);
			for (uint32_t j = 0; j < n; j++) {
				double sb = ue8m0(*tmem_cell(r, cv, t, in,
					(tsb >> 16) + q + j % 32,
					(tsb & 0xffff) + j / 32, false) >> (8 * sfb) & 0xff);
				uint32_t *cell = tmem_cell(r, cv, t, in,
							   (ta >> 16) + i,
							   (ta & 0xffff) + j, false);
				double s = 0;
				for (uint32_t k = 0; k < 32; k++)
					s += a[k] * bm[j * 32 + k];
				s *= sa * sb;
				if (acc) {
					float f;
					memcpy(&f, cell, 4);
					s += f;
				}
				*cell = emu_round_small(s, RND_RN, 8, 23);
			}
		}
	}
}

/* Element k of A row i (of this CTA's rows) in TMEM at ta: lane + i,
 * 32-bit cells from the column on, 16-bit elements two per cell (the
 * lower k in the low half), tf32 one per cell. */
static double
tmem_a_elem(Run *r, Cta *c, Thread *t, const Insn *in, uint32_t ta,
	    uint32_t i, uint32_t k, int fmt, unsigned esize)
{
	uint32_t cell = *tmem_cell(r, c, t, in, (ta >> 16) + i,
				   (ta & 0xffff) + k * esize / 4, false);
	if (esize == 2)
		cell = (cell >> (16 * (k % 2))) & 0xffff;
	if (fmt == 0)
		return emu_small_to_double(cell, 5, 10);
	if (fmt == 1)
		return emu_small_to_double(cell, 8, 7);
	float f;
	cell &= ~0x1fffu;
	memcpy(&f, &cell, 4);
	return f;
}

static void
exec_mma(Run *r, Cta *c, Thread *t, const Insn *in)
{
	if (insn_has(in, "block_scale")) {
		exec_mma_block_scale(r, c, t, in);
		return;
	}
	bool tf32 = insn_has(in, "kind::tf32");
	bool pair = insn_has(in, "cta_group::2");
	/* .ws: the B collector only caches B, so fill/discard read it from
	 * shared memory as usual; use/lastuse (B from the collector) are
	 * not modelled */
	bool ws = insn_has(in, "ws");
	if ((!pair && !insn_has(in, "cta_group::1")) ||
	    (!tf32 && !insn_has(in, "kind::f16")) || insn_has(in, "sp") ||
	    in->nop < 5 || in->o[0].kind != K_ADDR ||
	    (ws && (pair || strstr(in->name, "::use") ||
		    strstr(in->name, "::lastuse"))))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "only .kind::f16/.kind::tf32 without .sp (.ws: "
			 "cta_group::1, collector fill/discard) is modelled");
	bool a_tmem = in->o[1].kind == K_ADDR;
	uint32_t id = (uint32_t)opnd_get(r, c, t, &in->o[3]);
	int dfmt = (int)(id >> 4) & 3, afmt = (int)(id >> 7) & 7;
	int bfmt = (int)(id >> 10) & 7;
	uint32_t n = ((id >> 17) & 63) << 3, m = ((id >> 24) & 31) << 4;
	bool ok = !(id & 0x7) && !(id & (3u << 13)) && !(id & (3u << 15)) &&
		  !(id >> 30) && afmt == bfmt &&
		  (ws ? (m == 32 || m == 64 || m == 128) &&
			(n == 64 || n == 128 || n == 256)
		   : pair ? m == 256 && n % 16 == 0
			  : (m == 64 && !a_tmem) || m == 128) &&
		  n >= 8 && n <= 256 && (dfmt == 1 || (dfmt == 0 && !tf32)) &&
		  (tf32 ? afmt == 2 : afmt <= 1) && !(dfmt == 0 && afmt == 1);
	if (!ok)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "instruction descriptor 0x%08x: only dense K-major "
			 "f16/bf16 (tf32) with f32/f16 D, no negation, M 64 or "
			 "128 (A in TMEM: 128; cta_group::2: 256) is modelled",
			 id);
	unsigned esize = tf32 ? 4 : 2, kdim = 32 / esize;
	SmemDesc da = {0};
	if (!a_tmem)
		da = smem_desc(r, t, in, opnd_get(r, c, t, &in->o[1]));
	SmemDesc db = smem_desc(r, t, in, opnd_get(r, c, t, &in->o[2]));
	uint32_t tam = (uint32_t)emu_addr(r, c, t, &in->o[1]);
	/* {disable-output-lane (4 words; 8 for a pair: CTA v's lanes in
	 * words 4v..4v+3)}, enable-input-d {, scale-input-d} */
	unsigned ei = 4, nmask = pair ? 8 : 4;
	uint32_t disable[8] = {0};
	if (ws) {
		/* [d], a, b, idesc, enable-input-d {, zero-column-mask} */
		if (in->nop > 6 || (in->nop == 6 &&
				    opnd_get(r, c, t, &in->o[5]) != 0))
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
				 "a nonzero zero-column mask is not modelled");
	} else if (in->o[4].kind == K_VEC) {
		if (in->o[4].n != nmask || in->nop < 6)
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
				 "disable-output-lane takes %u registers", nmask);
		for (unsigned v = 0; v < nmask; v++)
			disable[v] = (uint32_t)opnd_get(r, c, t,
							vec_elem(r, &in->o[4], v));
		ei = 5;
	}
	bool acc = opnd_get(r, c, t, &in->o[ei]) != 0;
	uint64_t scale = !ws && ei + 1 < in->nop
			 ? opnd_get(r, c, t, &in->o[ei + 1]) : 0;
	if (scale > 15)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "scale-input-d %llu",
			 (unsigned long long)scale);
	uint32_t ta = (uint32_t)emu_addr(r, c, t, &in->o[0]);
	uint32_t lane0 = ta >> 16, col0 = ta & 0xffff;
	/* a pair: CTA v holds A and D rows 128 v.. and B rows (N/2) v.. */
	uint32_t ncta = pair ? 2 : 1, mloc = m / ncta, nloc = n / ncta;
	uint32_t base = pair ? c->rank & ~1u : c->rank;
	double *bm = NEWN(r->arena, double, (size_t)n * kdim);
	for (uint32_t j = 0; j < n; j++) {
		Cta *owner = cta_of_rank(r, t, in, base + j / nloc);
		for (uint32_t k = 0; k < kdim; k++)
			bm[j * kdim + k] = desc_elem(r, owner, t, in, &db, j % nloc,
						     k, bfmt, esize);
	}
	for (uint32_t v = 0; v < ncta; v++) {
		Cta *cv = cta_of_rank(r, t, in, base + v);
		for (uint32_t i = 0; i < mloc; i++) {
			double a[16];
			for (uint32_t k = 0; k < kdim; k++)
				a[k] = a_tmem ? tmem_a_elem(r, cv, t, in, tam, i, k,
							    afmt, esize)
					      : desc_elem(r, cv, t, in, &da, i, k,
							  afmt, esize);
			uint32_t lane = lane0 +
				(mloc == 128 || ws ? i : 32 * (i / 16) + i % 16);
			if (disable[4 * v + (lane % 128) / 32] &
			    (1u << (lane % 32)))
				continue;
			/* .ws M 64 / 32 (Layouts E / G): N in 2 / 4 parts,
			 * 64 / 32 lanes apart */
			uint32_t parts = ws ? 128 / mloc : 1, np = n / parts;
			for (uint32_t j = 0; j < n; j++) {
				uint32_t *cell = tmem_cell(r, cv, t, in,
					lane + (128 / parts) * (j / np),
					col0 + j % np, false);
				double d = 0;
				if (acc) {
					float f;
					memcpy(&f, cell, 4);
					d = dfmt == 1 ? (double)f
					    : emu_small_to_double(*cell & 0xffff,
								  5, 10);
					d = ldexp(d, -(int)scale);
				}
				for (uint32_t k = 0; k < kdim; k++)
					d += a[k] * bm[j * kdim + k];
				*cell = dfmt == 1
					? emu_round_small(d, RND_RN, 8, 23)
					: emu_round_small(d, RND_RN, 5, 10);
			}
		}
	}
}

void
exec_tc(Run *r, Cta *c, Thread *t, const Insn *in)
{
	switch (in->op) {
	case OP_TC_FENCE:
		return;
	case OP_TC_COMMIT: {
		/* tcgen05.commit.cta_group::1.mbarrier::arrive::one
		 * .shared::cluster.b64 [mbar]: every earlier tcgen05 op of
		 * this thread is complete here, so the arrive is immediate */
		bool multi = insn_has(in, "multicast::cluster");
		if (in->nop != (multi ? 2u : 1u))
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "malformed");
		uint64_t a = emu_addr(r, c, t, &in->o[0]);
		if (in->space == SP_GENERIC && a >= WIN_SHARED)
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
	case OP_TC_MMA:
		exec_mma(r, c, t, in);
		return;
	case OP_TC_CP:
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
