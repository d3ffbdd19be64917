/*
 * descriptors.c - shared matrix descriptor extraction and encoding, and
 * the UMMA instruction descriptor (reference "Shared matrix
 * descriptors", "Tensor Core matrix multiply-accumulate"; ptx_facts §1,
 * §2, §5).
 *
 * Input: a descriptor image (descriptors.h): the byte address of every
 * element of one atom.  Output: the mode, unswizzled origin and LDO/SDO
 * whose walk reproduces every address, or the reason none does.  Fields
 * come from fixed boundary coordinates (row 8 / 4, byte 16 / the span);
 * the whole walk is then compared, so a layout that only agrees at the
 * boundaries is rejected.  Unused LDO encodes 16 bytes, unused SDO 0.
 */
#include <stdio.h>
#include <string.h>

#include "tile/descriptors.h"

int64_t
desc_period(DescMode m)
{
	static const int64_t p[DESC_NMODES] = {16, 256, 512, 1024, 512};
	return p[m];
}

int64_t
desc_swizzle(DescMode m, int64_t a)
{
	switch (m) {
	case DESC_SW32: return a ^ (((a >> 7) & 1) << 4);
	case DESC_SW64: return a ^ (((a >> 7) & 3) << 4);
	case DESC_SW128: return a ^ (((a >> 7) & 7) << 4);
	case DESC_SW128_32B: return a ^ ((a >> 2) & 96);
	default: return a;
	}
}

int
desc_layout_code(DescMode m)
{
	static const int code[DESC_NMODES] = {0, 6, 4, 2, 1};
	return code[m];
}

/* Row span W (bytes) and rows per group G of a mode. */
static int64_t
row_span(DescMode m)
{
	return m == DESC_SW128_32B ? 128 : (int64_t)16 << m;
}

static int
group_rows(DescMode m)
{
	return m == DESC_SW128_32B ? 4 : 8;
}

/* Unswizzled offset of byte b of row r from the origin. */
static int64_t
walk(DescWalk w, DescMode m, const SmemDesc *d, int64_t r, int64_t b)
{
	int64_t span = row_span(m), g = group_rows(m);
	if (w == DESC_WALK_K) {
		if (m == DESC_NONE)
			return (r / 8) * d->sbo + (r % 8) * 16 +
			       (b / 16) * d->lbo + b % 16;
		return (r / g) * d->sbo + (r % g) * span + b;
	}
	if (m == DESC_NONE)
		return (r / 8) * d->lbo + (r % 8) * 16 + (b / 16) * d->sbo +
		       b % 16;
	return (r / g) * d->sbo + (r % g) * span + (b / span) * d->lbo +
	       b % span;
}

static int64_t
at(const DescImage *im, int64_t r, int64_t byte)
{
	return im->addr[r * im->cols + byte * 8 / im->elem_bits];
}

static bool
stride_ok(int64_t s)
{
	return s >= 0 && s % 16 == 0 && s < ((int64_t)1 << 18);
}

