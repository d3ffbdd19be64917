/*
 * alu.c - scalar arithmetic, logic, comparisons and conversions, from the
 * PTX ISA's definitions (§9.7.1-9.7.4, §9.7.9.21 cvt).
 *
 * Integer results wrap at the type's width; signed results are kept
 * sign-extended in the register.  Float results are IEEE with the
 * instruction's rounding mode (the host FPU in round-to-nearest for
 * .f32/.f64; directed modes through fesetround around the one operation;
 * .f16/.bf16 computed in double and rounded once by emu_round_small).
 * NaN results are the GPU's canonical NaN (0x7fffffff, 0x7fff).  The .approx
 * functions use the host libm, which is within the ISA's stated error.
 */
#include <fenv.h>
#include <math.h>
#include <string.h>

#include "emu/emu.h"

/* ---- float encodings ---- */

static float
as_f32(uint64_t b)
{
	uint32_t u = (uint32_t)b;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint64_t
f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static double
as_f64(uint64_t b)
{
	double d;
	memcpy(&d, &b, 8);
	return d;
}

static uint64_t
f64_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

double
emu_small_to_double(uint32_t bits, int ebits, int mbits)
{
	uint32_t sign = bits >> (ebits + mbits) & 1;
	uint32_t e = bits >> mbits & ((1u << ebits) - 1);
	uint32_t m = bits & ((1u << mbits) - 1);
	int bias = (1 << (ebits - 1)) - 1;
	double v;
	if (e == (1u << ebits) - 1)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp((double)m, 1 - bias - mbits);
	else
		v = ldexp((double)(m | 1u << mbits), (int)e - bias - mbits);
	return sign ? -v : v;
}

/* x rounded to a float format with ebits exponent and mbits mantissa bits
 * (f16 5/10, bf16 8/7, f32 8/23), in rounding mode rnd; NaN becomes the
 * canonical NaN (all ones but the sign). */
uint32_t
emu_round_small(double x, int rnd, int ebits, int mbits)
{
	uint32_t expmask = (1u << ebits) - 1;
	uint32_t sbit = 1u << (ebits + mbits);
	if (isnan(x))
		return (expmask << mbits) | ((1u << mbits) - 1);
	uint32_t sign = signbit(x) ? sbit : 0;
	double a = fabs(x);
	if (isinf(a))
		return sign | expmask << mbits;
	if (a == 0)
		return sign;
	int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias, emax = bias;
	int e;
	frexp(a, &e);
	e -= 1; /* a in [2^e, 2^(e+1)) */
	if (e < emin)
		e = emin;
	double scaled = ldexp(a, mbits - e); /* exact */
	double fl = floor(scaled);
	double rem = scaled - fl;
	uint64_t n = (uint64_t)fl;
	bool up = false;
	switch (rnd) {
	case RND_RZ: break;
	case RND_RM: up = sign && rem > 0; break;
	case RND_RP: up = !sign && rem > 0; break;
	default: up = rem > 0.5 || (rem == 0.5 && (n & 1)); break;
	}
	n += up;
	if (n >> (mbits + 1)) {
		n >>= 1;
		e++;
	}
	if (e > emax) {
		bool to_inf = rnd == RND_RN || rnd == RND_NONE ||
			      (rnd == RND_RP && !sign) || (rnd == RND_RM && sign);
		return to_inf ? sign | expmask << mbits
			      : sign | (expmask - 1) << mbits |
					((1u << mbits) - 1);
	}
	if (n < (1ull << mbits))
		return sign | (uint32_t)n; /* subnormal */
	return sign | (uint32_t)(e + bias) << mbits |
	       (uint32_t)(n - (1ull << mbits));
}

static int
fenv_mode(int rnd)
{
	switch (rnd) {
	case RND_RZ: return FE_TOWARDZERO;
	case RND_RM: return FE_DOWNWARD;
	case RND_RP: return FE_UPWARD;
	default: return FE_TONEAREST;
	}
}

static float
ftz32(float x)
{
	return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}

/* ---- integer helpers ---- */

static uint64_t
sx(uint64_t v, unsigned bits)
{
	if (bits >= 64)
		return v;
	v &= (1ull << bits) - 1;
	return (v >> (bits - 1)) & 1 ? v | (~0ull << bits) : v;
}

static uint64_t
zx(uint64_t v, unsigned bits)
{
	return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

/* ---- float element operations ---- */

enum FOp {
	F_ADD, F_SUB, F_MUL, F_FMA, F_DIV, F_MIN, F_MAX, F_ABS, F_NEG,
	F_RCP, F_SQRT, F_RSQRT, F_EX2, F_LG2, F_SIN, F_COS, F_TANH,
	F_COPYSIGN
};

static double
f_apply(int op, double a, double b, double c, bool nan_prop, bool *is_minmax)
{
	switch (op) {
	case F_ADD: return a + b;
	case F_SUB: return a - b;
	case F_MUL: return a * b;
	case F_FMA: return fma(a, b, c);
	case F_DIV: return a / b;
	case F_ABS: return fabs(a);
	case F_NEG: return -a;
	case F_RCP: return 1.0 / a;
	case F_SQRT: return sqrt(a);
	case F_RSQRT: return 1.0 / sqrt(a);
	case F_EX2: return exp2(a);
	case F_LG2: return log2(a);
	case F_SIN: return sin(a);
	case F_COS: return cos(a);
	case F_TANH: return tanh(a);
	case F_COPYSIGN: return copysign(b, a);
	default: /* min / max: NaN only when both are (or with .NaN) */
		*is_minmax = true;
		if (isnan(a) || isnan(b)) {
			if (nan_prop || (isnan(a) && isnan(b)))
				return NAN;
			return isnan(a) ? b : a;
		}
		if (a == b) /* -0 < +0 */
			return op == F_MIN ? (signbit(a) ? a : b)
					   : (signbit(a) ? b : a);
		return op == F_MIN ? (a < b ? a : b) : (a > b ? a : b);
	}
}

/* f32 with one rounding in mode rnd: the host's float arithmetic. */
static float
f32_apply(int op, float a, float b, float c, int rnd)
{
	int old = fegetround();
	if (rnd != RND_NONE && rnd != RND_RN)
		fesetround(fenv_mode(rnd));
	/* volatile on both sides: the operation happens between the two
	 * mode changes (the compiler may otherwise compute it after the
	 * second one; gcc -O1 did, -frounding-math notwithstanding) */
	volatile float va = a, vb = b, vc = c;
	volatile float r;
	switch (op) {
	case F_ADD: r = va + vb; break;
	case F_SUB: r = va - vb; break;
	case F_MUL: r = va * vb; break;
	case F_FMA: r = fmaf(va, vb, vc); break;
	case F_DIV: r = va / vb; break;
	case F_RCP: r = 1.0f / va; break;
	case F_SQRT: r = sqrtf(va); break;
	default: r = 0; break;
	}
	fesetround(old);
	return r;
}

static double
f64_apply(int op, double a, double b, double c, int rnd)
{
	int old = fegetround();
	if (rnd != RND_NONE && rnd != RND_RN)
		fesetround(fenv_mode(rnd));
	volatile double va = a, vb = b, vc = c;
	volatile double r; /* as in f32_apply */
	switch (op) {
	case F_ADD: r = va + vb; break;
	case F_SUB: r = va - vb; break;
	case F_MUL: r = va * vb; break;
	case F_FMA: r = fma(va, vb, vc); break;
	case F_DIV: r = va / vb; break;
	case F_RCP: r = 1.0 / va; break;
	case F_SQRT: r = sqrt(va); break;
	default: r = 0; break;
	}
	fesetround(old);
	return r;
}

static bool
rounded_op(int op)
{
	return op <= F_DIV || op == F_RCP || op == F_SQRT;
}

enum { F64_QUIET_BIT = 51 };
#define F64_QUIET (1ull << F64_QUIET_BIT)
#define F64_CANON_NAN 0x7fffffffffffffffull

static bool
f64_is_nan(uint64_t v)
{
	return (v & ~(1ull << 63)) > 0x7ff0000000000000ull;
}

/* Which NaN operand an f64 operation returns (quieted), as measured on
 * the H200 by tools/emu_fuzz.py: fma b, then c, then a; add b, then a
 * (sub and mul taken to be alike); div a, then b; min/max without .NaN
 * return the other operand (f_apply) unless both are NaN, then b. */
static bool
f64_nan_operand(int op, uint64_t a, uint64_t b, uint64_t c, bool nanp,
		uint64_t *out)
{
	uint64_t order[3] = {b, a, c};
	int n = 2;
	if (op == F_FMA) {
		order[1] = c;
		order[2] = a;
		n = 3;
	} else if (op == F_DIV) {
		order[0] = a;
		order[1] = b;
	} else if (op == F_MIN || op == F_MAX) {
		if (!nanp && !(f64_is_nan(a) && f64_is_nan(b)))
			return false;
	} else if (!rounded_op(op) || op == F_RCP || op == F_SQRT) {
		order[0] = a;
		n = 1;
	}
	for (int i = 0; i < n; i++)
		if (f64_is_nan(order[i])) {
			*out = order[i] | F64_QUIET;
			return true;
		}
	return false;
}

/* A 16-bit float's bits with a subnormal flushed to a signed zero. */
static uint64_t
flush16(uint64_t v, int mb)
{
	return (v & 0x7fff) < (1u << mb) ? v & 0x8000 : v;
}

/* add/sub/mul/fma of 16-bit values in double, rounded to odd: toward
 * zero, with the last bit set when inexact.  Rounding that to an 8- or
 * 11-bit mantissa is the same as rounding the exact result once (a bf16
 * sum can span more than double's 53 bits). */
static double
odd_rounded(int op, double x, double y, double z)
{
	feclearexcept(FE_INEXACT);
	double r = f64_apply(op, x, y, z, RND_RZ);
	if (fetestexcept(FE_INEXACT) && isfinite(r))
		r = as_f64(f64_bits(r) | 1);
	return r;
}

/* .sat: the result clamped to [0, 1], NaN and -0 to +0; .relu:
 * negatives and -0 to +0, NaN kept (then canonical). */
static double
clamp_result(uint32_t fl, double r)
{
	if (fl & FL_SAT)
		return isnan(r) || signbit(r) ? 0.0 : r > 1 ? 1.0 : r;
	if (fl & FL_RELU)
		return isnan(r) || !signbit(r) ? r : 0.0;
	return r;
}

/* min/max .xorsign.abs: the min/max of |x| and |y| with the XOR of
 * their signs (a NaN result stays the canonical NaN).  Replaces x, y by
 * their magnitudes; returns -1 when the modifier is absent, else the
 * sign to give the result. */
static int
xorsign_inputs(const Insn *in, int op, double *x, double *y)
{
	if (!(in->fl & FL_XORSIGN) || (op != F_MIN && op != F_MAX))
		return -1;
	int s = signbit(*x) != signbit(*y);
	*x = fabs(*x);
	*y = fabs(*y);
	return s;
}

static double
xorsign_result(int s, double r)
{
	return s < 0 || isnan(r) ? r : s ? -fabs(r) : fabs(r);
}

/* One element of a float operation in type ety. */
static uint64_t
float_elem(const Insn *in, int op, PtxType ety, uint64_t a, uint64_t b, uint64_t c)
{
	bool nanp = in->fl & FL_NAN, mm = false;
	bool ftz = in->fl & FL_FTZ;
	if (ety == PTY_F32) {
		float x = as_f32(a), y = as_f32(b), z = as_f32(c);
		if (op == F_ABS || op == F_NEG) {
			/* sign bit only; but a NaN becomes the canonical NaN
			 * and .ftz flushes first, keeping the sign (measured
			 * on the H200 by tools/emu_fuzz.py) */
			if (isnan(x))
				return 0x7fffffffu;
			if (ftz && fpclassify(x) == FP_SUBNORMAL)
				a &= 0x80000000u;
			return op == F_ABS ? a & 0x7fffffffu
					   : (a ^ 0x80000000u) & 0xffffffffu;
		}
		if (ftz) {
			x = ftz32(x);
			y = ftz32(y);
			z = ftz32(z);
		}
		double dx = x, dy = y;
		int xs = xorsign_inputs(in, op, &dx, &dy);
		x = (float)dx;
		y = (float)dy;
		float r;
		if (op == F_DIV && (in->fl & FL_APPROX))
			/* the ISA's a * (1/b): a reciprocal below 2^-126 is
			 * flushed, so |b| >= 2^126 gives 0 (or inf * 0 NaN) */
			r = fabsf(y) >= 0x1p126f && isfinite(y)
				    ? x * 0.0f
				    : (float)((double)x * (1.0 / (double)y));
		else if (rounded_op(op))
			r = f32_apply(op, x, y, z, in->rnd);
		else
			r = (float)f_apply(op, x, y, z, nanp, &mm);
		if (ftz)
			r = ftz32(r);
		r = (float)clamp_result(in->fl, xorsign_result(xs, r));
		if (isnan(r))
			return 0x7fffffffu;
		return f32_bits(r);
	}
	if (ety == PTY_F64) {
		double x = as_f64(a), y = as_f64(b), z = as_f64(c), r;
		uint64_t nan;
		if ((op == F_ABS || op == F_NEG) && isnan(x))
			return a | F64_QUIET; /* sign kept (H200) */
		if (op == F_ABS)
			return a & ~(1ull << 63);
		if (op == F_NEG)
			return a ^ (1ull << 63);
		if (!(op == F_RCP && (in->fl & FL_APPROX)) &&
		    f64_nan_operand(op, a, b, c, nanp, &nan))
			return nan;
		if (op == F_RCP && (in->fl & FL_APPROX)) {
			/* rcp.approx.ftz.f64 reads only the upper 32 bits of
			 * its input and writes only the upper 32 bits of its
			 * result (so 0x7ff0000000000001 is infinity, 1/x 0),
			 * subnormals flushed (H200) */
			x = as_f64(a & ~0xffffffffull);
			if (fpclassify(x) == FP_SUBNORMAL)
				x = copysign(0, x);
			r = 1.0 / x;
			if (fpclassify(r) == FP_SUBNORMAL)
				r = copysign(0, r);
			return isnan(r) ? 0x7fffffff00000000ull
					: f64_bits(r) & ~0xffffffffull;
		}
		r = rounded_op(op) ? f64_apply(op, x, y, z, in->rnd)
				   : f_apply(op, x, y, z, nanp, &mm);
		return f64_bits(r);
	}
	/* f16 / bf16: exact in double for one add/sub/mul, then one rounding */
	int eb = ety == PTY_BF16 ? 8 : 5, mb = ety == PTY_BF16 ? 7 : 10;
	uint32_t sign = 1u << 15;
	if (ftz) { /* .ftz flushes subnormal inputs too, keeping the sign */
		a = flush16(a, mb);
		b = flush16(b, mb);
		c = flush16(c, mb);
	}
	bool is_nan = ((uint32_t)a & 0x7fff) > ((1u << eb) - 1) << mb;
	if ((op == F_ABS || op == F_NEG) && is_nan)
		return 0x7fff;
	if (op == F_ABS)
		return a & (sign - 1);
	if (op == F_NEG)
		return (a ^ sign) & 0xffff;
	double x = emu_small_to_double((uint32_t)a & 0xffff, eb, mb);
	double y = emu_small_to_double((uint32_t)b & 0xffff, eb, mb);
	double z = emu_small_to_double((uint32_t)c & 0xffff, eb, mb);
	int xs = xorsign_inputs(in, op, &x, &y);
	double r = op == F_ADD || op == F_SUB || op == F_MUL || op == F_FMA
			   ? odd_rounded(op, x, y, z)
			   : f_apply(op, x, y, z, nanp, &mm);
	r = clamp_result(in->fl, xorsign_result(xs, r));
	uint32_t out = emu_round_small(r, in->rnd ? in->rnd : RND_RN, eb, mb);
	if (ftz && (out & 0x7fff) < (1u << mb))
		out &= sign;
	return out;
}

/* The element type of a float instruction type. */
static PtxType
elem_type(PtxType ty)
{
	switch (ty) {
	case PTY_F16X2: return PTY_F16;
	case PTY_BF16X2: return PTY_BF16;
	case PTY_F32X2: return PTY_F32;
	default: return ty;
	}
}

static uint64_t
float_op(const Insn *in, int op, PtxType ty, uint64_t a, uint64_t b, uint64_t c)
{
	if (emu_ty[ty].cls != TC_PAIR)
		return float_elem(in, op, ty, a, b, c);
	PtxType et = elem_type(ty);
	unsigned eb = 8u * emu_ty[et].bytes;
	uint64_t lo = float_elem(in, op, et, zx(a, eb), zx(b, eb), zx(c, eb));
	uint64_t hi = float_elem(in, op, et, zx(a >> eb, eb), zx(b >> eb, eb),
				 zx(c >> eb, eb));
	return zx(lo, eb) | zx(hi, eb) << eb;
}

static double
float_value(uint64_t bits, PtxType ty)
{
	switch (ty) {
	case PTY_F32: return as_f32(bits);
	case PTY_F64: return as_f64(bits);
	case PTY_F16: return emu_small_to_double((uint32_t)bits & 0xffff, 5, 10);
	case PTY_BF16: return emu_small_to_double((uint32_t)bits & 0xffff, 8, 7);
	default: return 0;
	}
}

/* ---- comparisons ---- */

static bool
compare_float(int cmp, double a, double b, bool ftz)
{
	bool un = isnan(a) || isnan(b);
	(void)ftz;
	switch (cmp) {
	case CMP_EQ: return !un && a == b;
	case CMP_NE: return !un && a != b;
	case CMP_LT: return !un && a < b;
	case CMP_LE: return !un && a <= b;
	case CMP_GT: return !un && a > b;
	case CMP_GE: return !un && a >= b;
	case CMP_EQU: return un || a == b;
	case CMP_NEU: return un || a != b;
	case CMP_LTU: return un || a < b;
	case CMP_LEU: return un || a <= b;
	case CMP_GTU: return un || a > b;
	case CMP_GEU: return un || a >= b;
	case CMP_NUM: return !un;
	case CMP_NAN: return un;
	default: return false;
	}
}

static bool
compare_int(int cmp, uint64_t a, uint64_t b, bool is_signed, unsigned bits)
{
	int64_t sa = (int64_t)sx(a, bits), sb = (int64_t)sx(b, bits);
	uint64_t ua = zx(a, bits), ub = zx(b, bits);
	switch (cmp) {
	case CMP_EQ: return ua == ub;
	case CMP_NE: return ua != ub;
	case CMP_LT: return is_signed ? sa < sb : ua < ub;
	case CMP_LE: return is_signed ? sa <= sb : ua <= ub;
	case CMP_GT: return is_signed ? sa > sb : ua > ub;
	case CMP_GE: return is_signed ? sa >= sb : ua >= ub;
	case CMP_LO: return ua < ub;
	case CMP_LS: return ua <= ub;
	case CMP_HI: return ua > ub;
	case CMP_HS: return ua >= ub;
	default: return false;
	}
}

/* ---- integer operations ---- */

static PtxType
wide_type(PtxType ty)
{
	switch (ty) {
	case PTY_S16: return PTY_S32;
	case PTY_U16: return PTY_U32;
	case PTY_S32: return PTY_S64;
	default: return PTY_U64;
	}
}

static uint64_t
mul_int(const Insn *in, PtxType ty, uint64_t a, uint64_t b, PtxType *dty)
{
	unsigned bits = 8u * emu_ty[ty].bytes;
	bool s = emu_ty[ty].cls == TC_S;
	uint64_t x = s ? sx(a, bits) : zx(a, bits);
	uint64_t y = s ? sx(b, bits) : zx(b, bits);
	*dty = ty;
	if (in->fl & FL_WIDE) {
		*dty = wide_type(ty);
		return x * y; /* bits <= 32: exact in 64 */
	}
	if (in->fl & FL_HI) {
		if (bits == 64) {
			if (s)
				return (uint64_t)(((__int128)(int64_t)x *
						   (__int128)(int64_t)y) >> 64);
			return (uint64_t)(((unsigned __int128)x * y) >> 64);
		}
		uint64_t p = s ? (uint64_t)((int64_t)x * (int64_t)y) : x * y;
		return s ? (uint64_t)((int64_t)p >> bits) : p >> bits;
	}
	return x * y;
}

static uint64_t
div_int(PtxType ty, uint64_t a, uint64_t b, bool rem)
{
	unsigned bits = 8u * emu_ty[ty].bytes;
	if (emu_ty[ty].cls == TC_S) {
		int64_t x = (int64_t)sx(a, bits), y = (int64_t)sx(b, bits);
		if (y == 0) /* unspecified in the ISA: the GPU's all-ones / a */
			return rem ? (uint64_t)x : ~0ull;
		if (y == -1) /* also avoids the host's INT_MIN / -1 trap */
			return rem ? 0 : (uint64_t)0 - (uint64_t)x;
		return rem ? (uint64_t)(x % y) : (uint64_t)(x / y);
	}
	uint64_t x = zx(a, bits), y = zx(b, bits);
	if (y == 0)
		return rem ? x : ~0ull;
	return rem ? x % y : x / y;
}

static uint64_t
int_op(Run *r, Thread *t, const Insn *in, PtxType ty, uint64_t a, uint64_t b,
       uint64_t c, PtxType *dty)
{
	unsigned bits = 8u * emu_ty[ty].bytes;
	bool s = emu_ty[ty].cls == TC_S;
	*dty = ty;
	switch (in->op) {
	case PTXMN_ADD:
		if (in->fl & FL_SAT) {
			int64_t v = (int64_t)sx(a, 32) + (int64_t)sx(b, 32);
			return (uint64_t)(v > INT32_MAX ? INT32_MAX
					  : v < INT32_MIN ? INT32_MIN : v);
		}
		return a + b;
	case PTXMN_SUB:
		if (in->fl & FL_SAT) {
			int64_t v = (int64_t)sx(a, 32) - (int64_t)sx(b, 32);
			return (uint64_t)(v > INT32_MAX ? INT32_MAX
					  : v < INT32_MIN ? INT32_MIN : v);
		}
		return a - b;
	case PTXMN_MUL: return mul_int(in, ty, a, b, dty);
	case PTXMN_MAD: return mul_int(in, ty, a, b, dty) + c;
	case PTXMN_DIV: return div_int(ty, a, b, false);
	case PTXMN_REM: return div_int(ty, a, b, true);
	case PTXMN_ABS: {
		int64_t v = (int64_t)sx(a, bits);
		return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	}
	case PTXMN_NEG: return (uint64_t)0 - a;
	case PTXMN_MIN: case PTXMN_MAX: {
		bool lt = s ? (int64_t)sx(a, bits) < (int64_t)sx(b, bits)
			    : zx(a, bits) < zx(b, bits);
		return (in->op == PTXMN_MIN) == lt ? a : b;
	}
	case PTXMN_AND: return a & b;
	case PTXMN_OR: return a | b;
	case PTXMN_XOR: return a ^ b;
	case PTXMN_NOT: return ty == PTY_PRED ? !a : ~a;
	case PTXMN_CNOT: return zx(a, bits) == 0;
	case PTXMN_SHL: {
		uint32_t n = (uint32_t)b;
		return n >= bits ? 0 : a << n;
	}
	case PTXMN_SHR: {
		uint32_t n = (uint32_t)b;
		if (s)
			return (uint64_t)((int64_t)sx(a, bits) >>
					  (n >= bits ? bits - 1 : n));
		return n >= bits ? 0 : zx(a, bits) >> n;
	}
	case PTXMN_POPC:
		*dty = PTY_U32;
		return (uint64_t)__builtin_popcountll(zx(a, bits));
	case PTXMN_CLZ:
		*dty = PTY_U32;
		return zx(a, bits) ? (uint64_t)__builtin_clzll(zx(a, bits)) -
					     (64 - bits)
				   : bits;
	case PTXMN_BREV: {
		uint64_t v = 0;
		for (unsigned i = 0; i < bits; i++)
			v |= ((a >> i) & 1) << (bits - 1 - i);
		return v;
	}
	case PTXMN_BFE: {
		uint32_t pos = (uint32_t)b & 0xff, len = (uint32_t)c & 0xff;
		uint64_t sbit = s ? (len == 0 ? 0
				     : (a >> (pos + len - 1 < bits - 1
						      ? pos + len - 1
						      : bits - 1)) & 1)
				  : 0;
		uint64_t v = 0;
		for (unsigned i = 0; i < bits; i++) {
			uint64_t bit = (i < len && pos + i < bits)
					       ? (a >> (pos + i)) & 1
					       : sbit;
			v |= bit << i;
		}
		return v;
	}
	case PTXMN_PRMT: {
		uint64_t bytes = zx(a, 32) | zx(b, 32) << 32, v = 0;
		for (int i = 0; i < 4; i++) {
			uint32_t sel = (uint32_t)(c >> (4 * i)) & 0xf;
			uint64_t byte = bytes >> (8 * (sel & 7)) & 0xff;
			if (sel & 8) /* replicate the sign bit */
				byte = (byte & 0x80) ? 0xff : 0;
			v |= byte << (8 * i);
		}
		return v;
	}
	default:
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "not modelled for .%s", emu_ty[ty].name);
	}
}

/* mov/pack/unpack: {a, b} <-> wide register, element width = total / n */
static void
exec_mov(Run *r, Cta *c, Thread *t, const Insn *in, PtxType ty)
{
	const Opnd *d = &in->o[0], *a = &in->o[1];
	unsigned total = 8u * emu_ty[ty].bytes;
	if (a->kind == K_VEC) {
		unsigned w = total / a->n;
		uint64_t v = 0;
		for (unsigned i = 0; i < a->n; i++)
			v |= zx(opnd_get(r, c, t, vec_elem(r, a, i)), w)
			     << (w * i);
		reg_set(t, d, v, ty);
		return;
	}
	uint64_t v = opnd_get(r, c, t, a);
	if (d->kind == K_VEC) {
		unsigned w = total / d->n;
		for (unsigned i = 0; i < d->n; i++) {
			const Opnd *e = vec_elem(r, d, i);
			if (e->kind == K_REG)
				t->r[e->reg] = zx(v >> (w * i), w);
		}
		return;
	}
	reg_set(t, d, v, ty);
}

/* fns.b32 d, mask, base, offset (PTX ISA "fns"): the position of the
 * |offset|-th set bit of mask from bit base, searching up for a positive
 * offset and down for a negative one (base itself counts); offset 0 gives
 * base when that bit is set.  0xffffffff when there is none.  A base
 * above 31 is undefined in the ISA: refused. */
static uint32_t
find_nth_set(Run *r, Thread *t, const Insn *in, uint32_t mask, uint64_t base,
	     int32_t offset)
{
	if ((uint32_t)base > 31)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
			 "fns base %u is outside 0..31 (undefined in the PTX "
			 "ISA)", (uint32_t)base);
	int pos = (int)(uint32_t)base;
	if (offset == 0)
		return mask >> pos & 1 ? (uint32_t)pos : 0xffffffffu;
	int64_t count = offset > 0 ? offset : -(int64_t)offset;
	int step = offset > 0 ? 1 : -1;
	for (; pos >= 0 && pos < 32; pos += step)
		if (mask >> pos & 1 && --count == 0)
			return (uint32_t)pos;
	return 0xffffffffu;
}

