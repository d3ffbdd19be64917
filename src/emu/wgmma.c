/*
 * wgmma.c - warpgroup MMA (PTX §9.7.15: wgmma.fence, commit_group,
 * wait_group, mma_async) and setmaxnreg (its own family, SETMAXNREG),
 * sm_90a.
 *
 * wgmma.mma_async is collective over a warpgroup (four warps), but its
 * result splits by warp: warp w of the warpgroup (warp id % 4) owns rows
 * 16w..16w+15 of the 64-row D and, when A is in registers, holds the same
 * rows of A.  So it runs here per warp, like the other .sync.aligned
 * instructions, each warp computing its 16 rows.  Fragment maps for lane l
 * (g = l / 4, q = l % 4), element v of the thread's fragment, rows
 * relative to 16w (the ISA's wgmma fragment figures, §9.7.15.5.1):
 *   D (f32/s32: register v; f16: register v/2, low half for even v)
 *            row g + 8 ((v / 2) % 2), column 8 (v / 4) + 2q + v % 2
 *   A .f16/.bf16 (register v/2, low half first)
 *            row g + 8 ((v / 2) % 2), k 8 (v / 4) + 2q + v % 2
 *   A .e4m3/.e5m2/.s8/.u8 (register v/4, lowest byte first)
 *            row g + 8 ((v / 4) % 2), k 16 (v / 8) + 4q + v % 4
 *   A .tf32  (register v)  row g + 8 (v % 2), k 4 (v / 2) + q
 * Shared-memory operands go through the sm_90 matrix descriptor (start,
 * LBO, SBO in 16-byte units at bits 0, 16, 32; base offset at 49; layout
 * at 62: 0 interleave, 1 128B, 2 64B, 3 32B swizzle) and the canonical
 * layouts of §9.7.15.5.1.2 (T = 16 / element size elements per 16 bytes,
 * W the swizzle width):
 *   K-major   none: (mn % 8) 16 + (mn / 8) SBO + (kb / 16) LBO + kb % 16
 *             W:    (mn % 8) W + (mn / 8) SBO + kb           (kb = k bytes)
 *   MN-major  none: (mn % T) e + (mn / T) SBO + (k % 8) 16 + (k / 8) LBO
 *             W:    (mn % T) e + ((mn / T) % (W/16)) 16 + (mn / (T W/16)) LBO
 *                   + (k % 8) W + (k / 8) SBO
 * added to the start address, then (swizzled) 16-byte chunk bits [4, 7)
 * XOR address bits [7, 10) masked to the width.  Base offsets other than
 * 0 are not modelled (an error).  Each D element is one exact sum in
 * double rounded once (integers: exact, wrapped or .satfinite-clamped).
 *
 * Completion: without late mode an mma_async is done at issue; with it,
 * it is a pending operation of the warp's current wgmma-group, performed
 * (shared memory and the D registers read then) at the wait_group that
 * covers it or when nothing else can move; a write to its A or B shared
 * memory before then is EMU_ASYNC.  The A registers are read at issue.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emu/emu.h"
#include "emu/emu_async.h"

typedef enum WgFmt {
	WF_F16, WF_BF16, WF_TF32, WF_E4M3, WF_E5M2, WF_S8, WF_U8, WF_F32,
	WF_S32, WF_NONE
} WgFmt;

typedef struct WgDesc {
	uint32_t start, lbo, sbo;
	uint32_t swz;   /* swizzle width in bytes, 0 interleave */
	bool mn_major;
} WgDesc;

typedef struct WgOp {
	Cta *c;
	Thread *lanes[32];
	const Insn *in;
	uint32_t n, k, wr;       /* N, K, warp rank in the warpgroup */
	int dfmt, afmt, bfmt;
	bool a_regs, acc, satf;
	int sa, sb;              /* imm-scale-a/b: 1 or -1 */
	WgDesc da, db;
	uint32_t areg[32][4];    /* A registers, read at issue */
} WgOp;

double
emu_e4m3_to_double(uint32_t bits)
{
	/* e4m3fn: bias 7, no infinities, S.1111.111 is NaN */
	uint32_t e = (bits >> 3) & 15, m = bits & 7;
	double v = e == 15 && m == 7 ? NAN
		   : e == 0 ? ldexp((double)m, -9)
			    : ldexp((double)(8 | m), (int)e - 10);
	return (bits & 0x80) ? -v : v;
}

