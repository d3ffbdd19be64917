/*
 * tcgen05_mma.c - tcgen05.mma (PTX §9.7.16.10): every dense kind
 * (.kind::f16 tf32 f8f6f4 i8) and every block-scaled kind (.kind::mxf8f6f4
 * mxf4 mxf4nvf4 with .scale_vec::1X/2X/4X or .block16/.block32), on one
 * CTA or a CTA pair, with .ws, A from shared memory or TMEM, K- or
 * MN-major operands, negation and the A/B collector buffers.
 *
 * The instruction descriptor (PTX Tables 42-44) gives the formats, the
 * negate and transpose ("MN-major") bits, N and M, and for the scaled
 * kinds the scale type and the scale-factor IDs.  Elements (PTX
 * §9.7.16.10.4): 16/32-bit and 8-bit types at their width; the FP6/FP4
 * types of f8f6f4/mxf8f6f4 in shared memory sixteen to a 16-byte block
 * (element e at bits [w e, w e + w) of the block, then padding), in TMEM
 * one per byte (FP4 in bits [2,6), FP6 in bits [0,6)); the FP4 of
 * mxf4/mxf4nvf4 two per byte, the lower k in the low nibble.  Operands are
 * read through the descriptor walk of desc_addr (tcgen05.c).
 *
 * D is laid out per the ISA's data-path layouts (§9.7.16.10.5): A (M 256
 * on a pair) and D (M 128): lane m, column n; B (M 128 on a pair: each
 * CTA's 64 rows, N in two halves 64 lanes apart), E (.ws M 64) the same
 * for one CTA; F (M 64): lane 32 (m / 16) + m % 16; G (.ws M 32): N in
 * four quarters 32 lanes apart.  On a pair CTA v holds A rows (M/2) v..
 * and B rows (N/2) v.. at the descriptors' addresses in its own shared
 * memory and D rows (M/2) v.. in its own TMEM.
 *
 * Each D element is one exact sum in double (block-scaled: each K block's
 * sum times its two scales), plus the old D scaled by 2^-scale-input-d,
 * rounded once (f32/f16), or an exact integer sum clamped (.satfinite
 * bit) or wrapped (s32).  The hardware's accumulation order is
 * unspecified, so this agrees with the GPU within a tolerance, and
 * exactly when every partial sum is representable.
 */
#include <math.h>
#include <string.h>

#include "emu/tcgen05.h"

typedef enum El {
	EL_F16, EL_BF16, EL_TF32, EL_E4M3, EL_E5M2, EL_E2M3, EL_E3M2,
	EL_E2M1, EL_U8, EL_S8, EL_NONE
} El;

static const uint8_t el_bits[] = {16, 16, 32, 8, 8, 6, 6, 4, 8, 8};

enum { X_ = EL_NONE };
typedef struct KindInfo {
	const char *tok;
	uint8_t k;       /* K of one dense MMA: 256 bits of A per row */
	bool scaled;     /* .block_scale kinds */
	bool packed;     /* FP4 two per byte (mxf4, mxf4nvf4) */
	uint8_t fmt[8];  /* instruction-descriptor format code -> El */
} KindInfo;

enum { K_F16, K_TF32, K_F8F6F4, K_I8, K_MXF8F6F4, K_MXF4, K_MXF4NVF4, NKIND };

static const KindInfo kinds[NKIND] = {
	{"kind::f16", 16, false, false, {EL_F16, EL_BF16, X_, X_, X_, X_, X_, X_}},
	{"kind::tf32", 8, false, false, {X_, X_, EL_TF32, X_, X_, X_, X_, X_}},
	{"kind::f8f6f4", 32, false, false,
	 {EL_E4M3, EL_E5M2, X_, EL_E2M3, EL_E3M2, EL_E2M1, X_, X_}},
	{"kind::i8", 32, false, false, {EL_U8, EL_S8, X_, X_, X_, X_, X_, X_}},
	{"kind::mxf8f6f4", 32, true, false,
	 {EL_E4M3, EL_E5M2, X_, EL_E2M3, EL_E3M2, EL_E2M1, X_, X_}},
	{"kind::mxf4", 64, true, true, {X_, EL_E2M1, X_, X_, X_, X_, X_, X_}},
	{"kind::mxf4nvf4", 64, true, true, {X_, EL_E2M1, X_, X_, X_, X_, X_, X_}},
};

