/*
 * expr.c - scalar expressions to PTX instructions.
 *
 * Input: a typed IR expression; output: a Val (register or immediate).
 * Integer constants fold through arithmetic so that unrolled loop indices
 * and address offsets stay immediates.  Semantics: `/` truncates, `//`
 * and `%` are Python's floor division and floor modulo (signed types get
 * a correction sequence, unsigned ones plain div/rem); comparisons use
 * the operand signedness; float16/bfloat16 arithmetic runs in float32
 * and rounds once back (exact for + - * / since f32 has more than twice
 * their precision); 8-bit integers live in 16-bit registers, kept sign-
 * or zero-extended after every operation.
 */
#include <math.h>
#include <string.h>

#include "codegen/codegen.h"

/* Instruction type suffix for arithmetic on dtype t ("s32", "u16",
 * "f32"); 8-bit integers compute in their 16-bit registers. */
static const char *
arith_suffix(DType t)
{
	if (dtype_is_float(t))
		return dtype_bits(t) == 64 ? "f64" : "f32";
	if (t == DT_BOOL)
		return "pred";
	int bits = dtype_bits(t) < 16 ? 16 : dtype_bits(t);
	bool s = dtype_is_signed(t);
	switch (bits) {
	case 16: return s ? "s16" : "u16";
	case 32: return s ? "s32" : "u32";
	default: return s ? "s64" : "u64";
	}
}

static const char *
bits_suffix(DType t)
{
	int bits = dtype_bits(t) < 16 ? 16 : dtype_bits(t);
	return bits == 16 ? "b16" : bits == 32 ? "b32" : "b64";
}

/* Wraps integer x to the width and signedness of t. */
static int64_t
wrap_int(int64_t x, DType t)
{
	int bits = dtype_bits(t);
	if (t == DT_BOOL)
		return x != 0;
	if (bits >= 64)
		return x;
	uint64_t u = (uint64_t)x & ((UINT64_C(1) << bits) - 1);
	if (dtype_is_signed(t) && (u >> (bits - 1)))
		u |= ~((UINT64_C(1) << bits) - 1);
	return (int64_t)u;
}

/* Re-extends an 8-bit value held in a 16-bit register. */
static Val
norm8(Gen *g, Val v)
{
	if (v.imm || dtype_bits(v.dt) != 8)
		return v;
	Val d = gen_reg(g, v.dt);
	if (dtype_is_signed(v.dt))
		gen_emit(g, "cvt.s16.s8 %s, %s;", d.s, v.s);
	else
		gen_emit(g, "and.b16 %s, %s, 255;", d.s, v.s);
	return d;
}

static Val
emit_bin(Gen *g, const char *op, const char *sfx, Val a, Val b, DType t)
{
	Val d = gen_reg(g, t);
	gen_emit(g, "%s.%s %s, %s, %s;", op, sfx, d.s, a.s, b.s);
	return d;
}