/* One mode: fields from the boundary coordinates, then the full walk. */
static DescFail
try_mode(const DescImage *im, DescMode m, SmemDesc *d, char *msg, size_t n)
{
	int64_t bytes = im->cols * im->elem_bits / 8;
	int64_t span = row_span(m), g = group_rows(m);
	bool k = im->walk == DESC_WALK_K;
	if (k && m == DESC_SW128_32B) {
		snprintf(msg, n, "mode 4 (128B, 32B atoms) is MN-major only");
		return DESC_F_MODE;
	}
	if (k && m != DESC_NONE && bytes > span) {
		snprintf(msg, n, "a row holds %lld bytes, wider than the "
			 "%lld-byte swizzle span", (long long)bytes,
			 (long long)span);
		return DESC_F_ROW_WIDTH;
	}
	d->mode = m;
	d->start = desc_swizzle(m, at(im, 0, 0));
	if (d->start % 16 != 0) {
		snprintf(msg, n, "origin byte %lld is not 16-byte aligned",
			 (long long)d->start);
		return DESC_F_ORIGIN;
	}
	/* row-group and chunk boundaries; unused: LDO 16, SDO 0 */
	int64_t rg = m == DESC_NONE ? 8 : g;
	int64_t chunk = m == DESC_NONE ? 16 : span;
	bool has_row = im->rows > rg;
	bool has_chunk = bytes > chunk && !(k && m != DESC_NONE);
	int64_t by_row = has_row
		? desc_swizzle(m, at(im, rg, 0)) - d->start : 0;
	int64_t by_chunk = has_chunk
		? desc_swizzle(m, at(im, 0, chunk)) - d->start : 16;
	if (!k && m == DESC_NONE) { /* MN-major interleave: roles swap */
		d->lbo = has_row ? by_row : 16;
		d->sbo = has_chunk ? by_chunk : 0;
	} else {
		d->sbo = by_row;
		d->lbo = by_chunk;
	}
	if (!stride_ok(d->lbo) || !stride_ok(d->sbo)) {
		snprintf(msg, n, "LDO %lld / SDO %lld bytes: strides must be "
			 "nonnegative 16-byte multiples below 2^18",
			 (long long)d->lbo, (long long)d->sbo);
		return DESC_F_STRIDE;
	}
	int64_t eb = im->elem_bits / 8;
	for (int64_t r = 0; r < im->rows; r++)
		for (int64_t b = 0; b < bytes; b += eb) {
			int64_t want = desc_swizzle(m, d->start +
						       walk(im->walk, m, d, r, b));
			int64_t got = at(im, r, b);
			if (got != want) {
				snprintf(msg, n, "row %lld, byte %lld is at "
					 "byte %lld, the descriptor walk puts "
					 "it at %lld", (long long)r,
					 (long long)b, (long long)got,
					 (long long)want);
				return DESC_F_WALK;
			}
		}
	return DESC_OK;
}

static const char *const mode_names[DESC_NMODES] = {
	"none", "32B", "64B", "128B", "128B with 32B atoms",
};

bool
desc_extract(const DescImage *im, const DescMode *modes, int nmodes,
	     SmemDesc *out, DescFail *why, char *msg, size_t msgn)
{
	char first[320] = "no descriptor mode is legal here", tmp[256];
	DescFail f0 = DESC_F_MODE;
	for (int i = 0; i < nmodes; i++) {
		SmemDesc d;
		DescFail f = try_mode(im, modes[i], &d, tmp, sizeof(tmp));
		if (f == DESC_OK) {
			*out = d;
			return true;
		}
		if (i == 0) {
			f0 = f;
			snprintf(first, sizeof(first), "swizzle %s: %s",
				 mode_names[modes[i]], tmp);
		}
	}
	if (why)
		*why = f0;
	if (msg && msgn)
		snprintf(msg, msgn, "%s", first);
	return false;
}

uint64_t
desc_encode(const SmemDesc *d, int64_t start)
{
	uint64_t v = ((uint64_t)start >> 4) & 0x3FFF;
	v |= (((uint64_t)d->lbo >> 4) & 0x3FFF) << 16;
	v |= (((uint64_t)d->sbo >> 4) & 0x3FFF) << 32;
	v |= (uint64_t)1 << 46;
	v |= (uint64_t)desc_layout_code(d->mode) << 61;
	return v;
}

uint64_t
desc_encode_sm90(const SmemDesc *d, int64_t start)
{
	PT_ASSERT(d->mode != DESC_SW128_32B);
	return desc_encode(d, start) & ~((uint64_t)1 << 46);
}

/* ---- instruction descriptor ---- */

uint32_t
desc_idesc(const Idesc *d)
{
	/* bits 7-22 are laid out alike in the dense and block-scaled forms */
	uint32_t v = (uint32_t)(d->a_fmt & 7) << 7;
	v |= (uint32_t)(d->b_fmt & 7) << 10;
	v |= (uint32_t)d->neg_a << 13;
	v |= (uint32_t)d->neg_b << 14;
	v |= (uint32_t)d->a_mn << 15;
	v |= (uint32_t)d->b_mn << 16;
	v |= (uint32_t)((d->n >> 3) & 63) << 17;
	if (d->kind == UMMA_MXF8F6F4 || d->kind == UMMA_MXF4 ||
	    d->kind == UMMA_MXF4NVF4) {
		v |= (uint32_t)(d->b_sf & 3) << 4;
		v |= (uint32_t)(d->scale_type & 1) << 23;
		v |= (uint32_t)((d->m >> 7) & 3) << 27;
		v |= (uint32_t)(d->a_sf & 3) << 29;
		return v;
	}
	v |= (uint32_t)d->sat << 3;
	v |= (uint32_t)(d->d_fmt & 3) << 4;
	v |= (uint32_t)((d->m >> 4) & 31) << 24;
	return v;
}