/* add{.rnd}{.sat}.f32.{f16,bf16} d, a, c (PTX ISA 9.7.5.1, mixed
 * precision): a widened to f32 (exact), plus c, rounded once in .rnd
 * (.rn when absent); subnormals are kept (no .ftz form exists); .sat
 * clamps to [0, 1] with NaN to +0, as the f32 .sat does. */
static uint64_t
add_f32_mixed(const Insn *in, uint64_t a, uint64_t c)
{
	bool bf = in->ty[in->nty - 1] == PTY_BF16;
	double x = emu_small_to_double((uint32_t)a & 0xffff, bf ? 8 : 5,
				       bf ? 7 : 10);
	float r = f32_apply(F_ADD, (float)x, as_f32(c), 0, in->rnd);
	r = (float)clamp_result(in->fl & FL_SAT, r);
	return isnan(r) ? 0x7fffffffu : f32_bits(r);
}

static int
float_opcode(int op)
{
	switch (op) {
	case PTXMN_ADD: return F_ADD;
	case PTXMN_SUB: return F_SUB;
	case PTXMN_MUL: return F_MUL;
	case PTXMN_FMA: case PTXMN_MAD: return F_FMA;
	case PTXMN_DIV: return F_DIV;
	case PTXMN_MIN: return F_MIN;
	case PTXMN_MAX: return F_MAX;
	case PTXMN_ABS: return F_ABS;
	case PTXMN_NEG: return F_NEG;
	case PTXMN_RCP: return F_RCP;
	case PTXMN_SQRT: return F_SQRT;
	case PTXMN_RSQRT: return F_RSQRT;
	case PTXMN_EX2: return F_EX2;
	case PTXMN_LG2: return F_LG2;
	case PTXMN_SIN: return F_SIN;
	case PTXMN_COS: return F_COS;
	case PTXMN_TANH: return F_TANH;
	case PTXMN_COPYSIGN: return F_COPYSIGN;
	default: return -1;
	}
}