static int64_t
floordiv64(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static int64_t
floormod64(int64_t a, int64_t b)
{
	int64_t r = a % b;
	if (r != 0 && ((r < 0) != (b < 0)))
		r += b;
	return r;
}

/* Folds an integer operation on two immediates; false when it cannot. */
static bool
fold_int(BinOp op, int64_t a, int64_t b, DType t, int64_t *out)
{
	bool s = dtype_is_signed(t);
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
	uint64_t mask = dtype_bits(t) >= 64 ? ~UINT64_C(0)
		: (UINT64_C(1) << dtype_bits(t)) - 1;
	switch (op) {
	case BIN_ADD: *out = (int64_t)(ua + ub); break;
	case BIN_SUB: *out = (int64_t)(ua - ub); break;
	case BIN_MUL: *out = (int64_t)(ua * ub); break;
	case BIN_DIV:
	case BIN_FLOORDIV:
	case BIN_MOD:
		if (b == 0 || (s && b == -1 && a == INT64_MIN))
			return false;
		if (!s) {
			ua &= mask, ub &= mask;
			*out = (int64_t)(op == BIN_MOD ? ua % ub : ua / ub);
		} else if (op == BIN_DIV) {
			*out = a / b;
		} else {
			*out = op == BIN_MOD ? floormod64(a, b)
					     : floordiv64(a, b);
		}
		break;
	case BIN_SHL: *out = b >= 64 ? 0 : (int64_t)(ua << b); break;
	case BIN_SHR:
		if (b >= 64 || b < 0)
			return false;
		*out = s ? a >> b : (int64_t)((ua & mask) >> b);
		break;
	case BIN_BAND: *out = a & b; break;
	case BIN_BOR: *out = a | b; break;
	case BIN_BXOR: *out = a ^ b; break;
	default: return false;
	}
	*out = wrap_int(*out, t);
	return true;
}

Val
gen_ibin(Gen *g, const char *op, Val a, Val b)
{
	DType t = a.dt;
	bool bitwise = !strcmp(op, "and") || !strcmp(op, "or") ||
		       !strcmp(op, "xor") || !strcmp(op, "shl");
	a = gen_in_reg(g, a);
	return norm8(g, emit_bin(g, op, bitwise ? bits_suffix(t)
				 : arith_suffix(t), a, b, t));
}

Val
gen_iadd(Gen *g, Val a, Val b)
{
	int64_t r;
	if (a.imm && b.imm && fold_int(BIN_ADD, a.i, b.i, a.dt, &r))
		return val_int(g, r, a.dt);
	if (b.imm && b.i == 0)
		return a;
	if (a.imm && a.i == 0)
		return b;
	return gen_ibin(g, "add", a, b);
}

Val
gen_imul(Gen *g, Val a, Val b)
{
	int64_t r;
	if (a.imm && b.imm && fold_int(BIN_MUL, a.i, b.i, a.dt, &r))
		return val_int(g, r, a.dt);
	if (b.imm && b.i == 1)
		return a;
	if (a.imm && a.i == 1)
		return b;
	if ((a.imm && a.i == 0) || (b.imm && b.i == 0))
		return val_int(g, 0, a.dt);
	if (a.imm)
		return gen_ibin(g, "mul.lo", b, a);
	return gen_ibin(g, "mul.lo", a, b);
}

static bool
is_pow2(int64_t v)
{
	return v > 0 && (v & (v - 1)) == 0;
}

static int
log2i(int64_t v)
{
	int k = 0;
	while ((INT64_C(1) << k) < v)
		k++;
	return k;
}

/* Python floor division / modulo for signed registers:
 * q = a / b; r = a % b; if (r != 0 && (r ^ b) < 0) { q -= 1; r += b; } */
static Val
floor_divmod(Gen *g, Val a, Val b, bool want_mod)
{
	DType t = a.dt;
	const char *sx = arith_suffix(t), *bx = bits_suffix(t);
	a = gen_in_reg(g, a);
	Val q = emit_bin(g, "div", sx, a, b, t);
	Val r = emit_bin(g, "rem", sx, a, b, t);
	Val x = emit_bin(g, "xor", bx, r, b, t);
	Val p1 = gen_reg(g, DT_BOOL), p2 = gen_reg(g, DT_BOOL);
	gen_emit(g, "setp.ne.%s %s, %s, 0;", sx, p1.s, r.s);
	gen_emit(g, "setp.lt.%s %s, %s, 0;", sx, p2.s, x.s);
	gen_emit(g, "and.pred %s, %s, %s;", p1.s, p1.s, p2.s);
	Val d = gen_reg(g, t);
	if (want_mod) {
		Val s = emit_bin(g, "add", sx, r, b, t);
		gen_emit(g, "selp.%s %s, %s, %s, %s;", bx, d.s, s.s, r.s, p1.s);
	} else {
		Val s = emit_bin(g, "sub", sx, q, val_int(g, 1, t), t);
		gen_emit(g, "selp.%s %s, %s, %s, %s;", bx, d.s, s.s, q.s, p1.s);
	}
	return norm8(g, d);
}

static Val
int_divmod(Gen *g, BinOp op, Val a, Val b)
{
	DType t = a.dt;
	bool s = dtype_is_signed(t);
	if (b.imm && is_pow2(b.i) && op != BIN_DIV) {
		/* arithmetic shift and mask are floor division and modulo */
		if (op == BIN_MOD)
			return gen_ibin(g, "and",
					gen_in_reg(g, a), val_int(g, b.i - 1, t));
		Val d = gen_reg(g, t);
		gen_emit(g, "shr.%s %s, %s, %d;", arith_suffix(t), d.s,
			 gen_in_reg(g, a).s, log2i(b.i));
		return d;
	}
	if (!s || op == BIN_DIV)
		return gen_ibin(g, op == BIN_MOD ? "rem" : "div", a, b);
	return floor_divmod(g, a, b, op == BIN_MOD);
}

static Val
int_binary(Gen *g, BinOp op, Val a, Val b, Span sp)
{
	DType t = a.dt;
	int64_t r;
	if (a.imm && b.imm && fold_int(op, a.i, b.i, t, &r))
		return val_int(g, r, t);
	switch (op) {
	case BIN_ADD: return gen_iadd(g, a, b);
	case BIN_SUB: return gen_ibin(g, "sub", a, b);
	case BIN_MUL: return gen_imul(g, a, b);
	case BIN_DIV:
	case BIN_FLOORDIV:
	case BIN_MOD:
		return int_divmod(g, op, a, b);
	case BIN_SHL:
	case BIN_SHR: {
		Val n = gen_convert(g, b, DT_UINT32, sp);
		Val d = gen_reg(g, t);
		const char *sx = op == BIN_SHL ? bits_suffix(t)
					       : arith_suffix(t);
		gen_emit(g, "%s.%s %s, %s, %s;", op == BIN_SHL ? "shl" : "shr",
			 sx, d.s, gen_in_reg(g, a).s, n.s);
		return norm8(g, d);
	}
	case BIN_BAND:
	case BIN_BOR:
	case BIN_BXOR: {
		const char *o = op == BIN_BAND ? "and"
				: op == BIN_BOR ? "or" : "xor";
		return emit_bin(g, o, bits_suffix(t), gen_in_reg(g, a), b, t);
	}
	default:
		return gen_error(g, PT_E_CODEGEN_DTYPE, sp,
				 "operator not defined on %s", dtype_name(t));
	}
}

/* The float32 (or float64) working type of a float dtype. */
static DType
work_float(DType t)
{
	return t == DT_FLOAT64 ? DT_FLOAT64 : DT_FLOAT32;
}

static Val
float_floor(Gen *g, Val v)
{
	Val d = gen_reg(g, v.dt);
	gen_emit(g, "cvt.rmi.%s.%s %s, %s;", arith_suffix(v.dt),
		 arith_suffix(v.dt), d.s, v.s);
	return d;
}

static Val
float_binary(Gen *g, BinOp op, Val a, Val b, Span sp)
{
	DType t = a.dt, w = work_float(t);
	const char *sx = arith_suffix(w);
	a = gen_in_reg(g, gen_convert(g, a, w, sp));
	b = gen_convert(g, b, w, sp);
	if (b.imm)
		b = val_float(g, b.f, w);
	Val d;
	switch (op) {
	case BIN_ADD: d = emit_bin(g, "add", sx, a, b, w); break;
	case BIN_SUB: d = emit_bin(g, "sub", sx, a, b, w); break;
	case BIN_MUL: d = emit_bin(g, "mul", sx, a, b, w); break;
	case BIN_DIV: d = emit_bin(g, "div.rn", sx, a, b, w); break;
	case BIN_FLOORDIV:
		d = float_floor(g, emit_bin(g, "div.rn", sx, a, b, w));
		break;
	case BIN_MOD: {
		Val q = float_floor(g, emit_bin(g, "div.rn", sx, a, b, w));
		Val m = emit_bin(g, "mul", sx, q, b, w);
		d = emit_bin(g, "sub", sx, a, m, w);
		break;
	}
	default:
		return gen_error(g, PT_E_CODEGEN_DTYPE, sp,
				 "operator not defined on %s", dtype_name(t));
	}
	return gen_convert(g, d, t, sp);
}

static const char *
cmp_name(BinOp op, bool is_float)
{
	switch (op) {
	case BIN_LT: return "lt";
	case BIN_LE: return "le";
	case BIN_GT: return "gt";
	case BIN_GE: return "ge";
	case BIN_EQ: return "eq";
	default: return is_float ? "neu" : "ne"; /* nan != x is true */
	}
}

static bool
fold_cmp(BinOp op, Val a, Val b, bool *out)
{
	bool fl = dtype_is_float(a.dt);
	double x = fl ? a.f : (double)a.i, y = fl ? b.f : (double)b.i;
	bool u = dtype_kind(a.dt) == DK_UINT && dtype_bits(a.dt) == 64;
	if (!fl && !u) {
		int64_t p = a.i, q = b.i;
		*out = op == BIN_LT ? p < q : op == BIN_LE ? p <= q
			: op == BIN_GT ? p > q : op == BIN_GE ? p >= q
			: op == BIN_EQ ? p == q : p != q;
		return true;
	}
	if (u)
		return false;
	*out = op == BIN_LT ? x < y : op == BIN_LE ? x <= y
		: op == BIN_GT ? x > y : op == BIN_GE ? x >= y
		: op == BIN_EQ ? x == y : x != y;
	return true;
}

static Val
pred_logic(Gen *g, const char *op, Val a, Val b)
{
	return emit_bin(g, op, "pred", gen_in_reg(g, a), gen_in_reg(g, b),
			DT_BOOL);
}

static Val
compare(Gen *g, BinOp op, Val a, Val b, Span sp)
{
	bool r;
	DType t = a.imm && !b.imm ? b.dt : a.dt;
	a = gen_convert(g, a, t, sp);
	b = gen_convert(g, b, t, sp);
	if (a.imm && b.imm && fold_cmp(op, a, b, &r))
		return val_int(g, r, DT_BOOL);
	if (t == DT_BOOL) {
		Val x = pred_logic(g, "xor", a, b);
		if (op == BIN_NE)
			return x;
		Val d = gen_reg(g, DT_BOOL);
		gen_emit(g, "not.pred %s, %s;", d.s, x.s);
		return d;
	}
	if (dtype_is_float(t)) {
		DType w = work_float(t);
		a = gen_convert(g, a, w, sp);
		b = gen_convert(g, b, w, sp);
		if (a.imm)
			a = val_float(g, a.f, w);
		if (b.imm)
			b = val_float(g, b.f, w);
	}
	Val d = gen_reg(g, DT_BOOL);
	gen_emit(g, "setp.%s.%s %s, %s, %s;", cmp_name(op, dtype_is_float(t)),
		 arith_suffix(a.dt), d.s, gen_in_reg(g, a).s, b.s);
	return d;
}

static Val
bool_binary(Gen *g, BinOp op, Val a, Val b)
{
	if (a.imm && b.imm) {
		int64_t r = op == BIN_LAND || op == BIN_BAND ? a.i && b.i
			: op == BIN_LOR || op == BIN_BOR ? a.i || b.i
			: a.i != b.i;
		return val_int(g, r, DT_BOOL);
	}
	if (op == BIN_LAND || op == BIN_BAND) {
		if (a.imm)
			return a.i ? b : a;
		if (b.imm)
			return b.i ? a : b;
		return pred_logic(g, "and", a, b);
	}
	if (op == BIN_LOR || op == BIN_BOR) {
		if (a.imm)
			return a.i ? a : b;
		if (b.imm)
			return b.i ? b : a;
		return pred_logic(g, "or", a, b);
	}
	return pred_logic(g, "xor", a, b);
}

static bool
is_compare(BinOp op)
{
	return op >= BIN_LT && op <= BIN_NE;
}

static Val
gen_binary(Gen *g, const Expr *e)
{
	BinOp op = (BinOp)e->u.op.op;
	Val a = gen_expr(g, e->u.op.a), b = gen_expr(g, e->u.op.b);
	if (is_compare(op))
		return compare(g, op, a, b, e->span);
	DType t = e->dtype;
	if (op == BIN_LAND || op == BIN_LOR || t == DT_BOOL)
		return bool_binary(g, op, gen_convert(g, a, DT_BOOL, e->span),
				   gen_convert(g, b, DT_BOOL, e->span));
	a = gen_convert(g, a, t, e->span);
	if (op != BIN_SHL && op != BIN_SHR)
		b = gen_convert(g, b, t, e->span);
	if (dtype_is_float(t))
		return float_binary(g, op, a, b, e->span);
	if (dtype_bits(t) < 8)
		return gen_error(g, PT_E_CODEGEN_DTYPE, e->span,
				 "no arithmetic on %s", dtype_name(t));
	return int_binary(g, op, a, b, e->span);
}

static Val
gen_unary(Gen *g, const Expr *e)
{
	Val a = gen_convert(g, gen_expr(g, e->u.op.a), e->dtype, e->span);
	DType t = e->dtype;
	UnOp op = (UnOp)e->u.op.op;
	if (op == UN_LNOT || t == DT_BOOL) {
		a = gen_convert(g, a, DT_BOOL, e->span);
		if (a.imm)
			return val_int(g, !a.i, DT_BOOL);
		Val d = gen_reg(g, DT_BOOL);
		gen_emit(g, "not.pred %s, %s;", d.s, a.s);
		return d;
	}
	if (a.imm && dtype_is_float(t))
		return val_float(g, op == UN_NEG ? -a.f : a.f, t);
	if (a.imm)
		return val_int(g, wrap_int(op == UN_NEG ? -a.i : ~a.i, t), t);
	Val d = gen_reg(g, t);
	if (op == UN_BNOT)
		gen_emit(g, "not.%s %s, %s;", bits_suffix(t), d.s, a.s);
	else if (dtype_bits(t) == 16 && dtype_is_float(t))
		gen_emit(g, "xor.b16 %s, %s, 0x8000;", d.s, a.s);
	else
		gen_emit(g, "neg.%s %s, %s;",
			 dtype_is_float(t) ? arith_suffix(t)
			 : dtype_bits(t) == 64 ? "s64"
			 : dtype_bits(t) == 32 ? "s32" : "s16", d.s, a.s);
	return norm8(g, d);
}

/* ---- conversions ---- */

static Val
convert_imm(Gen *g, Val v, DType t)
{
	if (dtype_is_float(t))
		return val_float(g, dtype_is_float(v.dt) ? v.f : (double)v.i,
				 t);
	if (t == DT_BOOL)
		return val_int(g, dtype_is_float(v.dt) ? v.f != 0 : v.i != 0,
			       t);
	if (dtype_is_float(v.dt)) {
		double x = trunc(v.f);
		return val_int(g, wrap_int(isfinite(x) && fabs(x) < 9e18
						   ? (int64_t)x : 0, t), t);
	}
	return val_int(g, wrap_int(v.i, t), t);
}

static Val
retag(Val v, DType t)
{
	v.dt = t;
	return v;
}

static Val
int_to_int(Gen *g, Val v, DType t)
{
	int sw = dtype_bits(v.dt) < 16 ? 16 : dtype_bits(v.dt);
	int dw = dtype_bits(t) < 16 ? 16 : dtype_bits(t);
	if (sw != dw) {
		Val d = gen_reg(g, t);
		const char *src = sw < dw ? arith_suffix(v.dt)
			: sw == 32 ? "u32" : "u64";
		const char *dst = dw == 16 ? "u16" : dw == 32 ? "u32" : "u64";
		gen_emit(g, "cvt.%s.%s %s, %s;", dst, src, d.s, v.s);
		v = d;
	}
	v.dt = t;
	if (dtype_bits(t) == 8)
		return norm8(g, v);
	return v;
}

/* bfloat16 bits in the high half of a 32-bit word are that float32. */
static Val
bf16_to_f32(Gen *g, Val v)
{
	Val w = gen_reg(g, DT_UINT32), d = gen_reg(g, DT_FLOAT32);
	gen_emit(g, "cvt.u32.u16 %s, %s;", w.s, v.s);
	gen_emit(g, "shl.b32 %s, %s, 16;", w.s, w.s);
	gen_emit(g, "mov.b32 %s, %s;", d.s, w.s);
	return d;
}

static Val
float_to_float(Gen *g, Val v, DType t)
{
	if (v.dt == DT_BFLOAT16)
		v = bf16_to_f32(g, v);
	if (v.dt == DT_TF32)
		v = retag(v, DT_FLOAT32);
	if (v.dt == t)
		return v;
	if (t == DT_TF32)
		return retag(v.dt == DT_FLOAT32 ? v
				 : float_to_float(g, v, DT_FLOAT32), t);
	if (t == DT_BFLOAT16 && v.dt != DT_FLOAT32)
		v = float_to_float(g, v, DT_FLOAT32);
	Val d = gen_reg(g, t);
	bool narrowing = dtype_bits(t) < dtype_bits(v.dt);
	const char *dn = t == DT_FLOAT16 ? "f16" : t == DT_BFLOAT16 ? "bf16"
		: arith_suffix(t);
	const char *sn = v.dt == DT_FLOAT16 ? "f16" : arith_suffix(v.dt);
	gen_emit(g, "cvt%s.%s.%s %s, %s;", narrowing ? ".rn" : "", dn, sn,
		 d.s, v.s);
	return d;
}

static Val
int_to_float(Gen *g, Val v, DType t)
{
	if (t == DT_BFLOAT16 || t == DT_TF32)
		return float_to_float(g, int_to_float(g, v, DT_FLOAT32), t);
	Val d = gen_reg(g, t);
	const char *dn = t == DT_FLOAT16 ? "f16" : arith_suffix(t);
	gen_emit(g, "cvt.rn.%s.%s %s, %s;", dn, arith_suffix(v.dt), d.s, v.s);
	return d;
}

static Val
float_to_int(Gen *g, Val v, DType t)
{
	if (v.dt == DT_BFLOAT16 || v.dt == DT_TF32)
		v = float_to_float(g, v, DT_FLOAT32);
	DType mid = dtype_bits(t) == 64 ? t
		: dtype_is_signed(t) ? DT_INT32 : DT_UINT32;
	Val d = gen_reg(g, mid);
	const char *sn = v.dt == DT_FLOAT16 ? "f16" : arith_suffix(v.dt);
	gen_emit(g, "cvt.rzi.%s.%s %s, %s;", arith_suffix(mid), sn, d.s, v.s);
	return int_to_int(g, d, t);
}

static Val
to_bool(Gen *g, Val v)
{
	Val d = gen_reg(g, DT_BOOL);
	if (dtype_is_float(v.dt)) {
		v = float_to_float(g, v, work_float(v.dt));
		gen_emit(g, "setp.neu.%s %s, %s, 0%s;", arith_suffix(v.dt),
			 d.s, v.s, v.dt == DT_FLOAT64 ? "d0000000000000000"
			 : "f00000000");
	} else {
		gen_emit(g, "setp.ne.%s %s, %s, 0;", arith_suffix(v.dt), d.s,
			 v.s);
	}
	return d;
}

static Val
from_bool(Gen *g, Val v, DType t)
{
	Val one = dtype_is_float(t) ? val_float(g, 1.0, t) : val_int(g, 1, t);
	Val zero = dtype_is_float(t) ? val_float(g, 0.0, t) : val_int(g, 0, t);
	Val d = gen_reg(g, t);
	const char *sx = dtype_is_float(t) && dtype_bits(t) > 16
		? arith_suffix(t) : bits_suffix(t);
	gen_emit(g, "selp.%s %s, %s, %s, %s;", sx, d.s, one.s, zero.s, v.s);
	return d;
}

static bool
convertible(DType t)
{
	return t == DT_BOOL || dtype_is_int(t) || t == DT_FLOAT16 ||
	       t == DT_BFLOAT16 || t == DT_FLOAT32 || t == DT_FLOAT64 ||
	       t == DT_TF32;
}

Val
gen_convert(Gen *g, Val v, DType t, Span sp)
{
	if (v.dt == t || t == DT_NONE)
		return v;
	if (!convertible(v.dt) || !convertible(t) ||
	    (dtype_is_int(t) && dtype_bits(t) < 8))
		return gen_error(g, PT_E_CODEGEN_CAST, sp,
				 "no conversion from %s to %s",
				 dtype_name(v.dt), dtype_name(t));
	if (v.imm)
		return convert_imm(g, v, t);
	if (t == DT_BOOL)
		return to_bool(g, v);
	if (v.dt == DT_BOOL)
		return from_bool(g, v, t);
	if (dtype_is_int(v.dt))
		return dtype_is_int(t) ? int_to_int(g, v, t)
				       : int_to_float(g, v, t);
	return dtype_is_int(t) ? float_to_int(g, v, t)
			       : float_to_float(g, v, t);
}

static Val
gen_reinterpret(Gen *g, const Expr *e)
{
	Val v = gen_expr(g, e->u.op.a);
	DType t = e->dtype;
	if (dtype_bits(v.dt) != dtype_bits(t) || t == DT_BOOL ||
	    v.dt == DT_BOOL)
		return gen_error(g, PT_E_CODEGEN_CAST, e->span,
				 "cannot reinterpret %s as %s",
				 dtype_name(v.dt), dtype_name(t));
	v = gen_in_reg(g, v);
	if (rc_of(v.dt) == rc_of(t))
		return retag(v, t);
	Val d = gen_reg(g, t);
	gen_emit(g, "mov.b%d %s, %s;", dtype_bits(t), d.s, v.s);
	return d;
}

Val
gen_cond(Gen *g, const Expr *e)
{
	return gen_convert(g, gen_expr(g, e), DT_BOOL, e->span);
}

static Val
gen_select(Gen *g, const Expr *e)
{
	Val c = gen_cond(g, e->u.op.a);
	DType t = e->dtype;
	if (c.imm)
		return gen_convert(g, gen_expr(g, c.i ? e->u.op.b : e->u.op.c),
				   t, e->span);
	Val a = gen_convert(g, gen_expr(g, e->u.op.b), t, e->span);
	Val b = gen_convert(g, gen_expr(g, e->u.op.c), t, e->span);
	if (t == DT_BOOL) {
		Val nc = gen_reg(g, DT_BOOL);
		gen_emit(g, "not.pred %s, %s;", nc.s, c.s);
		return pred_logic(g, "or", pred_logic(g, "and", c, a),
				  pred_logic(g, "and", nc, b));
	}
	Val d = gen_reg(g, t);
	const char *sx = dtype_is_float(t) && dtype_bits(t) > 16
		? arith_suffix(t) : bits_suffix(t);
	gen_emit(g, "selp.%s %s, %s, %s, %s;", sx, d.s, a.s, b.s, c.s);
	return d;
}

bool
gen_const_int(Gen *g, const Expr *e, int64_t *v)
{
	if (ir_const_int(e, v))
		return true;
	if (e->kind == EX_VAR) {
		Val *b = gen_var(g, e->u.var);
		if (b && b->imm && !dtype_is_float(b->dt)) {
			*v = b->i;
			return true;
		}
		return false;
	}
	if (e->kind == EX_BINARY && !is_compare((BinOp)e->u.op.op) &&
	    dtype_is_int(e->dtype)) {
		int64_t a, b;
		return gen_const_int(g, e->u.op.a, &a) &&
		       gen_const_int(g, e->u.op.b, &b) &&
		       fold_int((BinOp)e->u.op.op, a, b, e->dtype, v);
	}
	if (e->kind == EX_CAST && dtype_is_int(e->dtype) &&
	    dtype_is_int(e->u.op.a->dtype) &&
	    gen_const_int(g, e->u.op.a, v)) {
		*v = wrap_int(*v, e->dtype);
		return true;
	}
	return false;
}

Val
gen_expr(Gen *g, const Expr *e)
{
	switch (e->kind) {
	case EX_INT:
		if (dtype_is_float(e->dtype))
			return val_float(g, (double)e->u.ival, e->dtype);
		return val_int(g, e->u.ival,
			       e->dtype ? e->dtype : DT_INT32);
	case EX_FLOAT:
		return val_float(g, e->u.fval,
				 e->dtype ? e->dtype : DT_FLOAT32);
	case EX_BOOL:
		return val_int(g, e->u.ival != 0, DT_BOOL);
	case EX_VAR: {
		Val *v = gen_var(g, e->u.var);
		if (v)
			return *v;
		return gen_error(g, PT_E_INTERNAL, e->span,
				 "variable '%s' has no register",
				 e->u.var->name);
	}
	case EX_UNARY: return gen_unary(g, e);
	case EX_BINARY: return gen_binary(g, e);
	case EX_CAST:
		return gen_convert(g, gen_expr(g, e->u.op.a), e->dtype,
				   e->span);
	case EX_REINTERPRET: return gen_reinterpret(g, e);
	case EX_SELECT: return gen_select(g, e);
	case EX_LOAD: return gen_load(g, e);
	case EX_PTR_TO: {
		bool wide = dtype_bits(e->dtype) != 32;
		Val v = {0};
		v.dt = wide ? DT_UINT64 : DT_UINT32;
		v.s = gen_ptr_to(g, e, wide ? "" : "shared", &wide);
		return gen_in_reg(g, v);
	}
	case EX_BUILTIN: return gen_builtin(g, e);
	case EX_PTX:
		gen_ptx_call(g, e);
		return val_int(g, 0, DT_INT32);
	case EX_TILE_APPLY:
	case EX_TILE_EWISE:
		return gen_error(g, PT_E_CODEGEN_TILE_NOT_LOWERED, e->span,
				 "tile call not lowered");
	default:
		return gen_error(g, PT_E_CODEGEN_ACCESS, e->span,
				 "expression cannot be used as a scalar");
	}
}