int
desc_umma_format(UmmaKind k, const char *s)
{
	static const struct {
		UmmaKind k;
		const char *name;
		int code;
	} rows[] = {
		{UMMA_F16, "float16", 0}, {UMMA_F16, "bfloat16", 1},
		{UMMA_TF32, "tf32", 2},
		{UMMA_F8F6F4, "float8_e4m3fn", 0},
		{UMMA_F8F6F4, "float8_e5m2", 1},
		{UMMA_F8F6F4, "float6_e2m3fn", 3},
		{UMMA_F8F6F4, "float6_e3m2fn", 4},
		{UMMA_F8F6F4, "float4_e2m1fn", 5},
		{UMMA_I8, "uint8", 0}, {UMMA_I8, "int8", 1},
		{UMMA_MXF8F6F4, "float8_e4m3fn", 0},
		{UMMA_MXF8F6F4, "float8_e5m2", 1},
		{UMMA_MXF8F6F4, "float6_e2m3fn", 3},
		{UMMA_MXF8F6F4, "float6_e3m2fn", 4},
		{UMMA_MXF8F6F4, "float4_e2m1fn", 5},
		{UMMA_MXF4, "float4_e2m1fn", 1},
		{UMMA_MXF4NVF4, "float4_e2m1fn", 1},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].k == k && strcmp(rows[i].name, s) == 0)
			return rows[i].code;
	return -1;
}

int
desc_umma_k(UmmaKind k)
{
	static const int kk[UMMA_NKINDS] = {16, 8, 32, 32, 32, 64, 64};
	return kk[k];
}

/* PTX Table 39 (dense, no .ws) with the M=128 single-CTA rule: M=64
 * steps N by 8, M=128 by 16 (the N=8/24/... shapes of M=128 are not
 * issued; CUTLASS's SM100 shape lists agree).  A CTA pair (M=128/256
 * total) steps N by 16, i8 by 32.  Block-scaled kinds have no M=64. */
bool
desc_umma_shape_ok(UmmaKind k, int cta_group, int m, int n)
{
	bool mx = k == UMMA_MXF8F6F4 || k == UMMA_MXF4 || k == UMMA_MXF4NVF4;
	if (n < 8 || n > 256)
		return false;
	if (cta_group == 1) {
		if (m == 64 && !mx)
			return k == UMMA_I8 && n > 32 ? n % 16 == 0
						      : n % 8 == 0;
		return m == 128 && n % 16 == 0;
	}
	if (m != 128 && m != 256)
		return false;
	return k == UMMA_I8 ? n % 32 == 0 : n % 16 == 0;
}

/* PTX Table 39, .ws: one CTA, M 32/64/128, N 64/128/256, no
 * block-scaled kind. */
bool
desc_umma_ws_shape_ok(UmmaKind k, int m, int n)
{
	if (k == UMMA_MXF8F6F4 || k == UMMA_MXF4 || k == UMMA_MXF4NVF4)
		return false;
	return (m == 32 || m == 64 || m == 128) &&
	       (n == 64 || n == 128 || n == 256);
}

/* ---- tile operands ---- */

static SwizzleMode const stated_of[] = {SWZ_NONE, SWZ_32B, SWZ_64B, SWZ_128B,
					SWZ_128B_BASE32B};

static int64_t
buffer_align(const Buffer *b)
{
	int64_t el = (dtype_bits(b->dtype) + 7) / 8;
	return b->align > el ? b->align : el;
}