static unsigned
fmt_bytes(int f)
{
	return f <= WF_BF16 ? 2 : f == WF_TF32 || f >= WF_F32 ? 4 : 1;
}

static double
elem_value(int f, uint32_t v)
{
	switch (f) {
	case WF_F16: return emu_small_to_double(v & 0xffff, 5, 10);
	case WF_BF16: return emu_small_to_double(v & 0xffff, 8, 7);
	case WF_TF32: {
		float x; /* an f32 image whose low 13 mantissa bits are ignored */
		v &= ~0x1fffu;
		memcpy(&x, &v, 4);
		return x;
	}
	case WF_E4M3: return emu_e4m3_to_double(v & 0xff);
	case WF_E5M2: return emu_small_to_double(v & 0xff, 5, 2);
	case WF_S8: return (double)(int8_t)(v & 0xff);
	default: return (double)(v & 0xff);
	}
}

static WgDesc
wg_desc(Run *r, Thread *t, const Insn *in, uint64_t d, bool mn_major)
{
	WgDesc s;
	s.start = (uint32_t)(d & 0x3fff) << 4;
	s.lbo = (uint32_t)((d >> 16) & 0x3fff) << 4;
	s.sbo = (uint32_t)((d >> 32) & 0x3fff) << 4;
	static const uint32_t widths[] = {0, 128, 64, 32};
	s.swz = widths[d >> 62];
	s.mn_major = mn_major;
	if ((d >> 49) & 7)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "matrix descriptor 0x%016llx: base offset %u is not "
			 "modelled", (unsigned long long)d,
			 (unsigned)((d >> 49) & 7));
	return s;
}

/* CTA-relative shared address of element (mn, k) of esize bytes. */
static uint32_t
wg_addr(const WgDesc *s, uint32_t mn, uint32_t k, unsigned esize)
{
	uint32_t a = s->start, w = s->swz;
	if (!s->mn_major) {
		uint32_t kb = k * esize;
		if (!w)
			return a + (mn % 8) * 16 + (mn / 8) * s->sbo +
			       (kb / 16) * s->lbo + kb % 16;
		a += (mn % 8) * w + (mn / 8) * s->sbo + kb;
	} else {
		uint32_t tn = 16 / esize;
		if (!w)
			return a + (mn % tn) * esize + (mn / tn) * s->sbo +
			       (k % 8) * 16 + (k / 8) * s->lbo;
		uint32_t chunks = w / 16;
		a += (mn % tn) * esize + ((mn / tn) % chunks) * 16 +
		     (mn / (tn * chunks)) * s->lbo + (k % 8) * w +
		     (k / 8) * s->sbo;
	}
	uint32_t bits = w / 16 - 1;
	return a ^ (((a >> 7) & bits) << 4);
}

static uint32_t
wg_load(Run *r, Cta *c, Thread *t, const Insn *in, uint32_t a, unsigned n)
{
	uint8_t *p = emu_smem(r, t, in, (c->rank << SMEM_RANK_SHIFT) | a, n,
			      NULL);
	return (uint32_t)emu_load_le(p, n);
}

/* Host bytes spanning every element an operand reads (rows x k), for
 * the late-completion write guard and the check against pending copies. */
static uint8_t *
wg_span(Run *r, WgOp *op, const WgDesc *s, uint32_t rows, unsigned esize,
	uint64_t *n)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	for (uint32_t mn = 0; mn < rows; mn++)
		for (uint32_t k = 0; k < op->k; k++) {
			uint32_t a = wg_addr(s, mn, k, esize);
			lo = a < lo ? a : lo;
			hi = a + esize > hi ? a + esize : hi;
		}
	*n = hi - lo;
	return emu_smem(r, op->lanes[0], op->in,
			(op->c->rank << SMEM_RANK_SHIFT) | lo, *n, NULL);
}

/* Element v of the A fragment: (row within the warp's 16, k). */
static void
a_frag(int f, uint32_t l, uint32_t v, uint32_t *row, uint32_t *k)
{
	uint32_t g = l / 4, q = l % 4;
	if (f <= WF_BF16) {
		*row = g + 8 * ((v / 2) % 2);
		*k = 8 * (v / 4) + 2 * q + v % 2;
	} else if (f == WF_TF32) {
		*row = g + 8 * (v % 2);
		*k = 4 * (v / 2) + q;
	} else {
		*row = g + 8 * ((v / 4) % 2);
		*k = 16 * (v / 8) + 4 * q + v % 4;
	}
}