/* One multiplicand: from a shared-memory descriptor or (A) TMEM. */
typedef struct Opd {
	bool tmem, mn, neg;
	El el;
	SmemDesc d;
	uint32_t ta;
} Opd;

/* A collector buffer (.collector::a / ::bN): the operand as last filled,
 * before negation, keyed by kind, format, rows and K. */
typedef struct Collector {
	double *v;
	uint32_t rows, k;
	int kind;
	El el;
	bool valid;
} Collector;

enum { COLL_DISCARD, COLL_FILL, COLL_USE, COLL_LASTUSE };

typedef struct Mma {
	int kind;
	const KindInfo *ki;
	bool pair, ws, acc, sat;
	uint32_t m, n, k, mloc, nloc, ncta, base;
	int dfmt;           /* 0 f16, 1 f32, 2 s32 */
	Opd a, b;
	uint32_t nsf;       /* scales per row and MMA: 1, 2 or 4 (0 none) */
	bool ue8m0;
	uint32_t sfa, sfb, tsa, tsb;
	uint32_t disable[8];
	uint32_t scale_d;
	uint64_t zcm;       /* .ws zero-column mask descriptor */
	int coll, coll_op;  /* collector buffer (0..3 B, 4 A), operation */
	uint32_t ta;        /* D */
} Mma;

#define MMA_FAIL(...) emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, __VA_ARGS__)

/* ---- elements ---- */

/* A float format without infinities or NaN (E2M3, E3M2, E2M1). */
static double
finite_small(uint32_t v, int ebits, int mbits)
{
	uint32_t e = v >> mbits & ((1u << ebits) - 1), m = v & ((1u << mbits) - 1);
	int bias = (1 << (ebits - 1)) - 1;
	double x = e ? ldexp((double)(m | 1u << mbits), (int)e - bias - mbits)
		     : ldexp((double)m, 1 - bias - mbits);
	return v >> (ebits + mbits) & 1 ? -x : x;
}

static double
el_value(El el, uint32_t v)
{
	float f;
	switch (el) {
	case EL_F16: return emu_small_to_double(v, 5, 10);
	case EL_BF16: return emu_small_to_double(v, 8, 7);
	case EL_TF32: /* an f32 image, the low 13 mantissa bits ignored */
		v &= ~0x1fffu;
		memcpy(&f, &v, 4);
		return f;
	case EL_E4M3: return emu_e4m3_to_double(v);
	case EL_E5M2: return emu_small_to_double(v, 5, 2);
	case EL_E2M3: return finite_small(v, 2, 3);
	case EL_E3M2: return finite_small(v, 3, 2);
	case EL_E2M1: return finite_small(v, 2, 1);
	case EL_S8: return (double)(int8_t)v;
	default: return (double)v;
	}
}

/* The bits of element (row, k) of a shared-memory operand. */
static uint32_t
smem_raw(Run *r, Cta *c, Thread *t, const Insn *in, const Mma *m,
	 const Opd *o, uint32_t row, uint32_t k)
{
	unsigned bits = el_bits[o->el];
	uint32_t drow = o->mn ? k : row, i = o->mn ? row : k;
	uint32_t off = bits >= 8 || m->ki->packed
		       ? bits * i : 128 * (i / 16) + bits * (i % 16);
	if (off % 8 == 0 && bits % 8 == 0)
		return desc_load(r, c, t, in, &o->d, drow, off / 8, bits / 8,
				 o->mn);
	uint32_t v = desc_load(r, c, t, in, &o->d, drow, off / 8, 1, o->mn);
	if (off % 8 + bits > 8)
		v |= desc_load(r, c, t, in, &o->d, drow, off / 8 + 1, 1, o->mn)
		     << 8;
	return (v >> (off % 8)) & ((1u << bits) - 1);
}

/* The bits of element (row, k) of A in TMEM: row at lane + row, K along
 * the columns, 16-bit elements two per cell, 8-bit containers four (the
 * lower k in the lower bits). */