static uint64_t
src(Run *r, Cta *c, Thread *t, const Insn *in, unsigned i)
{
	return i < in->nop ? opnd_get(r, c, t, &in->o[i]) : 0;
}

void
exec_alu(Run *r, Cta *c, Thread *t, const Insn *in)
{
	if (in->op == PTXMN_CVT) { /* SCALAR's cvt.rXi of a float to a float */
		exec_cvt(r, c, t, in);
		return;
	}
	if (!in->nty || in->nop < 2 || in->o[0].kind == K_IMM)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "malformed instruction");
	PtxType ty = (PtxType)in->ty[in->nty - 1];
	if (in->op == PTXMN_MOV) {
		exec_mov(r, c, t, in, ty);
		return;
	}
	uint64_t a = src(r, c, t, in, 1), b = src(r, c, t, in, 2),
		 cc = src(r, c, t, in, 3);
	int cls = emu_ty[ty].cls;
	bool is_float = cls == TC_F || cls == TC_PAIR;
	if (in->op == PTXMN_SETP) {
		bool v = is_float ? compare_float(in->cmp, float_value(a, ty),
						  float_value(b, ty),
						  in->fl & FL_FTZ)
				  : compare_int(in->cmp, a, b, cls == TC_S,
						8u * emu_ty[ty].bytes);
		if (in->fl & FL_BOP_AND)
			v = v && cc;
		else if (in->fl & FL_BOP_OR)
			v = v || cc;
		else if (in->fl & FL_BOP_XOR)
			v = v != (cc != 0);
		reg_set(t, &in->o[0], v, PTY_PRED);
		return;
	}
	if (in->op == PTXMN_SELP) {
		reg_set(t, &in->o[0], cc ? a : b, ty);
		return;
	}
	if (in->op == PTXMN_LOP3) {
		uint32_t lut = (uint32_t)src(r, c, t, in, 4), v = 0;
		for (int i = 0; i < 32; i++) {
			uint32_t idx = ((uint32_t)(a >> i) & 1) << 2 |
				       ((uint32_t)(b >> i) & 1) << 1 |
				       ((uint32_t)(cc >> i) & 1);
			v |= ((lut >> idx) & 1u) << i;
		}
		reg_set(t, &in->o[0], v, ty);
		return;
	}
	if (in->op == PTXMN_BFI) {
		/* bfi d, f, b, pos, len: f's low len bits into b at pos */
		unsigned bits = 8u * emu_ty[ty].bytes;
		uint32_t pos = (uint32_t)cc & 0xff;
		uint32_t len = (uint32_t)src(r, c, t, in, 4) & 0xff;
		uint64_t v = b;
		for (unsigned i = 0; i < len && pos + i < bits; i++) {
			v &= ~(1ull << (pos + i));
			v |= ((a >> i) & 1) << (pos + i);
		}
		reg_set(t, &in->o[0], v, ty);
		return;
	}
	if (in->op == PTXMN_FNS) {
		reg_set(t, &in->o[0],
			find_nth_set(r, t, in, (uint32_t)a, b, (int32_t)cc),
			PTY_B32);
		return;
	}
	if (in->fam == PTXF_MISC && in->op == PTXMN_ADD) { /* add.f32.f16 */
		reg_set(t, &in->o[0], add_f32_mixed(in, a, b), PTY_F32);
		return;
	}
	if (is_float && in->op != PTXMN_AND && in->op != PTXMN_OR &&
	    in->op != PTXMN_XOR) {
		int fop = float_opcode(in->op);
		/* .sat/.relu/.xorsign are modelled for f32 and 16-bit types */
		if (fop < 0 || (elem_type(ty) == PTY_F64 &&
				(in->fl & (FL_XORSIGN | FL_RELU | FL_SAT))) ||
		    ((in->fl & FL_XORSIGN) && fop != F_MIN && fop != F_MAX))
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
				 "not modelled");
		reg_set(t, &in->o[0], float_op(in, fop, ty, a, b, cc), ty);
		return;
	}
	PtxType dty;
	uint64_t v = int_op(r, t, in, ty, a, b, cc, &dty);
	reg_set(t, &in->o[0], v, dty);
}