/* The stated mode first (when allowed), then the rest in order. */
static int
mode_order(Ctx *c, TileOperand *op, const DescMode *allowed, int n,
	   DescMode *out)
{
	SwizzleMode s = layout_swizzle_mode(op->view->layout, op->bits);
	if (s == SWZ_OTHER)
		return diag_error(c, PT_E_DESC_SWIZZLE, op->span,
				  "operand %d (%s): its ComposeLayout swizzle is "
				  "none of the descriptor modes (32B, 64B, 128B, "
				  "128B with 32B atoms) for %d-bit elements",
				  op->index, op->root->name, op->bits), -1;
	int k = 0;
	for (int i = 0; i < n; i++)
		if (stated_of[allowed[i]] == s)
			out[k++] = allowed[i];
	if (k == 0)
		return diag_error(c, PT_E_DESC_SWIZZLE, op->span,
				  "operand %d (%s): its layout states a swizzle "
				  "mode this operand's descriptor cannot use "
				  "here (allowed: %s%s)", op->index,
				  op->root->name, mode_names[allowed[0]],
				  n > 1 ? " and the modes after it" : ""), -1;
	for (int i = 0; i < n; i++)
		if (stated_of[allowed[i]] != s)
			out[k++] = allowed[i];
	return k;
}

static int
fail_code(DescFail f)
{
	switch (f) {
	case DESC_F_ORIGIN: return PT_E_DESC_ORIGIN;
	case DESC_F_STRIDE: return PT_E_DESC_STRIDE;
	case DESC_F_MODE: return PT_E_DESC_SWIZZLE;
	default: return PT_E_DESC_WALK;
	}
}

/* m - base when both share their symbolic terms (view_eval_m_lin's
 * results share term arrays), the common case that needs no lin_sub;
 * false otherwise (also on overflow). */
static bool
same_terms(Lin m, Lin base, int64_t *d)
{
	if (m.overflow || base.overflow || m.n != base.n ||
	    __builtin_sub_overflow(m.c0, base.c0, d))
		return false;
	for (int i = 0; i < m.n && m.t != base.t; i++)
		if (m.t[i].sym != base.t[i].sym ||
		    m.t[i].coef != base.t[i].coef)
			return false;
	return true;
}

/* The image of repeat r (x holds its repeat coordinate) as byte
 * offsets from the symbolic origin *sym (set at repeat 0's first
 * element).  With sw (a ComposeLayout) the walk is evaluated before the
 * swizzle, which then permutes the constant offsets as if the origin
 * sat at phase 0; the caller allows only the layout's own mode then.
 * False when an offset is not constant: x then holds that element and
 * *bad its offset. */
static bool
elem_offset(TileEnv *e, ViewEval *ev, const Layout *sw, int64_t *x,
	    int nr, int i, int64_t k, bool rows_axis1, bool first, Lin *sym,
	    int64_t *out, Lin *bad)
{
	x[nr] = rows_axis1 ? k : i;
	x[nr + 1] = rows_axis1 ? i : k;
	Lin m = view_eval_m_lin(ev, x, 0);
	if (first) {
		*sym = m;
		sym->c0 = 0;
	}
	int64_t dc;
	if (!same_terms(m, *sym, &dc)) {
		Lin d = lin_sub(&e->st, m, *sym);
		if (!lin_is_const(d)) {
			*bad = d;
			return false;
		}
		dc = d.c0;
	}
	*out = sw ? layout_swizzle(sw->sw_m, sw->sw_b, sw->sw_s, dc) : dc;
	return true;
}

/* 4-bit elements (packed FP4, two per byte) enter the image as bytes:
 * elements 2j and 2j+1 of a row must share byte j's low and high
 * nibble; *split reports a row that breaks this. */