static uint32_t
tmem_raw(Run *r, Cta *c, Thread *t, const Insn *in, const Opd *o,
	 uint32_t row, uint32_t k)
{
	unsigned bits = el_bits[o->el], cb = bits < 8 ? 8 : bits;
	uint32_t at = cb * k;
	uint32_t v = *tmem_cell(r, c, t, in, (o->ta >> 16) + row,
				(o->ta & 0xffff) + at / 32, false);
	if (cb < 32)
		v = (v >> (at % 32)) & ((1u << cb) - 1);
	return bits == 4 ? (v >> 2) & 0xf : bits == 6 ? v & 0x3f : v;
}

/* The operand's rows (M or N, over the CTA pair: CTA v holds rows
 * per * v..) as doubles into v, rows x K, before negation; shift skips
 * the first rows (B: the .ws column shift; A in TMEM: the copy). */
static void
opd_load(Run *r, Thread *t, const Insn *in, const Mma *m, const Opd *o,
	 uint32_t rows, uint32_t per, uint32_t shift, double *v)
{
	for (uint32_t j = 0; j < rows; j++) {
		Cta *owner = cta_of_rank(r, t, in, m->base + j / per);
		uint32_t row = j % per + shift;
		for (uint32_t k = 0; k < m->k; k++)
			v[(size_t)j * m->k + k] = el_value(o->el,
				o->tmem ? tmem_raw(r, owner, t, in, o, row, k)
					: smem_raw(r, owner, t, in, m, o, row, k));
	}
}

/* Scratch slot 0 (A) or 1 (B) of at least n doubles, reused from one
 * MMA to the next so that a long kernel does not grow the arena. */
static double *
scratch(Run *r, int slot, size_t n)
{
	if (r->mma_cap[slot] < n) {
		r->mma_buf[slot] = NEWN(r->arena, double, n);
		r->mma_cap[slot] = n;
	}
	return r->mma_buf[slot];
}

/* ---- parsing ---- */

/* tcgen05.mma's decoded form (Insn.aux): the qualifiers, read from the
 * selected form's qualifier set once, at load (decode_tc_mma). */
typedef struct TcMmaForm {
	bool pair, ws;
	int kind;
	int coll, coll_op;  /* collector buffer (0..3 B, 4 A), operation */
	uint32_t nsf;       /* scales per row and MMA (0: not scaled) */
	const char *err;    /* why the executor refuses it (NULL: fine) */
} TcMmaForm;

static const PtxQual kind_quals[NKIND] = {
	PQ_KIND_F16, PQ_KIND_TF32, PQ_KIND_F8F6F4, PQ_KIND_I8,
	PQ_KIND_MXF8F6F4, PQ_KIND_MXF4, PQ_KIND_MXF4NVF4,
};

/* The collector qualifier: buffer (0..3 B for .ws, 4 A) and operation. */
static void
decode_collector(const PtxInst *in, TcMmaForm *d)
{
	static const PtxQual a_ops[4] = {
		PQ_COLLECTOR_A_DISCARD, PQ_COLLECTOR_A_FILL, PQ_COLLECTOR_A_USE,
		PQ_COLLECTOR_A_LASTUSE};
	static const PtxQual b_ops[4][4] = {
		{PQ_COLLECTOR_B0_DISCARD, PQ_COLLECTOR_B0_FILL,
		 PQ_COLLECTOR_B0_USE, PQ_COLLECTOR_B0_LASTUSE},
		{PQ_COLLECTOR_B1_DISCARD, PQ_COLLECTOR_B1_FILL,
		 PQ_COLLECTOR_B1_USE, PQ_COLLECTOR_B1_LASTUSE},
		{PQ_COLLECTOR_B2_DISCARD, PQ_COLLECTOR_B2_FILL,
		 PQ_COLLECTOR_B2_USE, PQ_COLLECTOR_B2_LASTUSE},
		{PQ_COLLECTOR_B3_DISCARD, PQ_COLLECTOR_B3_FILL,
		 PQ_COLLECTOR_B3_USE, PQ_COLLECTOR_B3_LASTUSE}};
	d->coll = d->ws ? 0 : 4;
	d->coll_op = COLL_DISCARD;
	for (int op = 0; op < 4; op++) {
		if (!d->ws && ptx_has(in, a_ops[op]))
			d->coll_op = op;
		for (int b = 0; b < 4 && d->ws; b++)
			if (ptx_has(in, b_ops[b][op])) {
				d->coll = b;
				d->coll_op = op;
			}
	}
}