/* The new value of an atomic operation on old with operands b, c (the
 * PTX ISA's atom table); threads run one at a time here, so every
 * atomic is indivisible. */
uint64_t
emu_atom_apply(int aop, PtxType ty, uint64_t old, uint64_t b, uint64_t c)
{
	unsigned bits = 8u * emu_ty[ty].bytes;
	bool s = emu_ty[ty].cls == TC_S;
	old = zx(old, bits);
	b = zx(b, bits);
	switch (aop) {
	case AOP_AND: return old & b;
	case AOP_OR: return old | b;
	case AOP_XOR: return old ^ b;
	case AOP_EXCH: return b;
	case AOP_CAS: return old == b ? c : old;
	case AOP_INC: return old >= b ? 0 : old + 1;
	case AOP_DEC: return old == 0 || old > b ? b : old - 1;
	case AOP_MIN:
	case AOP_MAX: {
		bool less = s ? (int64_t)sx(old, bits) < (int64_t)sx(b, bits)
			      : old < b;
		return (aop == AOP_MIN) == less ? old : b;
	}
	default: /* AOP_ADD */
		if (ty == PTY_F32) {
			/* atom.add.f32: round to nearest even, subnormal
			 * inputs and results flushed to a signed zero */
			float x = ftz32(as_f32(old)),
			      y = ftz32(as_f32(b));
			float v = ftz32(x + y);
			return isnan(v) ? 0x7fffffffu : f32_bits(v);
		}
		if (ty == PTY_F64) {
			double v = as_f64(old) + as_f64(b);
			return isnan(v) ? F64_CANON_NAN : f64_bits(v);
		}
		return old + b;
	}
}