static bool
image_of(TileEnv *e, ViewEval *v, const Layout *sw, int64_t *x, int nr,
	 int rows, int64_t cols, bool rows_axis1, int64_t bytes, bool nib,
	 bool first, Lin *sym, int64_t *img, Lin *bad, bool *split)
{
	int64_t w = nib ? cols / 2 : cols;
	for (int i = 0; i < rows; i++)
		for (int64_t k = 0; k < w; k++) {
			int64_t m, m1;
			if (!elem_offset(e, v, sw, x, nr, i, nib ? 2 * k : k,
					 rows_axis1, first && i == 0 && k == 0,
					 sym, &m, bad))
				return false;
			if (nib) {
				if (!elem_offset(e, v, sw, x, nr, i, 2 * k + 1,
						 rows_axis1, false, sym, &m1,
						 bad))
					return false;
				if (m % 2 != 0 || m1 != m + 1) {
					*split = true;
					return false;
				}
				m /= 2;
			}
			img[i * w + k] = m * bytes;
		}
	return true;
}

/* A symbolic origin inside the swizzle period (a loop-variable K step
 * within a 128B row) stays an address expression: the walk is taken
 * before the swizzle, which hardware applies to the absolute address.
 * That needs a ComposeLayout whose stated mode is allowed here. */
static const Layout *
phase_layout(const TileOperand *op, const DescMode *order, int norder)
{
	const Layout *l = op->view->layout;
	if (!l || l->kind != LAYOUT_COMPOSE || norder < 1 ||
	    stated_of[order[0]] != layout_swizzle_mode(l, op->bits))
		return NULL;
	return l;
}

/* A symbolic phase must keep the atom's rows inside the first swizzled
 * row of the period: hardware swizzles start + walk with base offset 0,
 * which is the layout's swizzle only while the pattern starts in that
 * row (a K step inside a 128-byte row; ptx_facts §1.4). */
static bool
phase_in_row(TileEnv *e, const TileOperand *op, Lin sb, const SmemDesc *d,
	     int64_t row_bytes)
{
	int64_t span = row_span(d->mode), lo = 0, hi = -1;
	int64_t used = row_bytes < span ? row_bytes : span;
	Lin ph = lin_mod(&e->st, sb, desc_period(d->mode));
	if (lin_bounds(&e->st, ph, &lo, &hi) && lo >= 0 && hi + used <= span)
		return true;
	return diag_error(e->c, PT_E_DESC_SYMBOLIC, op->span,
			  "operand %d (%s): the symbolic origin %s bytes "
			  "lies at phase %s of the %lld-byte swizzle period; "
			  "an origin off the period boundary must keep the "
			  "atom's %lld-byte rows inside the first %lld-byte "
			  "row (phase + %lld <= %lld)", op->index,
			  op->root->name, lin_str(&e->st, sb),
			  lin_str(&e->st, ph),
			  (long long)desc_period(d->mode), (long long)used,
			  (long long)span, (long long)used, (long long)span);
}