/* Scales per row and MMA from .scale_vec / .blockN (PTX Tables 54-55):
 * mxf8f6f4 1 (default block32), mxf4 2 (default block32), mxf4nvf4 2
 * (block32, UE8M0) or 4 (block16), which it must state; 0 and d->err
 * when the combination has none. */
static uint32_t
scale_vec(const PtxInst *in, TcMmaForm *d)
{
	bool v1 = ptx_has(in, PQ_SCALE_VEC_1X), v2 = ptx_has(in, PQ_SCALE_VEC_2X);
	bool v4 = ptx_has(in, PQ_SCALE_VEC_4X), b16 = ptx_has(in, PQ_BLOCK16);
	bool b32 = ptx_has(in, PQ_BLOCK32);
	int kind = d->kind;
	if (v1 + v2 + v4 + b16 + b32 > 1)
		d->err = "two scale vector sizes";
	else if (kind == K_MXF8F6F4 && !v2 && !v4 && !b16)
		return 1;
	else if (kind == K_MXF4 && !v1 && !v4 && !b16)
		return 2;
	else if (kind == K_MXF4NVF4 && (v2 || b32))
		return 2;
	else if (kind == K_MXF4NVF4 && (v4 || b16))
		return 4;
	else
		d->err = "no valid scale vector size for the kind (PTX Table 54)";
	return 0;
}

void
decode_tc_mma(Arena *a, Insn *in)
{
	if (in->op != PTXMN_TCGEN05_MMA)
		return;
	const PtxInst *q = in->sel;
	TcMmaForm *d = NEW(a, TcMmaForm);
	memset(d, 0, sizeof(*d));
	in->aux = d;
	d->pair = ptx_has(q, PQ_CTA_GROUP_2);
	d->ws = ptx_has(q, PQ_WS);
	decode_collector(q, d);
	d->kind = -1;
	for (int i = 0; i < NKIND; i++)
		if (ptx_has(q, kind_quals[i]))
			d->kind = d->kind < 0 ? i : NKIND;
	if (d->kind < 0 || d->kind == NKIND) {
		d->err = d->kind < 0 ? ".kind expected" : "two .kind qualifiers";
		return;
	}
	const KindInfo *ki = &kinds[d->kind];
	if (d->pair == ptx_has(q, PQ_CTA_GROUP_1) ||
	    ki->scaled != ptx_has(q, PQ_BLOCK_SCALE) ||
	    (d->ws && (d->pair || ki->scaled)) || in->nop < 5 ||
	    in->o[0].kind != K_ADDR)
		d->err = "malformed (one .cta_group; .block_scale exactly for "
			 "the mx kinds; .ws only on one CTA, dense)";
	else if (ki->scaled)
		d->nsf = scale_vec(q, d);
	else if (ptx_has(q, PQ_SCALE_VEC_1X) || ptx_has(q, PQ_SCALE_VEC_2X) ||
		 ptx_has(q, PQ_SCALE_VEC_4X) || ptx_has(q, PQ_BLOCK16) ||
		 ptx_has(q, PQ_BLOCK32))
		d->err = "a scale vector size without .block_scale";
}

static bool
n_ok(const Mma *m)
{
	uint32_t n = m->n;
	bool i8 = m->kind == K_I8;
	if (m->ws)
		return n == 64 || n == 128 || n == 256;
	if (m->pair)
		return n >= 16 && n <= 256 && n % (i8 ? 32 : 16) == 0;
	return n >= 8 && n <= 256 && n % 8 == 0 && (!i8 || n <= 32 || n % 16 == 0);
}

static bool
m_ok(const Mma *m)
{
	if (m->ws)
		return m->m == 32 || m->m == 64 || m->m == 128;
	if (m->pair)
		return m->m == 128 || m->m == 256;
	return m->m == 128 || (m->m == 64 && !m->ki->scaled);
}

