/*
 * tma.c - tensor maps and cp.async.bulk.tensor (PTX §9.7.9.25.5, the
 * tensor copy semantics of §5.5; tensor map arguments of the driver's
 * cuTensorMapEncodeTiled).
 *
 * The emulator's 128-byte tensor map (the driver's image is undocumented):
 *   0 magic "PTEM", 4 format, 5 rank, 6 interleave, 7 swizzle, 8 oob fill,
 *   12 element strides (5 bytes), 20 box (5 x u16), 32 global address,
 *   40 dims (5 x u64), 80 byte strides of dims 1..4 (4 x u64), 112 zero.
 */
#include <string.h>

#include "emu/emu_async.h"

#define TMAP_MAGIC 0x4d455450u

int
ptem_tensormap_encode(const ptem_tma_desc *d, void *map128)
{
	if (!d || !map128 || d->rank < 1 || d->rank > 5 || d->format < 0 ||
	    d->format > 15 || d->swizzle < 0 || d->swizzle > 6 ||
	    d->interleave < 0 || d->interleave > 2 || d->oob_fill < 0 ||
	    d->oob_fill > 1)
		return PT_E_EMU_ARGS;
	for (int i = 0; i < d->rank; i++)
		if (!d->dims[i] || d->box[i] < 1 || d->box[i] > 256 ||
		    d->elem_strides[i] < 1 || d->elem_strides[i] > 8)
			return PT_E_EMU_ARGS;
	/* the driver's rules: interleaved maps have rank 3..5, and the 32B
	 * interleave takes the 32B swizzle */
	if (d->interleave && (d->rank < 3 || (d->interleave == 2 &&
					      d->swizzle != 1)))
		return PT_E_EMU_ARGS;
	uint8_t *p = map128;
	memset(p, 0, 128);
	emu_store_le(p, TMAP_MAGIC, 4);
	p[4] = (uint8_t)d->format;
	p[5] = (uint8_t)d->rank;
	p[6] = (uint8_t)d->interleave;
	p[7] = (uint8_t)d->swizzle;
	p[8] = (uint8_t)d->oob_fill;
	for (int i = 0; i < d->rank; i++) {
		p[12 + i] = (uint8_t)d->elem_strides[i];
		emu_store_le(p + 20 + 2 * i, d->box[i], 2);
		emu_store_le(p + 40 + 8 * i, d->dims[i], 8);
		if (i < 4)
			emu_store_le(p + 80 + 8 * i, d->strides[i], 8);
	}
	emu_store_le(p + 32, d->addr, 8);
	return PT_OK;
}

typedef struct TMap {
	int format, rank, interleave, swizzle, oob;
	unsigned esize;
	unsigned pbits, pslot;  /* packed formats: bits, shared bytes per 16 */
	uint64_t addr;
	uint64_t dims[5], strides[5]; /* strides in bytes, [0] = element */
	uint32_t box[5], estr[5];
} TMap;

enum { TMA_TILE, TMA_GATHER4, TMA_SCATTER4 };
enum { RED_NONE, RED_ADD, RED_MIN, RED_MAX, RED_AND, RED_OR, RED_XOR };

typedef struct TmaOp {
	TMap m;
	int32_t coord[5];
	int mode, red;
	bool store;
	Cta *cta[16];          /* destination CTAs (multicast), or source */
	uint32_t smem_addr;    /* shared address (offset part) of the box */
	uint64_t bytes;        /* of the shared image */
	uint64_t tx;           /* transaction bytes: the global payload */
} TmaOp;

static unsigned
format_size(int f)
{
	switch (f) {
	case 0: return 1;                  /* UINT8 */
	case 1: case 6: case 9: return 2;  /* UINT16, FLOAT16, BFLOAT16 */
	case 4: case 5: case 8: return 8;  /* UINT64, INT64, FLOAT64 */
	case 2: case 3: case 7: case 10: case 11: case 12: return 4;
	default: return 0;                 /* packed sub-byte formats */
	}
}