static void
wg_perform(Run *r, WgOp *op)
{
	Thread *t0 = op->lanes[0];
	const Insn *in = op->in;
	unsigned ea = fmt_bytes(op->afmt), eb = fmt_bytes(op->bfmt);
	double a[16][32];
	if (op->a_regs) {
		unsigned per = 4 / ea;
		for (uint32_t l = 0; l < 32; l++)
			for (uint32_t v = 0; v < 4 * per; v++) {
				uint32_t row, k;
				a_frag(op->afmt, l, v, &row, &k);
				uint32_t w = op->areg[l][v / per] >>
					     (8 * ea * (v % per));
				a[row][k] = op->sa * elem_value(op->afmt, w);
			}
	} else {
		for (uint32_t i = 0; i < 16; i++)
			for (uint32_t k = 0; k < op->k; k++)
				a[i][k] = op->sa * elem_value(op->afmt,
					wg_load(r, op->c, t0, in,
						wg_addr(&op->da, 16 * op->wr + i,
							k, ea), ea));
	}
	double *b = NEWN(r->arena, double, (size_t)op->n * op->k);
	for (uint32_t j = 0; j < op->n; j++)
		for (uint32_t k = 0; k < op->k; k++)
			b[j * op->k + k] = op->sb * elem_value(op->bfmt,
				wg_load(r, op->c, t0, in,
					wg_addr(&op->db, j, k, eb), eb));
	const Opnd *dv = &in->o[0];
	bool f16 = op->dfmt == WF_F16;
	for (uint32_t l = 0; l < 32; l++) {
		Thread *t = op->lanes[l];
		for (uint32_t v = 0; v < op->n / 2; v++) {
			uint32_t row = l / 4 + 8 * ((v / 2) % 2);
			uint32_t col = 8 * (v / 4) + 2 * (l % 4) + v % 2;
			const Opnd *o = vec_elem(r, dv, f16 ? v / 2 : v);
			uint32_t old = (uint32_t)opnd_get(r, op->c, t, o);
			unsigned sh = f16 ? 16 * (v % 2) : 0;
			/* +0 plus the products: a zero sum is +0 */
			double s = 0;
			for (uint32_t k = 0; k < op->k; k++)
				s += a[row][k] * b[col * op->k + k];
			uint32_t res;
			if (op->dfmt == WF_S32) {
				int64_t d = (int64_t)s + (op->acc ? (int32_t)old : 0);
				if (op->satf)
					d = d > INT32_MAX ? INT32_MAX
					    : d < INT32_MIN ? INT32_MIN : d;
				res = (uint32_t)d;
			} else if (f16) {
				if (op->acc)
					s += emu_small_to_double((old >> sh) & 0xffff,
								 5, 10);
				res = emu_round_small(s, RND_RN, 5, 10) << sh |
				      (old & (0xffff0000u >> sh));
			} else {
				float x;
				memcpy(&x, &old, 4);
				if (op->acc)
					s += x;
				res = emu_round_small(s, RND_RN, 8, 23);
			}
			reg_set(t, o, res, PTY_B32);
		}
	}
}

static void
wg_pending_perform(Run *r, Pending *p)
{
	wg_perform(r, p->data);
}

/* The operand format of a type of the selected spelling (WF_NONE: not
 * one wgmma takes). */
static int
fmt_of(PtxType t)
{
	switch (t) {
	case PTY_F16: return WF_F16;
	case PTY_BF16: return WF_BF16;
	case PTY_TF32: return WF_TF32;
	case PTY_E4M3: return WF_E4M3;
	case PTY_E5M2: return WF_E5M2;
	case PTY_S8: return WF_S8;
	case PTY_U8: return WF_U8;
	case PTY_F32: return WF_F32;
	case PTY_S32: return WF_S32;
	default: return WF_NONE;
	}
}

/* wgmma.mma_async's decoded form (Insn.aux), from decode_wgmma. */
typedef struct WgForm {
	uint32_t n, k;
	int dfmt, afmt, bfmt;
	bool satf;
	bool ok; /* a shape and type combination of the ISA's table */
} WgForm;