bool
tile_desc_operand(TileEnv *e, TileOperand *op, DescWalk walk,
		  bool rows_axis1, const DescMode *allowed, int nallowed,
		  TileDesc *out)
{
	Ctx *c = e->c;
	if (op->scalar || (op->root->scope != MS_SHARED &&
			   op->root->scope != MS_SHARED_DYN))
		return diag_error(c, PT_E_DESC_SPACE, op->span,
				  "operand %d must be a shared-memory tensor "
				  "(a matrix descriptor addresses .shared), "
				  "found %s", op->index,
				  op->scalar ? "a scalar"
					     : memscope_name(op->root->scope));
	/* packed 4-bit operands are walked a byte (two elements) at a time */
	bool nib = op->bits == 4;
	if (op->bits % 8 != 0 && !nib)
		return diag_error(c, PT_E_DESC_WALK, op->span,
				  "operand %d (%s) has %d-bit elements; "
				  "descriptor operands need whole bytes (or "
				  "packed 4-bit pairs)",
				  op->index, op->root->name, op->bits);
	DescMode order[DESC_NMODES];
	int norder = mode_order(c, op, allowed, nallowed, order);
	if (norder < 0)
		return false;
	int nr = op->rank - 2;
	int64_t e0 = op->ext[nr], e1 = op->ext[nr + 1];
	int rows = (int)(rows_axis1 ? e1 : e0);
	int64_t cols = rows_axis1 ? e0 : e1;
	if (nib && cols % 2 != 0)
		return diag_error(c, PT_E_DESC_WALK, op->span,
				  "operand %d (%s): a row of %lld packed 4-bit "
				  "elements is not whole bytes", op->index,
				  op->root->name, (long long)cols);
	int64_t bytes = nib ? 1 : op->bits / 8;
	int64_t ibits = nib ? 8 : op->bits;
	int64_t icols = nib ? cols / 2 : cols;
	int64_t nrep = 1;
	for (int i = 0; i < nr; i++)
		nrep *= op->ext[i];
	out->nrep = nrep;
	out->bits = (int)ibits;
	out->hi = NEWN(&c->arena, uint64_t, nrep + 1);
	out->start = NEWN(&c->arena, int64_t, nrep + 1);
	int64_t *x = NEWN(&c->arena, int64_t, op->rank + 1);
	int64_t *img = NEWN(&c->arena, int64_t, rows * cols + 1);
	Lin sym = {0}, bad = {0};
	bool split = false;
	/* the pre-swizzle evaluation, used when the origin's phase inside
	 * the swizzle period is not constant */
	const Layout *sw = NULL;
	View unswz;
	ViewEval ev;
	view_eval_init(&ev, &e->st, op->view);
	for (int64_t r = 0; r < nrep; r++) {
		int64_t q = r;
		for (int i = nr - 1; i >= 0; i--) {
			x[i] = q % op->ext[i];
			q /= op->ext[i];
		}
		bool ok = image_of(e, &ev, sw, x, nr, rows, cols, rows_axis1,
				   bytes, nib, r == 0, &sym, img, &bad, &split);
		if (!ok && !split && r == 0 && !sw &&
		    (sw = phase_layout(op, order, norder)) != NULL) {
			unswz = *op->view;
			unswz.layout = layout_tile(sw);
			view_eval_init(&ev, &e->st, &unswz);
			norder = 1;
			ok = image_of(e, &ev, sw, x, nr, rows, cols,
				      rows_axis1, bytes, nib, true, &sym, img,
				      &bad, &split);
		}
		if (split)
			return diag_error(
				c, PT_E_DESC_WALK, op->span,
				"operand %d (%s) at %s: packed 4-bit elements "
				"2j and 2j+1 of a row must share one byte",
				op->index, op->root->name,
				tile_coord_str(&c->arena, x, op->rank));
		if (!ok)
			return diag_error(
				c, PT_E_DESC_SYMBOLIC, op->span,
				"operand %d (%s): element %s is %s elements "
				"from the origin of repeat 0; descriptor "
				"strides must be constants", op->index,
				op->root->name,
				tile_coord_str(&c->arena, x, op->rank),
				lin_str(&e->st, bad));
		DescImage im = {walk, rows, icols, (int)ibits, img};
		SmemDesc d;
		DescFail why;
		char msg[256];
		if (!desc_extract(&im, order, norder, &d, &why, msg,
				  sizeof(msg)))
			return diag_error(c, fail_code(why), op->span,
					  "operand %d (%s) at repeat %s is no "
					  "%s-major shared matrix descriptor "
					  "image: %s", op->index,
					  op->root->name,
					  tile_coord_str(&c->arena, x, nr),
					  walk == DESC_WALK_K ? "K" : "MN",
					  msg);
		int64_t period = desc_period(d.mode);
		if (buffer_align(op->root) < period)
			return diag_error(c, PT_E_DESC_PERIOD, op->span,
					  "operand %d (%s): the descriptor "
					  "uses swizzle %s, whose %lld-byte "
					  "period the allocation must be "
					  "aligned to, but %s is only known to "
					  "be %lld-byte aligned (declare "
					  "align=%lld)", op->index,
					  op->root->name, mode_names[d.mode],
					  (long long)period, op->root->name,
					  (long long)buffer_align(op->root),
					  (long long)period);
		if (r == 0) {
			out->mode = d.mode;
			out->lbo = d.lbo;
			out->sbo = d.sbo;
			const char *why2 = NULL;
			/* the origin in bytes (4-bit: even element counts,
			 * proven below through the 16-byte unit) */
			Lin sbits = lin_scale(&e->st, sym, op->bits);
			Lin sb = lin_floordiv(&e->st, sbits, 8);
			/* before the swizzle the origin need only be a
			 * 16-byte multiple (the start field's unit) */
			int64_t unit = sw ? 16 : period;
			if (sym.n > 0 &&
			    !prove_multiple_of(&e->st, sbits, unit * 8, &why2))
				return diag_error(
					c, sw ? PT_E_DESC_ORIGIN
					      : PT_E_DESC_SYMBOLIC, op->span,
					"operand %d (%s): cannot prove the "
					"symbolic origin %s bytes a multiple of "
					"%s%lld bytes; %s", op->index,
					op->root->name, lin_str(&e->st, sb),
					sw ? "" : "the swizzle period, ",
					(long long)unit,
					why2 ? why2 : "unknown");
			if (sw && !phase_in_row(e, op, sb, &d, cols * bytes))
				return false;
			out->sym_x = sym.n == 0 ? NULL
				: tile_lin_expr(e, nib ? sb : sym, op->span);
			int64_t slo = 0, shi = 0;
			out->sym_hi = sym.n == 0 ? 0
				: lin_bounds(&e->st, sb, &slo, &shi) ? shi : -1;
		}
		out->hi[r] = desc_encode(&d, 0);
		out->start[r] = d.start;
	}
	return true;
}

