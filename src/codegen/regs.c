/*
 * regs.c - virtual registers, immediates, labels and instruction text.
 *
 * Register classes follow the dtype's width and kind (rc_of); every
 * register gets the next number of its class, so names are deterministic.
 * Immediates are printed the way PTX reads them: decimal integers, 0fXXXX
 * (f32) and 0dXXXX (f64) hex floats; 16-bit floats have no immediate form
 * and are moved in as b16 bit patterns.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/codegen.h"

static const char *const rc_prefix[RC_COUNT] = {
	[RC_PRED] = "%p", [RC_B16] = "%rs", [RC_B32] = "%r",
	[RC_B64] = "%rd", [RC_F32] = "%f", [RC_F64] = "%fd",
};

bool
dtype_is_int(DType t)
{
	DTypeKind k = dtype_kind(t);
	return k == DK_INT || k == DK_UINT || k == DK_BITS;
}

bool
dtype_is_float(DType t)
{
	return dtype_kind(t) == DK_FLOAT;
}

bool
dtype_is_signed(DType t)
{
	return dtype_kind(t) == DK_INT;
}

RegClass
rc_of(DType t)
{
	int bits = dtype_bits(t);
	if (t == DT_BOOL)
		return RC_PRED;
	if (bits <= 16)
		return RC_B16;
	if (t == DT_FLOAT32 || t == DT_TF32)
		return RC_F32;
	if (t == DT_FLOAT64)
		return RC_F64;
	return bits == 64 ? RC_B64 : RC_B32;
}

/* prefix, then '-' when neg, then the decimal digits of mag: register
 * names and integer immediates are the bulk of the operand text, and
 * this is much cheaper than a printf. */
static const char *
int_text(Arena *a, const char *prefix, bool neg, unsigned long long mag)
{
	char digits[24];
	int n = 0;
	do {
		digits[n++] = (char)('0' + mag % 10);
		mag /= 10;
	} while (mag);
	size_t plen = strlen(prefix);
	char *s = arena_alloc(a, plen + (size_t)n + 2);
	char *p = s;
	memcpy(p, prefix, plen);
	p += plen;
	if (neg)
		*p++ = '-';
	while (n > 0)
		*p++ = digits[--n];
	*p = 0;
	return s;
}

Val
gen_reg(Gen *g, DType t)
{
	RegClass k = rc_of(t);
	Val v = {0};
	v.dt = t;
	v.s = int_text(&g->c->arena, rc_prefix[k], false,
		       (unsigned long long)++g->nreg[k]);
	return v;
}

Val
val_int(Gen *g, int64_t x, DType t)
{
	Val v = {0};
	v.dt = t;
	v.imm = true;
	v.i = x;
	if (t == DT_BOOL)
		v.s = x ? "1" : "0";
	else if (dtype_kind(t) == DK_UINT && dtype_bits(t) == 64)
		v.s = int_text(&g->c->arena, "", false, (unsigned long long)x);
	else
		v.s = int_text(&g->c->arena, "", x < 0,
			       x < 0 ? -(unsigned long long)x
				     : (unsigned long long)x);
	return v;
}

/* Round-to-nearest-even f32 -> f16 / bf16 bit patterns for constants. */
static uint16_t
f32_to_bf16_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return 0x7fc0;
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

static uint16_t
f64_to_f16_bits(double d)
{
	uint16_t sign = signbit(d) ? 0x8000 : 0;
	double a = fabs(d);
	if (isnan(d))
		return 0x7e00;
	if (a >= 65520.0)
		return sign | 0x7c00;
	if (a < 0x1p-14) { /* subnormal: units of 2^-24 */
		double q = nearbyint(a * 0x1p24);
		return sign | (uint16_t)q;
	}
	int e;
	double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
	double q = nearbyint(m * 2048.0); /* 11 significant bits */
	if (q == 2048.0) {
		q = 1024.0;
		e++;
	}
	return sign | (uint16_t)(((e + 14) << 10) | ((int)q - 1024));
}