/* At load: the shape is the selected form's (.m64nNkK); the formats
 * (.dtype.atype.btype, untagged groups in the form rows) are read from
 * the spelling's dot-parts, once. */
void
decode_wgmma(Arena *a, Insn *in)
{
	if (in->op != PTXMN_WGMMA_MMA_ASYNC)
		return;
	WgForm *op = NEW(a, WgForm);
	memset(op, 0, sizeof(*op));
	in->aux = op;
	int fmts[3], nf = 0;
	for (int i = 0; i < in->sel->ntypes; i++) {
		if (nf == 3)
			return;
		if ((fmts[nf++] = fmt_of(in->sel->types[i])) == WF_NONE)
			return;
	}
	op->n = (uint32_t)in->sel->shape_n;
	op->k = (uint32_t)in->sel->shape_k;
	op->satf = ptx_has(in->sel, PQ_SATFINITE);
	if (in->sel->shape_m != 64 || nf != 3)
		return;
	op->dfmt = fmts[0];
	op->afmt = fmts[1];
	op->bfmt = fmts[2];
	int x = op->afmt, y = op->bfmt, d = op->dfmt;
	bool f16 = x <= WF_BF16 && x == y &&
		   (d == WF_F32 || (d == WF_F16 && x == WF_F16));
	bool tf32 = x == WF_TF32 && y == x && d == WF_F32;
	bool f8 = (x == WF_E4M3 || x == WF_E5M2) &&
		  (y == WF_E4M3 || y == WF_E5M2) && (d == WF_F32 || d == WF_F16);
	bool i8 = (x == WF_S8 || x == WF_U8) && (y == WF_S8 || y == WF_U8) &&
		  d == WF_S32;
	if (op->satf && !i8)
		return;
	op->ok = (f16 && op->k == 16) || (tf32 && op->k == 8) ||
		 ((f8 || i8) && op->k == 32);
}

static int
imm_arg(Run *r, Thread *t, const Insn *in, unsigned i, int lo, int hi)
{
	const Opnd *o = &in->o[i];
	int64_t v = o->imm;
	if (o->kind != K_IMM || v < lo || v > hi || (lo == -1 && v == 0))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "operand %u must be an immediate %s", i + 1,
			 lo == -1 ? "1 or -1" : "0 or 1");
	return (int)v;
}

static void
exec_mma_async(Run *r, Cta *c, Thread **lanes, const Insn *in)
{
	Thread *t0 = lanes[0];
	WgOp *op = NEW(r->arena, WgOp);
	op->c = c;
	op->in = in;
	memcpy(op->lanes, lanes, sizeof(op->lanes));
	op->wr = t0->warp % 4;
	op->sa = op->sb = 1;
	const WgForm *form = in->aux;
	if (!form || !form->ok)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
			 "shape or type combination not in the ISA's wgmma "
			 "table");
	op->n = form->n;
	op->k = form->k;
	op->dfmt = form->dfmt;
	op->afmt = form->afmt;
	op->bfmt = form->bfmt;
	op->satf = form->satf;
	op->a_regs = in->nop > 1 && in->o[1].kind == K_VEC;
	bool f16 = op->afmt <= WF_BF16, i8 = op->dfmt == WF_S32;
	/* d, a, b-desc, scale-d {, imm-scale-a, imm-scale-b
	 * {, imm-trans-a}{, imm-trans-b}} */
	unsigned want = i8 ? 4 : f16 ? (op->a_regs ? 7 : 8) : 6;
	unsigned nd = op->dfmt == WF_F16 ? op->n / 4 : op->n / 2;
	if (in->nop != want || in->o[0].kind != K_VEC || in->o[0].n != nd ||
	    (op->a_regs && in->o[1].n != 4))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
			 "malformed: %u operands with %u D registers%s "
			 "expected", want, nd,
			 op->a_regs ? " and 4 A registers" : "");
	bool ta = false, tb = false;
	if (!i8) {
		op->sa = imm_arg(r, t0, in, 4, -1, 1);
		op->sb = imm_arg(r, t0, in, 5, -1, 1);
	}
	if (f16 && !op->a_regs)
		ta = imm_arg(r, t0, in, 6, 0, 1);
	if (f16)
		tb = imm_arg(r, t0, in, want - 1, 0, 1);
	/* the descriptors and scale-d must be warp-uniform */
	uint64_t ad = op->a_regs ? 0 : opnd_get(r, c, t0, &in->o[1]);
	uint64_t bd = opnd_get(r, c, t0, &in->o[2]);
	bool acc = opnd_get(r, c, t0, &in->o[3]) != 0;
	for (uint32_t l = 1; l < 32; l++)
		if ((!op->a_regs && opnd_get(r, c, lanes[l], &in->o[1]) != ad) ||
		    opnd_get(r, c, lanes[l], &in->o[2]) != bd ||
		    (opnd_get(r, c, lanes[l], &in->o[3]) != 0) != acc)
			emu_fail(r, PT_E_EMU_COLLECTIVE, lanes[l], in,
				 "descriptors and scale-d differ between lanes "
				 "0 and %u", l);
	op->acc = acc;
	if (!op->a_regs)
		op->da = wg_desc(r, t0, in, ad, ta);
	op->db = wg_desc(r, t0, in, bd, tb);
	if (op->a_regs)
		for (uint32_t l = 0; l < 32; l++)
			for (unsigned j = 0; j < 4; j++)
				op->areg[l][j] = (uint32_t)opnd_get(r, c, lanes[l],
					vec_elem(r, &in->o[1], j));
	Pending *p = async_new(r, t0, in, PTXMN_WGMMA_COMMIT_GROUP);
	uint64_t n;
	if (!op->a_regs) {
		p->src = wg_span(r, op, &op->da, 64, fmt_bytes(op->afmt), &n);
		p->src_n = n;
		if (r->npend)
			async_check(r, t0, in, p->src, p->src_n, false);
	}
	p->src2 = wg_span(r, op, &op->db, op->n, fmt_bytes(op->bfmt), &n);
	p->src2_n = n;
	if (r->npend)
		async_check(r, t0, in, p->src2, p->src2_n, false);
	p->perform = wg_pending_perform;
	p->data = op;
	async_issue(r, p);
}