/* ---- cvt ---- */

/* NaN to an integer (the ISA leaves it open; H200, tools/emu_fuzz.py):
 * from f64, or to a 64-bit type, the top bit of the destination's width
 * (0x80, 0x8000, 0x80000000, 2^63; also with .sat); from f32 or f16 to a
 * narrower type 0. */
static uint64_t
nan_to_int(PtxType sty, PtxType dty)
{
	unsigned bits = 8u * emu_ty[dty].bytes;
	return sty == PTY_F64 || bits == 64 ? 1ull << (bits - 1) : 0;
}

/* .relu: negative values and -0 become +0 (H200: -0 too); NaN stays */
static double
relu(double x)
{
	return isnan(x) || !signbit(x) ? x : 0.0;
}

/* A NaN converted from f64 to f32 keeps its sign and the top of its
 * payload, quieted; from f32 to f64 it is 0x7fffffffe0000000 (H200);
 * other targets get to_float's canonical NaN. */
static uint64_t
nan_convert(uint64_t a, PtxType sty, PtxType dty, uint64_t canonical)
{
	if (sty == PTY_F32 && dty == PTY_F64) /* the f32 canonical NaN, widened */
		return 0x7fffffffe0000000ull;
	if (sty == PTY_F64 && dty == PTY_F32)
		return (a >> 63) << 31 | 0x7fc00000u | (a >> 29 & 0x7fffff);
	if (dty == PTY_F64)
		return 0x7fffffffffffffffull;
	return canonical;
}

