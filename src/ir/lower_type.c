/* lower_type.c - AST -> IR: weak literals and constants, constant folding,
 * operators and casts.  Part of the lowering pass; lower.c describes the
 * language it accepts, lower.h what the parts share.
 */
#include "ir/lower.h"

/* ---- weak literals and constants ---- */

static bool
is_weak(const Expr *e)
{
	return (e->kind == EX_INT || e->kind == EX_FLOAT) && e->dtype == DT_NONE;
}

static bool
is_const(const Expr *e)
{
	return e->kind == EX_INT || e->kind == EX_FLOAT || e->kind == EX_BOOL;
}

bool
lw_is_intlike(DType t)
{
	DTypeKind k = dtype_kind(t);
	return t == DT_NONE || k == DK_INT || k == DK_UINT || k == DK_BITS;
}

bool
lw_is_unsigned(DType t)
{
	return t != DT_NONE &&
	       (dtype_kind(t) == DK_UINT || dtype_kind(t) == DK_BITS);
}

/* v truncated to the width of t and sign- or zero-extended. */
int64_t
lw_wrap_int(int64_t v, DType t)
{
	int bits = dtype_bits(t);
	if (t == DT_BOOL)
		return v != 0;
	if (t == DT_NONE || bits >= 64 || bits <= 0)
		return v;
	uint64_t mask = ((uint64_t)1 << bits) - 1;
	uint64_t u = (uint64_t)v & mask;
	if (!lw_is_unsigned(t) && (u >> (bits - 1)) & 1)
		u |= ~mask;
	return (int64_t)u;
}

static double
round_float(double v, DType t)
{
	if (t == DT_FLOAT32 || t == DT_NONE || t == DT_TF32)
		return (double)(float)v;
	return v;
}

/* The largest finite value of float dtype t (0 for other dtypes): a
 * literal beyond it would silently become an infinity. */
double
lw_float_max(DType t)
{
	switch (t) {
	case DT_FLOAT16: return 65504.0;
	case DT_BFLOAT16: return 0x1.fep127;
	case DT_FLOAT32:
	case DT_TF32: return 0x1.fffffep127;
	case DT_FLOAT64: return DBL_MAX;
	case DT_E4M3: return 448.0;
	case DT_E5M2: return 57344.0;
	case DT_E2M3: return 7.5;
	case DT_E3M2: return 28.0;
	case DT_E2M1: return 6.0;
	default: return 0.0;
	}
}

/* A finite constant e given float dtype t must be a finite value of t
 * (TVM's FloatImm rejects the rest the same way). */
bool
lw_float_fits(Lower *L, const Expr *e, DType t, Span sp)
{
	double fmax = lw_float_max(t);
	if (fmax <= 0 || (e->kind != EX_FLOAT && e->kind != EX_INT))
		return true;
	double v = e->kind == EX_FLOAT ? e->u.fval : (double)e->u.ival;
	if (!isfinite(v) || fabs(v) <= fmax)
		return true;
	return diag_error(L->c, PT_E_FLOAT_RANGE, sp,
			  "%g is out of range for %s (largest finite value "
			  "%g; write T.%s(\"%sinf\") for an infinity)", v,
			  dtype_name(t), fmax, dtype_name(t), v < 0 ? "-" : "");
}

/* A weak int literal's own dtype: int32, or int64 past it (TVM's IntImm). */
static DType
literal_int_dtype(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX ? DT_INT32 : DT_INT64;
}

/* Gives a weak literal its default dtype. */
void
lw_settle(Expr *e)
{
	if (!e || !is_weak(e))
		return;
	if (e->kind == EX_FLOAT) {
		e->dtype = DT_FLOAT32;
		e->u.fval = round_float(e->u.fval, DT_FLOAT32);
	} else {
		e->dtype = literal_int_dtype(e->u.ival);
	}
}

static bool
mismatch(Lower *L, Span sp, DType want, DType got)
{
	return diag_error(L->c, PT_E_TYPE_MISMATCH, sp,
			  "dtype mismatch: expected %s, found %s (use T.cast)",
			  dtype_name(want), dtype_name(got));
}