static void
tmap_read(Run *r, Cta *c, Thread *t, const Insn *in, const Opnd *o, TMap *m)
{
	uint64_t a = emu_addr(r, c, t, o);
	if (a % 64)
		emu_fail(r, PT_E_EMU_OOB, t, in,
			 "tensor map address 0x%llx is not 64-byte aligned",
			 (unsigned long long)a);
	const uint8_t *p = emu_mem(r, c, t, in, PSP_GENERIC, a, 128, false);
	memset(m, 0, sizeof(*m));
	m->format = p[4];
	m->rank = p[5];
	m->interleave = p[6];
	m->swizzle = p[7];
	m->oob = p[8];
	m->esize = format_size(m->format);
	/* the packed formats (CUtensorMapDataType 13-15): sixteen 4-bit
	 * values in 8 bytes (16U4_ALIGN8B, shared as in global) or with 8
	 * bytes of padding in shared memory (16U4_ALIGN16B), sixteen 6-bit
	 * values in 12 bytes with 4 of padding (16U6_ALIGN16B) */
	m->pbits = m->format == 15 ? 6 : m->format >= 13 && m->format <= 14 ? 4 : 0;
	m->pslot = m->format == 13 ? 8 : 16;
	m->addr = emu_load_le(p + 32, 8);
	if (emu_load_le(p, 4) != TMAP_MAGIC || m->rank < 1 || m->rank > 5)
		emu_fail(r, PT_E_EMU_ARGS, t, in,
			 "the operand at 0x%llx is not an emulator tensor map "
			 "(ptem_tensormap_encode)", (unsigned long long)a);
	if ((!m->esize && !m->pbits) || m->interleave > 2 || m->swizzle > 3)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "tensor map with format %d, interleave %d, swizzle %d "
			 "is not modelled (packed formats and the 128B_ATOM "
			 "swizzles are not)", m->format, m->interleave,
			 m->swizzle);
	m->strides[0] = m->esize;
	for (int i = 0; i < m->rank; i++) {
		m->estr[i] = p[12 + i];
		m->box[i] = (uint32_t)emu_load_le(p + 20 + 2 * i, 2);
		m->dims[i] = emu_load_le(p + 40 + 8 * i, 8);
		if (i > 0)
			m->strides[i] = emu_load_le(p + 80 + 8 * (i - 1), 8);
	}
	if (m->pbits && (m->interleave || m->oob || m->box[0] % 16 ||
			 m->dims[0] % 16))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "packed tensor map: only whole 16-element groups (inner "
			 "box and size multiples of 16), zero fill and no "
			 "interleave are modelled");
	if (!m->interleave) {
		m->estr[0] = 1; /* ignored for non-interleaved maps */
		return;
	}
	/* Interleaved (NC/8DHWC8, NC/16DHWC16; PTX §5.5.6): dim 0 is the
	 * channels of one 16/32-byte slice, in elements, and the map is
	 * otherwise a tiled one - what the H200 did with a driver-encoded
	 * 16B map (dims 8, 64, 4, box 8, 8, 1; tests/gpu/gpu_tma.c).  Only
	 * that shape is modelled: an inner box of exactly one slice, unit
	 * inner element stride, and no swizzle on the 16B interleave (which
	 * can trap on the GPU).  The runtime's own maps put pixels, not
	 * channels, in dim 0 (dims 64, 4, 2; box 8, 1, 1 in tma_modes.py),
	 * and the H200 then moved eight 16-byte slices: dim 0 is not one
	 * slice of channels there, so such maps are refused, not guessed. */
	if ((uint64_t)m->box[0] * m->esize != 16u * (unsigned)m->interleave ||
	    m->dims[0] * m->esize != 16u * (unsigned)m->interleave ||
	    m->estr[0] != 1 || (m->interleave == 1 && m->swizzle))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "interleaved tensor map: only a dim 0 and inner box of "
			 "one %d-byte channel slice, inner element stride 1 and "
			 "(16B) no swizzle are modelled", 16 * m->interleave);
}

/* The swizzled shared address: 16-byte chunk bits [4, 4+B) XOR bits
 * [7, 7+B), B = 1, 2, 3 for the 32B, 64B, 128B modes (the pattern
 * repeats every 256, 512, 1024 bytes, its phase from the address). */