/* The instruction descriptor (PTX Tables 42-44). */
static void
parse_idesc(Run *r, Thread *t, const Insn *in, Mma *m, uint32_t id)
{
	const KindInfo *ki = m->ki;
	uint32_t fa = id >> 7 & 7, fb = id >> 10 & 7;
	m->a.el = (El)ki->fmt[fa];
	m->b.el = (El)ki->fmt[fb];
	m->a.neg = id >> 13 & 1;
	m->b.neg = id >> 14 & 1;
	m->a.mn = id >> 15 & 1;
	m->b.mn = id >> 16 & 1;
	m->n = (id >> 17 & 63) << 3;
	bool ok;
	if (ki->scaled) {
		m->sfb = id >> 4 & 3;
		m->sfa = id >> 29 & 3;
		m->ue8m0 = id >> 23 & 1;
		m->m = (id >> 27 & 3) << 7;
		m->dfmt = 1;
		uint32_t step = m->nsf == 4 ? 4 : m->nsf; /* ID alignment */
		ok = !(id & 0xf) && !(id & 1u << 6) && !(id & 7u << 24) &&
		     !(id >> 31) && m->sfa % step == 0 && m->sfb % step == 0 &&
		     (m->ue8m0 || (m->kind == K_MXF4NVF4 && m->nsf == 4)) &&
		     (!ki->packed || (!m->a.mn && !m->b.mn));
	} else {
		m->dfmt = id >> 4 & 3;
		m->sat = id >> 3 & 1;
		m->m = (id >> 24 & 31) << 4;
		uint32_t maxshift = id >> 30;
		bool i8 = m->kind == K_I8;
		ok = !(id & 7) && (!m->sat || i8) && !(id & 1u << 6) &&
		     !(id & 1u << 23) && !(id & 1u << 29) && (!maxshift || m->ws) &&
		     (i8 ? m->dfmt == 2 && !m->a.neg && !m->b.neg
		      : m->kind == K_TF32 ? m->dfmt == 1
		      : m->kind == K_F16 ? (m->dfmt == 1 || (m->dfmt == 0 &&
					    m->a.el == EL_F16)) && fa == fb
		      : m->dfmt <= 1);
	}
	if (!ok || m->a.el == EL_NONE || m->b.el == EL_NONE || !m_ok(m) ||
	    !n_ok(m))
		MMA_FAIL("instruction descriptor 0x%08x is not valid for %s%s "
			 "with M %u N %u (PTX Tables 42-44, 54-55)", id, ki->tok,
			 m->ws ? ".ws" : m->pair ? ".cta_group::2" : "", m->m,
			 m->n);
}

/* A shared-memory operand's descriptor, checked against its major-ness:
 * MN-major needs 8-bit or wider elements; tf32 MN-major exactly the
 * 128B_BASE32B swizzle, which nothing else may use (PTX §9.7.16.10.1);
 * 8-bit MN-major B N in steps of 16 (a pair: 32) (Table 50). */
static void
opd_desc(Run *r, Thread *t, const Insn *in, const Mma *m, Opd *o, bool is_b,
	 uint64_t d)
{
	o->d = smem_desc(r, t, in, d);
	bool tf32 = o->el == EL_TF32;
	if ((o->mn && el_bits[o->el] < 8) || o->d.atom32 != (tf32 && o->mn) ||
	    (is_b && o->mn && el_bits[o->el] == 8 &&
	     m->n % (m->pair ? 32 : 16) != 0))
		MMA_FAIL("descriptor 0x%016llx cannot hold this %s-major %u-bit "
			 "operand (PTX §9.7.16.10.1, Table 50)",
			 (unsigned long long)d, o->mn ? "MN" : "K",
			 el_bits[o->el]);
}