/* The first lane of a .sync.aligned instruction, which every lane of
 * the warp must execute. */
static Thread *
aligned_lanes(Run *r, Thread **lanes, uint32_t mask, const Insn *in)
{
	Thread *t0 = lanes[__builtin_ctz(mask)];
	if (mask != 0xffffffffu)
		emu_fail(r, PT_E_EMU_COLLECTIVE, t0, in,
			 ".aligned: every lane of the warp must execute it "
			 "(lanes 0x%08x do)", mask);
	return t0;
}

void
exec_wgmma_warp(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	Thread *t0 = aligned_lanes(r, lanes, mask, in);
	switch (in->op) {
	case PTXMN_WGMMA_FENCE:
		/* orders register accesses before later wgmmas: every
		 * register access here is already in program order */
		return;
	case PTXMN_WGMMA_COMMIT_GROUP:
		for (int l = 0; l < 32; l++)
			(*async_groups(r, lanes[l], in,
				       PTXMN_WGMMA_COMMIT_GROUP))++;
		return;
	case PTXMN_WGMMA_WAIT_GROUP: {
		if (in->nop != 1 || in->o[0].kind != K_IMM || in->o[0].imm < 0 ||
		    in->o[0].imm > 7)
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
				 "wait_group takes an immediate 0..7");
		if (r->npend)
			async_wait_groups(r, lanes[0], PTXMN_WGMMA_COMMIT_GROUP,
					  (uint32_t)in->o[0].imm);
		return;
	}
	case PTXMN_WGMMA_MMA_ASYNC:
		exec_mma_async(r, c, lanes, in);
		return;
	default:
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in, "not modelled");
	}
}

/* setmaxnreg.{inc,dec}.sync.aligned.u32 imm, the SETMAXNREG family's
 * warp executor: the register file is not modelled, only the ISA's
 * range of the count. */
void
exec_setmaxnreg_warp(Run *r, Cta *c, Thread **lanes, uint32_t mask,
		     const Insn *in)
{
	Thread *t0 = aligned_lanes(r, lanes, mask, in);
	bool inc = insn_q(in, PQ_INC);
	if (in->nop != 1 || in->o[0].kind != K_IMM ||
	    (!inc && !insn_q(in, PQ_DEC)))
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in, "malformed");
	int64_t n = in->o[0].imm;
	if (n < 24 || n > 256 || n % 8)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t0, in,
			 "register count %lld is not a multiple of 8 in "
			 "[24, 256]",
			 (long long)n);
}