static uint32_t
swizzle(uint32_t a, int mode)
{
	if (mode < 1 || mode > 3)
		return a;
	uint32_t mask = (1u << mode) - 1;
	return a ^ (((a >> 7) & mask) << 4);
}

static void
reduce_elem(uint8_t *g, const uint8_t *s, const TMap *m, int red)
{
	uint64_t a = emu_load_le(g, m->esize), b = emu_load_le(s, m->esize), v = a;
	int f = m->format;
	if (f == 7 || f == 10) { /* FLOAT32 */
		float x, y;
		uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
		memcpy(&x, &ua, 4);
		memcpy(&y, &ub, 4);
		float z = red == RED_ADD ? x + y : red == RED_MIN ? (y < x ? y : x)
						  : (y > x ? y : x);
		uint32_t uz;
		memcpy(&uz, &z, 4);
		v = uz;
	} else if (f == 6 || f == 9) { /* FLOAT16, BFLOAT16 */
		int eb = f == 9 ? 8 : 5, mb = f == 9 ? 7 : 10;
		double x = emu_small_to_double((uint32_t)a, eb, mb);
		double y = emu_small_to_double((uint32_t)b, eb, mb);
		double z = red == RED_ADD ? x + y : red == RED_MIN ? (y < x ? y : x)
						   : (y > x ? y : x);
		/* min/max ignore one NaN operand, as the H200 did for f16 and
		 * bf16 (emu_fuzz tma_reduce seeds 3, 5, 14, 18, 20, 25: a NaN
		 * in global memory gave the shared value); two NaNs give the
		 * canonical NaN, as min/max.f16 do without .NaN */
		if (red != RED_ADD && x != x)
			z = y;
		v = emu_round_small(z, RND_RN, eb, mb);
		if (red != RED_ADD && x != x && y != y)
			v = 0x7fff;
	} else if (f == 3 || f == 5) { /* INT32, INT64 */
		int sh = 64 - 8 * (int)m->esize;
		int64_t x = (int64_t)(a << sh) >> sh, y = (int64_t)(b << sh) >> sh;
		v = red == RED_ADD ? a + b
		    : red == RED_MIN ? (uint64_t)(y < x ? y : x)
		    : red == RED_MAX ? (uint64_t)(y > x ? y : x)
		    : red == RED_AND ? a & b : red == RED_OR ? a | b : a ^ b;
	} else {
		v = red == RED_ADD ? a + b : red == RED_MIN ? (b < a ? b : a)
		    : red == RED_MAX ? (b > a ? b : a)
		    : red == RED_AND ? a & b : red == RED_OR ? a | b : a ^ b;
	}
	emu_store_le(g, v, m->esize);
}