/* The operands after idesc, by form; the index of enable-input-d. */
static unsigned
parse_tail(Run *r, Cta *c, Thread *t, const Insn *in, Mma *m)
{
	unsigned ei;
	if (m->ki->scaled) {
		/* [d], a, b, idesc, [scale-A], [scale-B], enable-input-d */
		if (in->nop != 7 || in->o[4].kind != K_ADDR ||
		    in->o[5].kind != K_ADDR)
			MMA_FAIL("malformed (.block_scale: [d], a, b, idesc, "
				 "[scale-A], [scale-B], enable-input-d)");
		m->tsa = (uint32_t)emu_addr(r, c, t, &in->o[4]);
		m->tsb = (uint32_t)emu_addr(r, c, t, &in->o[5]);
		/* bits [31:30] of a scale address: the byte select CUTLASS
		 * also puts there; it must agree with the ID */
		if ((m->tsa >> 30 && m->tsa >> 30 != m->sfa) ||
		    (m->tsb >> 30 && m->tsb >> 30 != m->sfb))
			MMA_FAIL("scale address byte select (bits 31:30) differs "
				 "from the scale-factor ID of the descriptor");
		m->tsa &= 0x3fffffffu;
		m->tsb &= 0x3fffffffu;
		ei = 6;
	} else if (m->ws) {
		/* [d], a, b, idesc, enable-input-d {, zero-column-mask} */
		if (in->nop < 5 || in->nop > 6)
			MMA_FAIL("malformed (.ws: [d], a, b, idesc, "
				 "enable-input-d {, zero-column-mask})");
		m->zcm = in->nop == 6 ? opnd_get(r, c, t, &in->o[5]) : 0;
		ei = 4;
	} else {
		/* [d], a, b, idesc {, disable-output-lane}, enable-input-d
		 * {, scale-input-d}; the mask: 4 words (a pair: 8, CTA v's
		 * lanes in words 4v..4v+3) */
		ei = 4;
		unsigned nmask = m->pair ? 8 : 4;
		if (in->nop > 4 && in->o[4].kind == K_VEC) {
			if (in->o[4].n != nmask)
				MMA_FAIL("disable-output-lane takes %u registers",
					 nmask);
			for (unsigned v = 0; v < nmask; v++)
				m->disable[v] = (uint32_t)opnd_get(r, c, t,
					vec_elem(r, &in->o[4], v));
			ei = 5;
		}
		if (in->nop < ei + 1 || in->nop > ei + 2)
			MMA_FAIL("malformed operands");
		if (in->nop == ei + 2) {
			uint64_t s = opnd_get(r, c, t, &in->o[ei + 1]);
			if (s > 15 || (m->kind != K_F16 && m->kind != K_TF32))
				MMA_FAIL("scale-input-d %llu (0..15, f16/tf32 "
					 "only)", (unsigned long long)s);
			m->scale_d = (uint32_t)s;
		}
	}
	return ei;
}

static void
parse_operands(Run *r, Cta *c, Thread *t, const Insn *in, Mma *m)
{
	uint32_t id = (uint32_t)opnd_get(r, c, t, &in->o[3]);
	parse_idesc(r, t, in, m, id);
	m->ncta = m->pair ? 2 : 1;
	m->mloc = m->m / m->ncta;
	m->nloc = m->n / m->ncta;
	m->base = m->pair ? c->rank & ~1u : c->rank;
	m->ta = (uint32_t)emu_addr(r, c, t, &in->o[0]);
	m->a.tmem = in->o[1].kind == K_ADDR;
	if (m->a.tmem) {
		/* A in TMEM: row m at lane m - with .ws M 64/32 one copy per
		 * part of N, mloc lanes apart (the bank axis), each part's
		 * data path reading its own; K-major, not the packed FP4 */
		if ((m->mloc != 128 && !m->ws) || m->a.mn || m->ki->packed)
			MMA_FAIL("A in TMEM is modelled for 128 rows per CTA "
				 "or .ws, K-major, not .kind::mxf4/mxf4nvf4");
		m->a.ta = (uint32_t)emu_addr(r, c, t, &in->o[1]);
	} else {
		opd_desc(r, t, in, m, &m->a, false,
			 opnd_get(r, c, t, &in->o[1]));
	}
	opd_desc(r, t, in, m, &m->b, true, opnd_get(r, c, t, &in->o[2]));
	m->acc = opnd_get(r, c, t, &in->o[parse_tail(r, c, t, in, m)]) != 0;
}

/* ---- the computation ---- */

/* TMEM lane and column offsets of D[i][j] (i a row of this CTA). */
static void
d_at(const Mma *m, uint32_t i, uint32_t j, uint32_t *lane, uint32_t *col)
{
	uint32_t parts = m->ws ? 128 / m->mloc
			 : m->pair && m->mloc == 64 ? 2 : 1;
	uint32_t np = m->n / parts;
	if (!m->ws && !m->pair && m->mloc == 64) {
		*lane = 32 * (i / 16) + i % 16; /* Layout F */
		*col = j;
		return;
	}
	*lane = i + (128 / parts) * (j / np); /* Layouts A, B, D, E, G */
	*col = j % np;
}