static uint64_t
float_to_int(double v, PtxType dty, int rnd)
{
	if (isnan(v)) /* see nan_to_int */
		return 0;
	switch (rnd) {
	case RND_RZ: v = trunc(v); break;
	case RND_RM: v = floor(v); break;
	case RND_RP: v = ceil(v); break;
	default: v = nearbyint(v); break; /* host mode is nearest-even */
	}
	unsigned bits = 8u * emu_ty[dty].bytes;
	if (emu_ty[dty].cls == TC_S) {
		double lo = -ldexp(1, (int)bits - 1);
		double hi = ldexp(1, (int)bits - 1);
		if (v < lo)
			return (uint64_t)(int64_t)lo;
		if (v >= hi)
			return bits == 64 ? (uint64_t)INT64_MAX
					  : (uint64_t)(int64_t)(hi - 1);
		return (uint64_t)(int64_t)v;
	}
	if (v <= 0)
		return 0;
	if (v >= ldexp(1, (int)bits))
		return bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
	return (uint64_t)v;
}

/* v (already a finite or special double) to float type dty, mode rnd */
static uint64_t
to_float(double v, PtxType dty, int rnd, bool ftz)
{
	switch (dty) {
	case PTY_F64: return f64_bits(v);
	case PTY_F32: {
		uint32_t b = emu_round_small(v, rnd, 8, 23);
		if (isnan(v))
			b = 0x7fffffffu;
		if (ftz && (b & 0x7f800000u) == 0)
			b &= 0x80000000u;
		return b;
	}
	case PTY_F16: return emu_round_small(v, rnd, 5, 10);
	case PTY_BF16: return emu_round_small(v, rnd, 8, 7);
	default: return 0;
	}
}