/* Moves one element between global coordinate gc and box offset off. */
static void
tma_elem(Run *r, Pending *p, TmaOp *op, const int64_t gc[5], uint64_t off)
{
	const TMap *m = &op->m;
	bool in = true;
	uint64_t ga = m->addr;
	for (int d = 0; d < m->rank; d++) {
		if (gc[d] < 0 || (uint64_t)gc[d] >= m->dims[d])
			in = false;
		else
			ga += (uint64_t)gc[d] * m->strides[d];
	}
	uint32_t sa = swizzle(op->smem_addr + (uint32_t)off, m->swizzle);
	if (op->store) {
		if (!in)
			return; /* out-of-bound elements are not written */
		uint8_t *g = ptem_host(r->e, ga, m->esize);
		if (g && r->order)
			emu_order_global(r, p->t, p->in, ga, m->esize, true);
		/* the issuing CTA's own shared memory (sa has no rank) */
		uint8_t *s = emu_smem(r, p->t, p->in,
				      (op->cta[0]->rank << SMEM_RANK_SHIFT) | sa,
				      m->esize, NULL);
		if (!g)
			emu_fail(r, PT_E_EMU_OOB, p->t, p->in,
				 "tensor map element at 0x%llx outside every "
				 "allocation", (unsigned long long)ga);
		if (op->red)
			reduce_elem(g, s, m, op->red);
		else
			memcpy(g, s, m->esize);
		return;
	}
	uint8_t val[8] = {0};
	if (in) {
		const uint8_t *g = ptem_host(r->e, ga, m->esize);
		if (!g)
			emu_fail(r, PT_E_EMU_OOB, p->t, p->in,
				 "tensor map element at 0x%llx outside every "
				 "allocation", (unsigned long long)ga);
		if (r->order)
			emu_order_global(r, p->t, p->in, ga, m->esize, false);
		memcpy(val, g, m->esize);
	} else if (m->oob) {
		/* NAN_REQUEST_ZERO_FMA: the H200 wrote 0x7ff7 in every 16-bit
		 * half (f16/bf16 0x7ff7, f32 0x7ff77ff7, f64 0x7ff7...7ff7;
		 * measured 2026-12-01, emu_fuzz tma seed 39): a NaN in each
		 * format, not the canonical one */
		emu_store_le(val, 0x7ff77ff77ff77ff7ull, m->esize);
	}
	for (int k = 0; k < 16; k++) {
		if (!op->cta[k])
			continue;
		uint32_t rank_sa = (op->cta[k]->rank << SMEM_RANK_SHIFT) |
				   (sa & ((1u << SMEM_RANK_SHIFT) - 1));
		uint8_t *s = emu_smem(r, p->t, p->in, rank_sa, m->esize, NULL);
		memcpy(s, val, m->esize);
	}
}

/* A packed-format load of the 16-element group at gc (gc[0] a multiple
 * of 16) to the group slot at off: the payload bytes (out of bounds:
 * zeros) at the start of the slot, any padding left as it was (its
 * content is undefined). */
static void
tma_group(Run *r, Pending *p, TmaOp *op, const int64_t gc[5], uint64_t off)
{
	const TMap *m = &op->m;
	unsigned gbytes = 2 * m->pbits;
	uint8_t val[12] = {0};
	bool in = true;
	uint64_t ga = m->addr + (uint64_t)gc[0] / 16 * gbytes;
	for (int d = 0; d < m->rank; d++) {
		if (gc[d] < 0 || (uint64_t)gc[d] >= m->dims[d])
			in = false;
		else if (d)
			ga += (uint64_t)gc[d] * m->strides[d];
	}
	if (in) {
		const uint8_t *g = ptem_host(r->e, ga, gbytes);
		if (!g)
			emu_fail(r, PT_E_EMU_OOB, p->t, p->in,
				 "tensor map group at 0x%llx outside every "
				 "allocation", (unsigned long long)ga);
		if (r->order)
			emu_order_global(r, p->t, p->in, ga, gbytes, false);
		memcpy(val, g, gbytes);
	}
	for (int k = 0; k < 16; k++)
		for (unsigned b = 0; op->cta[k] && b < gbytes; b++) {
			uint32_t sa = swizzle(op->smem_addr + (uint32_t)off + b,
					      m->swizzle);
			*emu_smem(r, p->t, p->in, (op->cta[k]->rank << SMEM_RANK_SHIFT) |
					  sa, 1, NULL) = val[b];
		}
}