/* Converts a weak literal to dtype t (a new node); e itself otherwise. */
static Expr *
adapt(Lower *L, Expr *e, DType t)
{
	if (!e || !is_weak(e) || t == DT_NONE)
		return e;
	if (e->kind == EX_INT && lw_is_intlike(t))
		return ir_int(L->c, lw_wrap_int(e->u.ival, t), t, e->span);
	if (e->kind == EX_INT && dtype_kind(t) == DK_FLOAT)
		return ir_float(L->c, round_float((double)e->u.ival, t), t,
				e->span);
	if (e->kind == EX_FLOAT && dtype_kind(t) == DK_FLOAT)
		return ir_float(L->c, round_float(e->u.fval, t), t, e->span);
	return e;
}

/* float8/6/4 are storage formats: PTX has no immediate of them (`mov.b16
 * %rs1, 0f3F800000` is refused by ptxas), so a constant of one is an
 * error rather than a wrong encoding. */
static bool
storage_constant(Lower *L, const Expr *e, DType t, Span sp)
{
	if (!is_const(e) || e->kind == EX_BOOL || !ir_dtype_is_storage(t))
		return false;
	return !diag_error(L->c, PT_E_STORAGE_LITERAL, sp,
			   "a %s constant cannot be written: %s is a storage "
			   "format (write its bits through .view(\"uint8\"), "
			   "or convert in registers)", dtype_name(t),
			   dtype_name(t));
}

/* e converted for a place of dtype t: weak literals adapt, others must
 * match.  NULL after an error. */
Expr *
lw_coerce(Lower *L, Expr *e, DType t, Span sp)
{
	if (!e)
		return NULL;
	if (storage_constant(L, e, t, sp) ||
	    (is_weak(e) && !lw_float_fits(L, e, t, sp)))
		return NULL;
	e = adapt(L, e, t);
	lw_settle(e);
	if (e->dtype != t) {
		mismatch(L, sp, t, e->dtype);
		return NULL;
	}
	return e;
}

Expr *
lw_need_scalar(Lower *L, Expr *e, Span sp)
{
	if (e && e->type != ET_SCALAR) {
		diag_error(L->c, PT_E_NOT_SCALAR, sp, "expected a scalar value");
		return NULL;
	}
	return e;
}

Expr *
lw_need_int(Lower *L, Expr *e, Span sp)
{
	if (!lw_need_scalar(L, e, sp))
		return NULL;
	if (!lw_is_intlike(e->dtype) || e->kind == EX_FLOAT) {
		diag_error(L->c, PT_E_TYPE_MISMATCH, sp,
			   "expected an integer, found %s",
			   e->dtype == DT_NONE ? "a float literal"
					       : dtype_name(e->dtype));
		return NULL;
	}
	lw_settle(e);
	return e;
}

Expr *
lw_need_bool(Lower *L, Expr *e, Span sp)
{
	if (!lw_need_scalar(L, e, sp))
		return NULL;
	if (e->dtype != DT_BOOL) {
		diag_error(L->c, PT_E_NOT_BOOL, sp,
			   "expected a bool (a comparison), found %s",
			   e->dtype == DT_NONE ? "a literal"
					       : dtype_name(e->dtype));
		return NULL;
	}
	return e;
}

/* A weak integer literal beside an integer x whose type cannot hold it
 * keeps its own type, int32 or int64 (TVM's IntImm), and x widens to it
 * when narrower (TVM's binary type matching): int32 + 3000000000 is an
 * int64 sum and uint8 + 300 an int32 one, where adapting the literal
 * would wrap it.  An x as wide (uint32 + -1) takes the literal as cast
 * to its type, as TVM does. */
static void
widen_for_literal(Lower *L, Expr **x, const Expr *lit, Span sp)
{
	DType t = (*x)->dtype;
	DTypeKind k = dtype_kind(t);
	if (lit->kind != EX_INT || !is_weak(lit) || is_weak(*x) ||
	    (k != DK_INT && k != DK_UINT) ||
	    lw_wrap_int(lit->u.ival, t) == lit->u.ival)
		return;
	DType own = literal_int_dtype(lit->u.ival);
	if (dtype_bits(t) < dtype_bits(own))
		*x = lw_make_cast(L, *x, own, sp);
}