/* Bit j of the .ws zero-column mask (PTX §9.7.16.4.3): one sub-mask per
 * 128/M part of N; sub-mask s starts sc_s positions into a pattern of
 * alternating runs that begins with the value fs_s, runs of ones (B
 * column replaced by zeros) Skip Span + 1 long and of zeros Use Span + 1
 * long - the run lengths of the ISA's worked examples. */
static bool
zero_column(const Mma *m, uint32_t j)
{
	uint64_t z = m->zcm;
	if (!(z >> 39 & 1))
		return false;
	uint32_t parts = 128 / m->mloc, s = j / (m->n / parts);
	uint32_t q = j % (m->n / parts) + (uint32_t)(z >> 8 * s & 0xff);
	uint32_t ones = (uint32_t)(z >> 40 & 0xff) + 1;
	uint32_t zeros = (uint32_t)(z >> 48 & 0xff) + 1;
	bool fs = z >> (32 + s) & 1;
	q %= ones + zeros;
	return fs ? q < ones : q >= zeros;
}

static double
scale_value(Run *r, Thread *t, const Insn *in, uint32_t v, bool ue8m0)
{
	if (ue8m0)
		return v == 255 ? NAN : ldexp(1.0, (int)v - 127);
	if (v & 0x80)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "UE4M3 scale 0x%02x has its unused top bit set", v);
	return emu_e4m3_to_double(v); /* UE4M3: e4m3 without the sign */
}

/* Scale b of row i (A) or column j (B) read by the data path of D lane
 * dl (sub-partition dl / 32 reads its own replica, PTX §9.7.16.10.7):
 * lane 32 (dl / 32) + row % 32, column + row / 32, byte id + b. */
static double
scale_of(Run *r, Cta *cv, Thread *t, const Insn *in, const Mma *m,
	 uint32_t taddr, uint32_t id, uint32_t row, uint32_t b, uint32_t dl)
{
	uint32_t cell = *tmem_cell(r, cv, t, in,
				   (taddr >> 16) + 32 * (dl / 32) + row % 32,
				   (taddr & 0xffff) + row / 32, false);
	return scale_value(r, t, in, cell >> 8 * (id + b) & 0xff, m->ue8m0);
}

/* The operand through its collector buffer: fill stores what was read,
 * use/lastuse read the buffer (which must hold a fill of the same kind,
 * format and shape), discard/lastuse end its validity. */
static double *
collect(Run *r, Cta *c, Thread *t, const Insn *in, const Mma *m,
	const Opd *o, uint32_t rows, uint32_t per, uint32_t shift, int slot)
{
	if (!c->coll)
		c->coll = NEWN(r->arena, Collector, 5);
	Collector *b = &c->coll[m->coll];
	double *v;
	if (m->coll_op == COLL_USE || m->coll_op == COLL_LASTUSE) {
		if (!b->valid || b->kind != m->kind || b->el != o->el ||
		    b->rows != rows || b->k != m->k)
			emu_fail(r, PT_E_EMU_COLLECTOR, t, in,
				 "collector buffer %s%d holds no valid fill for "
				 "this %s operand (%u x %u)",
				 m->coll == 4 ? "a" : "b", m->coll == 4 ? 0 : m->coll,
				 kinds[m->kind].tok, rows, m->k);
		v = b->v;
	} else {
		v = scratch(r, slot, (size_t)rows * m->k);
		opd_load(r, t, in, m, o, rows, per, shift, v);
	}
	b->valid = m->coll_op == COLL_FILL || m->coll_op == COLL_USE;
	if (m->coll_op == COLL_FILL) {
		b->v = NEWN(r->arena, double, (size_t)rows * m->k);
		memcpy(b->v, v, (size_t)rows * m->k * sizeof(double));
		b->rows = rows;
		b->k = m->k;
		b->kind = m->kind;
		b->el = o->el;
	}
	return v;
}

/* A's rows; with .ws and A in TMEM each of the 128 / M copies (lanes
 * mloc p..), one after the other. */
static double *
a_load(Run *r, Thread *t, const Insn *in, const Mma *m)
{
	uint32_t copies = m->ws && m->a.tmem ? 128 / m->mloc : 1;
	size_t n = (size_t)m->m * m->k;
	double *av = scratch(r, 0, copies * n);
	for (uint32_t p = 0; p < copies; p++)
		opd_load(r, t, in, m, &m->a, m->m, m->mloc, p * m->mloc,
			 av + p * n);
	return av;
}