static void
tma_perform(Run *r, Pending *p)
{
	TmaOp *op = p->data;
	const TMap *m = &op->m;
	uint64_t off = 0;
	if (m->pbits) {
		uint32_t n[5] = {1, 1, 1, 1, 1};
		for (int d = 0; d < m->rank; d++)
			n[d] = d ? (m->box[d] + m->estr[d] - 1) / m->estr[d]
				 : m->box[0] / 16;
		for (uint32_t j4 = 0; j4 < n[4]; j4++)
		for (uint32_t j3 = 0; j3 < n[3]; j3++)
		for (uint32_t j2 = 0; j2 < n[2]; j2++)
		for (uint32_t j1 = 0; j1 < n[1]; j1++)
		for (uint32_t j0 = 0; j0 < n[0]; j0++) {
			uint32_t j[5] = {16 * j0, j1, j2, j3, j4};
			int64_t gc[5] = {0};
			for (int d = 0; d < m->rank; d++)
				gc[d] = (int64_t)op->coord[d] +
					(int64_t)j[d] * (d ? m->estr[d] : 1);
			tma_group(r, p, op, gc, off);
			off += m->pslot;
		}
	} else if (op->mode != TMA_TILE) {
		/* gather4/scatter4: four rows coord[1..4] of box[0] elements
		 * from column coord[0] */
		for (int row = 0; row < 4; row++)
			for (uint32_t j = 0; j < m->box[0]; j++) {
				int64_t gc[5] = {(int64_t)op->coord[0] + j,
						 op->coord[1 + row]};
				tma_elem(r, p, op, gc, off);
				off += m->esize;
			}
	} else {
		uint32_t n[5] = {1, 1, 1, 1, 1};
		for (int d = 0; d < m->rank; d++)
			n[d] = (m->box[d] + m->estr[d] - 1) / m->estr[d];
		for (uint32_t j4 = 0; j4 < n[4]; j4++)
		for (uint32_t j3 = 0; j3 < n[3]; j3++)
		for (uint32_t j2 = 0; j2 < n[2]; j2++)
		for (uint32_t j1 = 0; j1 < n[1]; j1++)
		for (uint32_t j0 = 0; j0 < n[0]; j0++) {
			uint32_t j[5] = {j0, j1, j2, j3, j4};
			int64_t gc[5] = {0};
			for (int d = 0; d < m->rank; d++)
				gc[d] = (int64_t)op->coord[d] +
					(int64_t)j[d] * m->estr[d];
			tma_elem(r, p, op, gc, off);
			off += m->esize;
		}
	}
	/* a multicast load completes on every destination's mbarrier */
	for (int k = 0; k < 16 && !op->store; k++)
		if (op->cta[k] && op->cta[k] != p->mbar_cta)
			mbar_complete_tx(r, op->cta[k],
					 (op->cta[k]->rank << SMEM_RANK_SHIFT) |
						 (p->mbar_addr &
						  ((1u << SMEM_RANK_SHIFT) - 1)),
					 (int64_t)op->tx, p->t, p->in);
}

/* Bytes of the box's shared image; *tx the bytes its transfer counts
 * (packed formats: the global payload, without the padding). */
static uint64_t
box_bytes(const TMap *m, int mode, uint64_t *tx)
{
	if (mode != TMA_TILE)
		return *tx = 4ull * m->box[0] * m->esize;
	uint64_t n = 1;
	for (int d = 1; d < m->rank; d++)
		n *= (m->box[d] + m->estr[d] - 1) / m->estr[d];
	if (m->pbits) {
		*tx = n * (m->box[0] / 16) * 2 * m->pbits;
		return n * (m->box[0] / 16) * m->pslot;
	}
	n *= (uint64_t)(m->box[0] + m->estr[0] - 1) / m->estr[0] * m->esize;
	return *tx = n;
}

static int
red_op(const Insn *in)
{
	static const PtxQual names[] = {PQ_ADD, PQ_MIN, PQ_MAX, PQ_AND, PQ_OR,
					PQ_XOR};
	for (int i = 0; i < 6; i++)
		if (insn_q(in, names[i]))
			return RED_ADD + i;
	return RED_NONE;
}