Val
val_float(Gen *g, double x, DType t)
{
	Val v = {0};
	v.dt = t;
	v.imm = true;
	v.f = x;
	if (t == DT_FLOAT64) {
		uint64_t u;
		memcpy(&u, &x, 8);
		v.s = arena_printf(&g->c->arena, "0d%016llX",
				   (unsigned long long)u);
	} else if (t == DT_FLOAT16 || t == DT_BFLOAT16) {
		uint16_t h = t == DT_FLOAT16 ? f64_to_f16_bits(x)
					     : f32_to_bf16_bits((float)x);
		v.s = arena_printf(&g->c->arena, "0x%04X", h);
	} else {
		float f = (float)x;
		uint32_t u;
		memcpy(&u, &f, 4);
		v.s = arena_printf(&g->c->arena, "0f%08X", u);
	}
	return v;
}

const char *
ptx_int_suffix(DType t)
{
	static const char *const s[2][4] = {
		{"u8", "u16", "u32", "u64"},
		{"s8", "s16", "s32", "s64"},
	};
	int bits = dtype_bits(t);
	int w = bits <= 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
	return s[dtype_is_signed(t)][w];
}

const char *
ptx_mov_suffix(DType t)
{
	switch (rc_of(t)) {
	case RC_PRED: return "pred";
	case RC_B16: return "b16";
	case RC_B32: return "b32";
	case RC_B64: return "b64";
	case RC_F32: return "f32";
	default: return "f64";
	}
}

Val
gen_in_reg(Gen *g, Val v)
{
	if (!v.imm)
		return v;
	Val r = gen_reg(g, v.dt);
	gen_emit(g, "mov.%s %s, %s;", ptx_mov_suffix(v.dt), r.s, v.s);
	return r;
}

/* True when fmt converts only %s, %d and %lld (every instruction
 * template does): those are copied without a printf. */
static bool
simple_format(const char *fmt)
{
	for (const char *p = strchr(fmt, '%'); p; p = strchr(p + 1, '%')) {
		if (p[1] == 's' || p[1] == 'd')
			p++;
		else if (p[1] == 'l' && p[2] == 'l' && p[3] == 'd')
			p += 3;
		else
			return false;
	}
	return true;
}

static void
put_int(StrBuf *b, long long x)
{
	char digits[24];
	int n = 0;
	unsigned long long mag = x < 0 ? -(unsigned long long)x
				       : (unsigned long long)x;
	if (x < 0)
		sb_putc(b, '-');
	do {
		digits[sizeof(digits) - 1 - n++] = (char)('0' + mag % 10);
		mag /= 10;
	} while (mag);
	sb_putn(b, digits + sizeof(digits) - n, (size_t)n);
}

void
gen_emit(Gen *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_putc(&g->code, '\t');
	if (!simple_format(fmt)) {
		sb_vprintf(&g->code, fmt, ap);
	} else {
		const char *p = fmt, *q;
		while ((q = strchr(p, '%'))) {
			sb_putn(&g->code, p, (size_t)(q - p));
			if (q[1] == 's') {
				sb_puts(&g->code, va_arg(ap, const char *));
				p = q + 2;
			} else if (q[1] == 'd') {
				put_int(&g->code, va_arg(ap, int));
				p = q + 2;
			} else {
				put_int(&g->code, va_arg(ap, long long));
				p = q + 4;
			}
		}
		sb_puts(&g->code, p);
	}
	sb_putc(&g->code, '\n');
	va_end(ap);
}

int
gen_label(Gen *g)
{
	return ++g->nlabel;
}

void
gen_place_label(Gen *g, int l)
{
	sb_printf(&g->code, "$L%d:\n", l);
}

void
gen_need_ptx(Gen *g, int ver)
{
	if (ver > g->ptx_ver)
		g->ptx_ver = ver;
}

Val
gen_error(Gen *g, int code, Span sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(g->c, code, sp, fmt, ap);
	va_end(ap);
	g->failed = true;
	return val_int(g, 0, DT_INT32);
}