static Expr *
var_ref(Ctx *c, Var *v, Span sp)
{
	Expr *x = ir_new_expr(c, EX_VAR, ET_SCALAR, v->dtype, sp);
	x->u.var = v;
	return x;
}

static Expr *
cast_to(Ctx *c, Expr *a, DType t, Span sp)
{
	Expr *x = ir_new_expr(c, EX_CAST, ET_SCALAR, t, sp);
	x->u.op.a = a;
	return x;
}

Expr *
tile_desc_base(Ctx *c, const TileCall *tc, const TileOperand *op, Block *out)
{
	Span sp = tc->span;
	const Buffer *b = op->root;
	Expr *buf = ir_new_expr(c, EX_BUF, ET_TENSOR, b->dtype, sp);
	buf->u.buf = (Buffer *)b;
	Expr *p = ir_new_expr(c, EX_PTR_TO, ET_SCALAR, DT_UINT64, sp);
	p->u.access.base = buf;
	int64_t shape[16] = {0}, zero[16] = {0};
	for (int d = 0; d < b->ndim && d < 16; d++)
		ir_const_int(b->shape[d], &shape[d]);
	/* the pointer names element 0, which a layout may place away from
	 * the storage start */
	PhysCoord pc;
	layout_eval(b->layout, shape, b->ndim, zero, &pc);
	int64_t lead = pc.v[AX_M] * dtype_bits(b->dtype) / 8;
	if (dtype_bits(b->dtype) % 8) {
		/* packed 4-bit storage: byte 0 of a uint8 storage view */
		Expr *r = ir_new_expr(c, EX_VIEW_RESHAPE, ET_TENSOR, b->dtype,
				      sp);
		r->u.view.base = buf;
		vec_push(&c->arena, &r->u.view.shape, tile_int(c, 1, sp));
		Expr *v = ir_new_expr(c, EX_VIEW_DTYPE, ET_TENSOR, DT_UINT8,
				      sp);
		v->u.view.base = r;
		p->u.access.base = v;
		vec_push(&c->arena, &p->u.access.indices, tile_int(c, 0, sp));
		lead = 0;
	} else {
		for (int d = 0; d < b->ndim && d < 16; d++)
			vec_push(&c->arena, &p->u.access.indices,
				 tile_int(c, 0, sp));
	}
	Var *v = tile_lower_var(c, tc, "desc_base", DT_UINT32, out, sp);
	ExprVec a = {0};
	vec_push(&c->arena, &a, var_ref(c, v, sp));
	vec_push(&c->arena, &a, p);
	const PtxInst *row = tile_helper(c, TH_MOV_U32);
	Expr *mv = ir_ptx_issue(c, row, a, NULL, sp);
	Stmt *s = ir_new_stmt(c, ST_EVAL, sp);
	s->u.value = mv;
	vec_push(&c->arena, out, s);
	Expr *x = var_ref(c, v, sp);
	if (lead)
		x = tile_binop(c, BIN_SUB, x, ir_int(c, lead, DT_UINT32, sp),
			       DT_UINT32, sp);
	return x;
}