void
exec_tma(Run *r, Cta *c, Thread *t, const Insn *in)
{
	bool reduce = in->op == PTXMN_CP_REDUCE_ASYNC_BULK_TENSOR;
	/* a store's form starts with the tensor map (.global.shared::cta) */
	bool store = reduce || in->sel->ops[0].kind == PTXOP_TENSOR;
	if (insn_q(in, PQ_IM2COL) || insn_q(in, PQ_IM2COL_NO_OFFS) ||
	    insn_q(in, PQ_CTA_GROUP_2) ||
	    (reduce && !red_op(in)))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "im2col, .cta_group::2 and this reduction are not "
			 "modelled");
	TmaOp *op = NEW(r->arena, TmaOp);
	op->store = store;
	op->red = reduce ? red_op(in) : RED_NONE;
	op->mode = insn_q(in, PQ_TILE_GATHER4) ? TMA_GATHER4
		   : insn_q(in, PQ_TILE_SCATTER4) ? TMA_SCATTER4 : TMA_TILE;
	const Opnd *mapo = &in->o[store ? 0 : 1];
	const Opnd *smo = &in->o[store ? 1 : 0];
	if (in->nop < 2 || mapo->kind != K_ADDR || !mapo->n ||
	    smo->kind != K_ADDR)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "malformed");
	tmap_read(r, c, t, in, mapo, &op->m);
	int f = op->m.format;
	if ((op->red == RED_MIN || op->red == RED_MAX) &&
	    (f == 7 || f == 8 || (f >= 10 && f <= 12)))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "min/max reduction of a float32/float64 map (the ISA "
			 "has no such reduction; the H200 stopped with an "
			 "illegal instruction)");
	unsigned ncoord = op->mode == TMA_TILE ? (unsigned)op->m.rank : 5;
	if (mapo->n != ncoord || (op->mode != TMA_TILE && op->m.rank != 2))
		emu_fail(r, PT_E_EMU_ARGS, t, in,
			 "%u coordinates for a rank-%d tensor map", mapo->n,
			 op->m.rank);
	for (unsigned i = 0; i < ncoord; i++)
		op->coord[i] = (int32_t)opnd_get(r, c, t, vec_elem(r, mapo, i));
	op->bytes = box_bytes(&op->m, op->mode, &op->tx);
	if (op->m.pbits && (store || op->mode != TMA_TILE ||
			    op->coord[0] % 16))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "packed tensor maps: only tile-mode loads at an inner "
			 "coordinate that is a multiple of 16 are modelled");
	uint64_t sa = emu_addr(r, c, t, smo);
	if (sa % 16 || sa >> 32)
		emu_fail(r, PT_E_EMU_OOB, t, in,
			 "shared box address 0x%llx is not 16-byte aligned",
			 (unsigned long long)sa);
	Cta *own;
	uint8_t *box = emu_smem(r, t, in, (uint32_t)sa, op->bytes, &own);
	op->smem_addr = (uint32_t)sa & ((1u << SMEM_RANK_SHIFT) - 1);
	Pending *p = async_new(r, t, in,
			       store ? PTXMN_CP_ASYNC_BULK_COMMIT_GROUP : 0);
	p->perform = tma_perform;
	p->data = op;
	if (store) {
		op->cta[0] = own;
		p->src = box;
		p->src_n = op->bytes;
		async_issue(r, p);
		return;
	}
	/* load: [dst], [map, {c}], [mbar] {, ctaMask} {, cache-policy} */
	if (in->nop < 3)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "missing mbarrier");
	Insn tmp = *in;
	tmp.space = PSP_SHARED_CLUSTER;
	p->mbar_cta = mbar_operand(r, c, t, &tmp, &in->o[2], &p->mbar_addr);
	mbar_lookup(r, p->mbar_cta, p->mbar_addr, t, in);
	p->tx = op->tx;
	p->dst = box;
	p->dst_n = op->bytes;
	if (insn_q(in, PQ_MULTICAST_CLUSTER)) {
		if (in->nop < 4)
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
				 "missing ctaMask");
		uint32_t cm = (uint32_t)opnd_get(r, c, t, &in->o[3]) & 0xffff;
		for (uint32_t k = 0; k < 16; k++)
			if (cm & (1u << k)) {
				op->cta[k] = cta_of_rank(r, t, in, k);
				mbar_lookup(r, op->cta[k],
					    (k << SMEM_RANK_SHIFT) |
						    (p->mbar_addr &
						     ((1u << SMEM_RANK_SHIFT) - 1)),
					    t, in);
			}
		/* the issuing CTA's own barrier only when it is a target */
		if (!(cm & (1u << p->mbar_cta->rank)))
			p->mbar_cta = NULL;
	} else {
		op->cta[own->rank] = own;
		if (p->mbar_cta != own)
			emu_fail(r, PT_E_EMU_MBARRIER, t, in,
				 "the mbarrier is not in the destination CTA");
	}
	async_issue(r, p);
}