/* Makes a and b share one dtype (weak literals adapt). */
bool
lw_unify(Lower *L, Expr **a, Expr **b, Span sp)
{
	widen_for_literal(L, a, *b, sp);
	widen_for_literal(L, b, *a, sp);
	if (!*a || !*b)
		return false;
	if (is_weak(*a) && is_weak(*b)) {
		if ((*a)->kind != (*b)->kind) {
			Expr **i = (*a)->kind == EX_INT ? a : b;
			*i = ir_float(L->c, (double)(*i)->u.ival, DT_NONE,
				      (*i)->span);
		}
		return true;
	}
	*a = adapt(L, *a, (*b)->dtype);
	*b = adapt(L, *b, (*a)->dtype);
	if ((*a)->dtype != (*b)->dtype || is_weak(*a) || is_weak(*b))
		return mismatch(L, sp, (*a)->dtype == DT_NONE ? (*b)->dtype
							     : (*a)->dtype,
				(*a)->dtype == DT_NONE ? (*a)->dtype
						       : (*b)->dtype);
	return true;
}

/* A copy of a constant value for a new use site. */
Expr *
lw_clone_const(Lower *L, const Expr *e, Span sp)
{
	Expr *n = NEW(&L->c->arena, Expr);
	*n = *e;
	n->span = sp;
	if (e->kind == EX_TUPLE) {
		memset(&n->u.tuple, 0, sizeof(n->u.tuple));
		for (size_t i = 0; i < e->u.tuple.n; i++)
			vec_push(&L->c->arena, &n->u.tuple,
				 lw_clone_const(L, e->u.tuple.v[i], sp));
	}
	return n;
}

bool
lw_is_const_value(const Expr *e)
{
	if (e->kind == EX_STR || is_const(e))
		return true;
	if (e->kind != EX_TUPLE)
		return false;
	for (size_t i = 0; i < e->u.tuple.n; i++)
		if (!lw_is_const_value(e->u.tuple.v[i]))
			return false;
	return true;
}

/* A compile-time integer from an AST. */
bool
lw_const_int(Lower *L, Ast *a, int64_t *v)
{
	Expr *e = lower_expr(L, a);
	if (!e)
		return false;
	if (e->kind != EX_INT)
		return diag_error(L->c, PT_E_NOT_CONST, a->span,
				  "expected a compile-time integer");
	*v = e->u.ival;
	return true;
}

/* A compile-time string from an AST. */
const char *
lw_const_str(Lower *L, Ast *a, const char *what)
{
	Expr *e = lower_expr(L, a);
	if (!e)
		return NULL;
	if (e->kind != EX_STR) {
		diag_error(L->c, PT_E_NOT_CONST, a->span,
			   "expected a constant string for %s", what);
		return NULL;
	}
	return e->u.str;
}

/* ---- folding ---- */

/* Whether a Python-int result leaves int64 (x << y for y >= 64 does
 * unless x is 0; a negative x << y leaves it when bits shift past the
 * sign). */
static bool
weak_overflows(BinOp op, int64_t x, int64_t y)
{
	int64_t r;
	switch (op) {
	case BIN_ADD: return ckd_add64(&r, x, y);
	case BIN_SUB: return ckd_sub64(&r, x, y);
	case BIN_MUL: return ckd_mul64(&r, x, y);
	case BIN_DIV:
	case BIN_FLOORDIV: return x == INT64_MIN && y == -1;
	case BIN_SHL:
		if (y < 0 || x == 0)
			return false;
		if (y >= 64)
			return true;
		return (x >> (63 - y)) != 0 && (x >> (63 - y)) != -1;
	default: return false;
	}
}

static const char *
binop_text(BinOp op)
{
	switch (op) {
	case BIN_ADD: return "+";
	case BIN_SUB: return "-";
	case BIN_MUL: return "*";
	case BIN_DIV: return "/";
	case BIN_FLOORDIV: return "//";
	default: return "<<";
	}
}