static void
mma_store(const Mma *m, uint32_t *cell, double s)
{
	if (m->dfmt == 2) {
		if (m->acc)
			s += (double)(int32_t)*cell;
		if (m->sat)
			s = s > 2147483647.0 ? 2147483647.0
			    : s < -2147483648.0 ? -2147483648.0 : s;
		*cell = (uint32_t)(uint64_t)(int64_t)s;
		return;
	}
	if (m->acc) {
		float f;
		memcpy(&f, cell, 4);
		double d = m->dfmt == 1 ? (double)f
			   : emu_small_to_double(*cell & 0xffff, 5, 10);
		s += ldexp(d, -(int)m->scale_d);
	}
	*cell = m->dfmt == 1 ? emu_round_small(s, RND_RN, 8, 23)
			     : emu_round_small(s, RND_RN, 5, 10);
}

static void
mma_compute(Run *r, Cta *c, Thread *t, const Insn *in, const Mma *m)
{
	uint32_t shift = m->ws ? (uint32_t)(m->zcm >> 56 & 63) : 0;
	if (shift > (m->mloc == 32 ? 16u : 32u))
		MMA_FAIL("zero-column mask column shift %u is over the maximum",
			 shift);
	double *av = !m->ws ? collect(r, c, t, in, m, &m->a, m->m, m->mloc, 0, 0)
			   : a_load(r, t, in, m);
	double *bv = scratch(r, 1, (size_t)m->n * m->k);
	if (m->ws) /* the collector is B's */
		bv = collect(r, c, t, in, m, &m->b, m->n, m->nloc, shift, 1);
	else
		opd_load(r, t, in, m, &m->b, m->n, m->nloc, 0, bv);
	double sa = m->a.neg ? -1 : 1, sb = m->b.neg ? -1 : 1;
	uint32_t blk = m->nsf ? m->k / m->nsf : m->k;
	for (uint32_t v = 0; v < m->ncta; v++) {
		Cta *cv = cta_of_rank(r, t, in, m->base + v);
		for (uint32_t i = 0; i < m->mloc; i++) {
			for (uint32_t j = 0; j < m->n; j++) {
				uint32_t lane, col;
				d_at(m, i, j, &lane, &col);
				uint32_t copy = m->ws && m->a.tmem ? lane / m->mloc : 0;
				const double *a = av + ((size_t)copy * m->m +
							m->mloc * v + i) * m->k;
				lane += m->ta >> 16;
				if (m->disable[4 * v + (lane % 128) / 32] &
				    1u << (lane % 32))
					continue;
				uint32_t *cell = tmem_cell(r, cv, t, in, lane,
					(m->ta & 0xffff) + col, false);
				double s = 0;
				const double *b = bv + (size_t)j * m->k;
				bool zero = m->ws && zero_column(m, j);
				for (uint32_t q = 0; q < m->k && !zero; q += blk) {
					double p = 0;
					for (uint32_t k = q; k < q + blk; k++)
						p += a[k] * b[k];
					if (m->nsf)
						p *= scale_of(r, cv, t, in, m, m->tsa,
							      m->sfa, i, q / blk,
							      lane - (m->ta >> 16)) *
						     scale_of(r, cv, t, in, m, m->tsb,
							      m->sfb, j, q / blk,
							      lane - (m->ta >> 16));
					s += p;
				}
				mma_store(m, cell, s * sa * sb);
			}
		}
	}
}

void
exec_tc_mma(Run *r, Cta *c, Thread *t, const Insn *in)
{
	Mma m;
	memset(&m, 0, sizeof(m));
	const TcMmaForm *d = in->aux;
	if (d->err)
		MMA_FAIL("%s", d->err);
	m.pair = d->pair;
	m.ws = d->ws;
	m.coll = d->coll;
	m.coll_op = d->coll_op;
	m.kind = d->kind;
	m.ki = &kinds[m.kind];
	m.nsf = d->nsf;
	m.k = m.ki->k;
	parse_operands(r, c, t, in, &m);
	mma_compute(r, c, t, in, &m);
}