/* A 64-bit integer to double loses bits; round it to the target through
 * an exact split instead (hi part exact, lo part exact, one rounding). */
static uint64_t
int_to_float(uint64_t v, bool is_signed, PtxType dty, int rnd)
{
	bool neg = is_signed && (int64_t)v < 0;
	uint64_t m = neg ? (uint64_t)0 - v : v;
	if (m < (1ull << 53))
		return to_float(neg ? -(double)m : (double)m, dty, rnd, false);
	/* keep 53 significant bits and a sticky bit: the result rounds
	 * the same as the exact value for every target of <= 52 bits */
	int shift = 64 - __builtin_clzll(m) - 53;
	uint64_t kept = m >> shift;
	bool sticky = (m & ((1ull << shift) - 1)) != 0;
	kept = (kept & ~1ull) | (sticky || (kept & 1));
	double d = ldexp((double)kept, shift);
	if (dty == PTY_F64) {
		int old = fegetround();
		fesetround(fenv_mode(rnd));
		volatile int64_t sv = (int64_t)v;
		volatile uint64_t uv = v;
		volatile double x = is_signed ? (double)sv : (double)uv;
		fesetround(old);
		return f64_bits(x);
	}
	return to_float(neg ? -d : d, dty, rnd, false);
}

/* x rounded to e4m3 (bias 7, 3 mantissa bits, no infinities: the
 * largest finite value 448, NaN S.1111.111) in mode rnd, |x| above 448
 * saturating to 448 (.satfinite, the only form the ISA has). */
static uint32_t
to_e4m3_satfinite(double x, int rnd)
{
	uint32_t s = signbit(x) ? 0x80 : 0;
	if (isnan(x))
		return 0x7f;
	double a = fabs(x);
	if (a == 0)
		return s;
	int e;
	frexp(a, &e);
	e -= 1; /* a in [2^e, 2^(e+1)) */
	if (e < -6)
		e = -6; /* subnormals: quantum 2^-9 */
	double q = ldexp(1, e - 3), n = a / q, fl = floor(n), rem = n - fl;
	bool up = rnd == RND_RZ ? false
		  : rnd == RND_RM ? s && rem > 0
		  : rnd == RND_RP ? !s && rem > 0
				  : rem > 0.5 || (rem == 0.5 && fmod(fl, 2) == 1);
	double v = (fl + up) * q;
	if (v >= 448)
		return s | 0x7e;
	if (v < ldexp(1, -6))
		return s | (uint32_t)(v / ldexp(1, -9));
	frexp(v, &e);
	e -= 1;
	return s | (uint32_t)(e + 7) << 3 | (uint32_t)(v / ldexp(1, e - 3) - 8);
}

/* .satfinite to f16, bf16 or e5m2: out of range becomes the largest
 * finite value of the sign, NaN the type's NaN; e4m3 above. */
static uint32_t
to_small_satfinite(double x, PtxType dty, int rnd)
{
	if (dty == PTY_E4M3X2)
		return to_e4m3_satfinite(x, rnd);
	int eb = dty == PTY_F16 ? 5 : dty == PTY_BF16 ? 8 : 5;
	int mb = dty == PTY_F16 ? 10 : dty == PTY_BF16 ? 7 : 2;
	uint32_t v = emu_round_small(x, rnd, eb, mb);
	uint32_t sign = 1u << (eb + mb), inf = ((1u << eb) - 1) << mb;
	if ((v & (sign - 1)) == inf) /* infinity: the largest finite */
		v = (v & sign) | (inf - 1);
	return v;
}

/* cvt to a pair: .f16x2/.bf16x2/.e4m3x2/.e5m2x2 from two f32 (the first
 * source in the upper half), .e4m3x2/.e5m2x2 from .f16x2, and .f16x2 from
 * .e4m3x2/.e5m2x2 (exact); .relu and .satfinite as stated. */