/* 1: folded into *out; 0: left unfolded; -1: error reported. */
static int
fold_int(Lower *L, BinOp op, DType t, int64_t x, int64_t y, int64_t *out,
	 Span sp)
{
	bool u = lw_is_unsigned(t);
	uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
	int width = t == DT_NONE ? 64 : dtype_bits(t);
	/* Weak constants are Python ints: a result past 64 bits is not
	 * wrapped (N * N == 2**64 must not fold to 0 and shrink a shape). */
	if (t == DT_NONE && weak_overflows(op, x, y))
		return diag_error(L->c, PT_E_INT_OVERFLOW, sp,
				  "constant %lld %s %lld does not fit in 64 "
				  "bits", (long long)x, binop_text(op),
				  (long long)y) - 1;
	/* Python raises on a negative shift count; a wider right shift
	 * leaves the sign */
	if (t == DT_NONE && (op == BIN_SHL || op == BIN_SHR) && y < 0)
		return diag_error(L->c, PT_E_CONST_SHIFT, sp,
				  "constant shift by a negative amount (%lld)",
				  (long long)y) - 1;
	if (t == DT_NONE && (op == BIN_SHL || op == BIN_SHR) && y >= 64) {
		*out = op == BIN_SHL ? 0 : x < 0 ? -1 : 0;
		return 1;
	}
	switch (op) {
	case BIN_ADD: *out = (int64_t)(ux + uy); break;
	case BIN_SUB: *out = (int64_t)(ux - uy); break;
	case BIN_MUL: *out = (int64_t)(ux * uy); break;
	case BIN_DIV:
	case BIN_FLOORDIV:
	case BIN_MOD:
		if (y == 0)
			return diag_error(L->c, PT_E_CONST_DIV, sp,
					  "division by zero in a constant "
					  "expression") - 1;
		if (u) {
			*out = (int64_t)(op == BIN_MOD ? ux % uy : ux / uy);
		} else if (x == INT64_MIN && y == -1) {
			*out = op == BIN_MOD ? 0 : INT64_MIN;
		} else if (op == BIN_DIV) {
			*out = x / y;
		} else if (op == BIN_FLOORDIV) {
			int64_t q = x / y;
			*out = (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
		} else {
			int64_t r = x % y;
			*out = (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
		}
		break;
	case BIN_SHL:
	case BIN_SHR:
		if (y < 0 || y >= width)
			return 0;
		if (op == BIN_SHL)
			*out = (int64_t)(ux << y);
		else
			*out = u ? (int64_t)(ux >> y)
				 : (x < 0 ? ~(int64_t)(~ux >> y) : x >> y);
		break;
	case BIN_BAND: *out = (int64_t)(ux & uy); break;
	case BIN_BOR: *out = (int64_t)(ux | uy); break;
	case BIN_BXOR: *out = (int64_t)(ux ^ uy); break;
	case BIN_LT: *out = u ? ux < uy : x < y; return 1;
	case BIN_LE: *out = u ? ux <= uy : x <= y; return 1;
	case BIN_GT: *out = u ? ux > uy : x > y; return 1;
	case BIN_GE: *out = u ? ux >= uy : x >= y; return 1;
	case BIN_EQ: *out = x == y; return 1;
	case BIN_NE: *out = x != y; return 1;
	case BIN_LAND: *out = x && y; return 1;
	case BIN_LOR: *out = x || y; return 1;
	default: return 0;
	}
	*out = lw_wrap_int(*out, t);
	return 1;
}

static bool
is_compare_op(BinOp op)
{
	return op >= BIN_LT && op <= BIN_NE;
}

/* Folds a binary operation of two constants; NULL when not folded. */
static Expr *
fold_binary(Lower *L, BinOp op, Expr *a, Expr *b, Span sp, bool *err)
{
	DType t = a->dtype;
	if (a->kind == EX_FLOAT) {
		double x = a->u.fval, y = b->u.fval, r;
		switch (op) {
		case BIN_ADD: r = x + y; break;
		case BIN_SUB: r = x - y; break;
		case BIN_MUL: r = x * y; break;
		case BIN_DIV: r = x / y; break;
		case BIN_LT: return ir_bool(L->c, x < y, sp);
		case BIN_LE: return ir_bool(L->c, x <= y, sp);
		case BIN_GT: return ir_bool(L->c, x > y, sp);
		case BIN_GE: return ir_bool(L->c, x >= y, sp);
		case BIN_EQ: return ir_bool(L->c, x == y, sp);
		case BIN_NE: return ir_bool(L->c, x != y, sp);
		default: return NULL;
		}
		r = round_float(r, t);
		return isfinite(r) ? ir_float(L->c, r, t, sp) : NULL;
	}
	int64_t v;
	int r = fold_int(L, op, t, a->u.ival, b->u.ival, &v, sp);
	if (r <= 0) {
		*err = r < 0;
		return NULL;
	}
	if (is_compare_op(op) || t == DT_BOOL)
		return ir_bool(L->c, v != 0, sp);
	return ir_int(L->c, v, t, sp);
}

/* ---- operators ---- */

bool
lw_binop_of(int tok, BinOp *op)
{
	static const int map[][2] = {
		{TK_PLUS, BIN_ADD},    {TK_MINUS, BIN_SUB},
		{TK_STAR, BIN_MUL},    {TK_SLASH, BIN_DIV},
		{TK_DSLASH, BIN_FLOORDIV}, {TK_PERCENT, BIN_MOD},
		{TK_LSHIFT, BIN_SHL},  {TK_RSHIFT, BIN_SHR},
		{TK_AMP, BIN_BAND},    {TK_PIPE, BIN_BOR},
		{TK_CARET, BIN_BXOR},  {TK_LT, BIN_LT},
		{TK_LE, BIN_LE},       {TK_GT, BIN_GT},
		{TK_GE, BIN_GE},       {TK_EQ, BIN_EQ},
		{TK_NE, BIN_NE},
	};
	for (size_t i = 0; i < countof(map); i++)
		if (map[i][0] == tok) {
			*op = (BinOp)map[i][1];
			return true;
		}
	return false;
}

/* Checks that the operand dtype t suits op. */
static bool
check_operand_kind(Lower *L, BinOp op, const Expr *e, Span sp)
{
	DType t = e->dtype;
	bool is_bool = t == DT_BOOL;
	bool is_float = e->kind == EX_FLOAT || dtype_kind(t) == DK_FLOAT;
	const char *why = NULL;
	if (op == BIN_LAND || op == BIN_LOR) {
		if (!is_bool)
			why = "'and'/'or' need bool operands";
	} else if (op == BIN_BAND || op == BIN_BOR || op == BIN_BXOR) {
		if (is_float)
			why = "bitwise operators need integer or bool operands";
	} else if (op == BIN_SHL || op == BIN_SHR) {
		if (is_float || is_bool)
			why = "shifts need integer operands";
	} else if (!is_compare_op(op) || op < BIN_EQ) {
		if (is_bool)
			why = "arithmetic and ordering need numeric operands";
	}
	if (why)
		return diag_error(L->c, PT_E_TYPE_MISMATCH, sp, "%s, found %s",
				  why, t == DT_NONE ? "a literal"
						    : dtype_name(t));
	return true;
}

Expr *
lw_make_binary(Lower *L, BinOp op, Expr *a, Expr *b, Span sp)
{
	if (!lw_need_scalar(L, a, a ? a->span : sp) ||
	    !lw_need_scalar(L, b, b ? b->span : sp))
		return NULL;
	if (!lw_unify(L, &a, &b, sp))
		return NULL;
	if (!check_operand_kind(L, op, a, sp))
		return NULL;
	/* an integer division by a literal zero has no defined PTX result;
	 * folding catches it only when both operands are constants */
	if ((op == BIN_DIV || op == BIN_FLOORDIV || op == BIN_MOD) &&
	    b->kind == EX_INT && b->u.ival == 0)
		return diag_error(L->c, PT_E_CONST_DIV, sp,
				  "integer division by a constant zero"),
		       NULL;
	if (is_const(a) && is_const(b) && a->kind == b->kind) {
		bool err = false;
		Expr *f = fold_binary(L, op, a, b, sp, &err);
		if (f || err)
			return f;
	}
	if (is_compare_op(op)) {
		lw_settle(a);
		lw_settle(b);
	}
	DType rt = is_compare_op(op) ? DT_BOOL : a->dtype;
	Expr *e = ir_new_expr(L->c, EX_BINARY, ET_SCALAR, rt, sp);
	e->u.op.op = op;
	e->u.op.a = a;
	e->u.op.b = b;
	if (rt == DT_NONE) {
		/* weak operands that did not fold (e.g. 1 << 70) */
		lw_settle(a);
		lw_settle(b);
		if (!lw_unify(L, &e->u.op.a, &e->u.op.b, sp))
			return NULL;
		e->dtype = e->u.op.a->dtype;
	}
	return e;
}

Expr *
lw_make_unary(Lower *L, UnOp op, Expr *a, Span sp)
{
	if (!lw_need_scalar(L, a, sp))
		return NULL;
	DType t = a->dtype;
	if (op == UN_LNOT && !lw_need_bool(L, a, sp))
		return NULL;
	if (op == UN_BNOT && (!lw_is_intlike(t) || a->kind == EX_FLOAT)) {
		diag_error(L->c, PT_E_TYPE_MISMATCH, sp,
			   "'~' needs an integer operand, found %s",
			   dtype_name(t));
		return NULL;
	}
	if (op == UN_NEG && t == DT_BOOL) {
		diag_error(L->c, PT_E_TYPE_MISMATCH, sp,
			   "'-' needs a numeric operand");
		return NULL;
	}
	/* a weak constant is a Python int: -(-2**63) leaves int64 */
	if (a->kind == EX_INT && t == DT_NONE && op == UN_NEG &&
	    a->u.ival == INT64_MIN)
		return diag_error(L->c, PT_E_INT_OVERFLOW, sp,
				  "constant -(%lld) does not fit in 64 bits",
				  (long long)a->u.ival),
		       NULL;
	if (a->kind == EX_INT)
		return ir_int(L->c, lw_wrap_int(op == UN_NEG ? (int64_t)(0 - (uint64_t)a->u.ival)
					      : ~a->u.ival, t), t, sp);
	if (a->kind == EX_FLOAT && op == UN_NEG)
		return ir_float(L->c, -a->u.fval, t, sp);
	if (a->kind == EX_BOOL && op == UN_LNOT)
		return ir_bool(L->c, !a->u.ival, sp);
	Expr *e = ir_new_expr(L->c, EX_UNARY, ET_SCALAR, t, sp);
	e->u.op.op = op;
	e->u.op.a = a;
	return e;
}

/* ---- casts ---- */

/* A constant converted to t; NULL when it cannot be folded. */
static Expr *
fold_cast(Lower *L, Expr *a, DType t, Span sp)
{
	DTypeKind k = dtype_kind(t);
	if (t == DT_BOOL) {
		if (a->kind == EX_FLOAT)
			return ir_bool(L->c, a->u.fval != 0, sp);
		return ir_bool(L->c, a->u.ival != 0, sp);
	}
	if (k == DK_FLOAT) {
		double v = a->kind == EX_FLOAT ? a->u.fval
			   : lw_is_unsigned(a->dtype) ? (double)(uint64_t)a->u.ival
						   : (double)a->u.ival;
		return ir_float(L->c, round_float(v, t), t, sp);
	}
	if (a->kind != EX_FLOAT)
		return ir_int(L->c, lw_wrap_int(a->u.ival, t), t, sp);
	double v = trunc(a->u.fval);
	if (!(v >= -9.2e18 && v <= 9.2e18))
		return NULL;
	return ir_int(L->c, lw_wrap_int((int64_t)v, t), t, sp);
}

Expr *
lw_make_cast(Lower *L, Expr *a, DType t, Span sp)
{
	if (!lw_need_scalar(L, a, sp) || storage_constant(L, a, t, sp))
		return NULL;
	if (is_const(a)) {
		Expr *f = fold_cast(L, a, t, sp);
		if (f)
			return f;
	}
	lw_settle(a);
	Expr *e = ir_new_expr(L->c, EX_CAST, ET_SCALAR, t, sp);
	e->u.op.a = a;
	return e;
}