/* Only the storage start is masked: its shared-window address carries
 * the CTA's rank in a cluster above bit 18 (ptxas builds it from
 * SR_CgaCtaId << 24), which the 14-bit start field drops.  The offsets
 * added to it stay inside the CTA's at most 228 KiB, so the sum fills only
 * the field's bits; every term is a 16-byte multiple (the storage start
 * aligned to the period, the symbolic origin proven, start[r] checked),
 * so the field is the sum of the terms' >> 4.  A call's repeats then
 * differ by constants, which ptxas folds into one add per descriptor. */
Expr *
tile_desc_value(Ctx *c, const TileDesc *d, int64_t r, Expr *base)
{
	Span sp = base->span;
	Expr *lo = tile_binop(c, BIN_SHR, base, ir_int(c, 4, DT_UINT32, sp),
			      DT_UINT32, sp);
	lo = tile_binop(c, BIN_BAND, lo, ir_int(c, 0x3FFF, DT_UINT32, sp),
			DT_UINT32, sp);
	if (d->sym_x) {
		/* signed: the region checker proves the whole origin in
		 * bounds, not this term alone, and a 16-byte multiple shifts
		 * exactly either way */
		Expr *y = tile_binop(
			c, BIN_MUL, cast_to(c, d->sym_x, DT_INT32, sp),
			ir_int(c, d->bits / 8, DT_INT32, sp), DT_INT32, sp);
		y = tile_binop(c, BIN_SHR, y, ir_int(c, 4, DT_INT32, sp),
			       DT_INT32, sp);
		lo = tile_binop(c, BIN_ADD, lo, cast_to(c, y, DT_UINT32, sp),
				DT_UINT32, sp);
	}
	uint32_t k = (uint32_t)d->hi[r] + (uint32_t)(d->start[r] >> 4);
	if (k)
		lo = tile_binop(c, BIN_ADD, lo, ir_int(c, k, DT_UINT32, sp),
				DT_UINT32, sp);
	uint64_t top = d->hi[r] & ~(uint64_t)0xFFFFFFFF;
	Expr *w = cast_to(c, lo, DT_UINT64, sp);
	if (!top)
		return w;
	return tile_binop(c, BIN_BOR, w, ir_int(c, (int64_t)top, DT_UINT64, sp),
			  DT_UINT64, sp);
}

void
tile_desc_to_sm90(TileDesc *d)
{
	for (int64_t r = 0; r < d->nrep; r++)
		d->hi[r] &= ~((uint64_t)1 << 46);
}

bool
tile_tc05_group(TileEnv *e, const TileCall *tc)
{
	int g = ptx_has(&tc->inst, PQ_CTA_GROUP_2) ? 2 : 1;
	if (e->tc05_group == 0) {
		e->tc05_group = g;
		e->tc05_span = tc->span;
		return true;
	}
	if (e->tc05_group == g)
		return true;
	diag_error(e->c, PT_E_TC05_GROUP, tc->span,
		   "%s uses .cta_group::%d, but an earlier tcgen05 call of "
		   "this kernel uses .cta_group::%d: a kernel's tcgen05 "
		   "instructions share one CTA group", tc->inst.spelling, g,
		   e->tc05_group);
	diag_note(e->c, e->tc05_span, "the earlier call");
	return false;
}

Expr *
tile_tmem_addr(Ctx *c, const TileOperand *op, int64_t lane, Expr *col)
{
	Span sp = op->span;
	Expr *a = cast_to(c, op->root->allocated_addr, DT_UINT32, sp);
	if (lane)
		a = tile_binop(c, BIN_ADD, a,
			       ir_int(c, lane << 16, DT_UINT32, sp), DT_UINT32,
			       sp);
	int64_t k;
	if (col && !(ir_const_int(col, &k) && k == 0))
		a = tile_binop(c, BIN_ADD, a, cast_to(c, col, DT_UINT32, sp),
			       DT_UINT32, sp);
	return a;
}