static uint64_t
cvt_pair(Run *r, Cta *c, Thread *t, const Insn *in, PtxType dty, PtxType sty,
	 uint64_t a, int rnd)
{
	bool fp8 = dty == PTY_E4M3X2 || dty == PTY_E5M2X2;
	unsigned w = fp8 ? 8 : 16;
	double hi, lo;
	if (sty == PTY_F32 && in->nop == 3) {
		hi = as_f32(a);
		lo = as_f32(opnd_get(r, c, t, &in->o[2]));
	} else if (fp8 && sty == PTY_F16X2 && in->nop == 2) {
		hi = emu_small_to_double((uint32_t)(a >> 16) & 0xffff, 5, 10);
		lo = emu_small_to_double((uint32_t)a & 0xffff, 5, 10);
	} else if (dty == PTY_F16X2 && in->nop == 2 &&
		   (sty == PTY_E4M3X2 || sty == PTY_E5M2X2)) {
		bool e4 = sty == PTY_E4M3X2;
		hi = e4 ? emu_e4m3_to_double((uint32_t)(a >> 8) & 0xff)
			: emu_small_to_double((uint32_t)(a >> 8) & 0xff, 5, 2);
		lo = e4 ? emu_e4m3_to_double((uint32_t)a & 0xff)
			: emu_small_to_double((uint32_t)a & 0xff, 5, 2);
	} else {
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "not modelled");
	}
	if (in->fl & FL_RELU) {
		hi = relu(hi);
		lo = relu(lo);
	}
	if (fp8 || (in->fl & FL_SATFINITE)) {
		PtxType et = fp8 ? dty : elem_type(dty);
		return to_small_satfinite(lo, et, rnd) |
		       (uint64_t)to_small_satfinite(hi, et, rnd) << w;
	}
	PtxType et = elem_type(dty);
	return to_float(lo, et, rnd, false) | to_float(hi, et, rnd, false) << 16;
}

void
exec_cvt(Run *r, Cta *c, Thread *t, const Insn *in)
{
	if (in->nty != 2 || in->nop < 2)
		emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "malformed cvt");
	PtxType dty = (PtxType)in->ty[0], sty = (PtxType)in->ty[1];
	int dcls = emu_ty[dty].cls, scls = emu_ty[sty].cls;
	int rnd = in->rnd ? in->rnd : RND_RN;
	bool ftz = in->fl & FL_FTZ;
	uint64_t a = opnd_get(r, c, t, &in->o[1]);
	if (dcls == TC_PAIR) {
		reg_set(t, &in->o[0], cvt_pair(r, c, t, in, dty, sty, a, rnd),
			PTY_B32);
		return;
	}
	if (in->fl & FL_SATFINITE) {
		/* cvt.{rn,rz}{.relu}.satfinite.{bf16,f16}.f32 */
		if (sty != PTY_F32 || (dty != PTY_BF16 && dty != PTY_F16))
			emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "not modelled");
		double x = as_f32(a);
		reg_set(t, &in->o[0],
			to_small_satfinite(in->fl & FL_RELU ? relu(x) : x, dty,
					   rnd),
			dty);
		return;
	}
	unsigned sbits = 8u * emu_ty[sty].bytes;
	uint64_t v;
	if (scls != TC_F && dcls != TC_F) {
		/* integer to integer: extend by the source type, then
		 * truncate (or clamp with .sat) to the destination */
		int64_t x = scls == TC_S ? (int64_t)sx(a, sbits) : 0;
		uint64_t ux = zx(a, sbits);
		v = scls == TC_S ? (uint64_t)x : ux;
		if (in->fl & FL_SAT) {
			unsigned db = 8u * emu_ty[dty].bytes;
			double val = scls == TC_S ? (double)x : (double)ux;
			if (scls == TC_S && dcls != TC_S && x < 0)
				v = 0;
			else if (dcls == TC_S && db < 64 &&
				 val > ldexp(1, (int)db - 1) - 1)
				v = (1ull << (db - 1)) - 1;
			else if (dcls == TC_S && db < 64 && x < -(int64_t)(1ull << (db - 1)))
				v = (uint64_t)-(int64_t)(1ull << (db - 1));
			else if (dcls != TC_S && db < 64 && ux >= (1ull << db) &&
				 scls != TC_S)
				v = (1ull << db) - 1;
			else if (dcls != TC_S && db < 64 && scls == TC_S &&
				 (uint64_t)x >= (1ull << db))
				v = (1ull << db) - 1;
			else if (dcls == TC_S && db == 64 && scls != TC_S &&
				 ux > (uint64_t)INT64_MAX)
				v = (uint64_t)INT64_MAX;
		}
	} else if (scls != TC_F) {
		uint64_t iv = scls == TC_S ? sx(a, sbits) : zx(a, sbits);
		if (in->fl & FL_SAT) /* [0, 1]: an integer is then 0 or 1 */
			iv = scls == TC_S && (int64_t)iv < 0 ? 0 : iv != 0;
		v = int_to_float(iv, scls == TC_S, dty, rnd);
	} else {
		double x = float_value(a, sty);
		if (ftz && sty == PTY_F32 && fpclassify((float)x) == FP_SUBNORMAL)
			x = copysign(0, x);
		if (dcls != TC_F) {
			if (!(in->fl & FL_RINT))
				emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in,
					 "float to integer needs .rni/.rzi/"
					 ".rmi/.rpi");
			v = isnan(x) ? nan_to_int(sty, dty)
				     : float_to_int(x, dty, in->rnd);
		} else {
			if (in->fl & FL_RINT) {
				/* round to an integral value in the same
				 * format */
				x = isnan(x) ? x
				    : in->rnd == RND_RZ ? trunc(x)
				    : in->rnd == RND_RM ? floor(x)
				    : in->rnd == RND_RP ? ceil(x)
							: nearbyint(x);
				rnd = RND_RN;
			}
			if (in->fl & FL_SAT)
				x = isnan(x) ? 0 : signbit(x) ? 0 : x > 1 ? 1 : x;
			if (in->fl & FL_RELU)
				x = relu(x);
			v = to_float(x, dty, rnd, ftz);
			if (isnan(x))
				v = nan_convert(a, sty, dty, v);
			if (sty == PTY_BF16 && dty == PTY_F32)
				v = (a & 0xffff) << 16; /* exact, NaNs too */
		}
	}
	reg_set(t, &in->o[0], v, dty);
}
