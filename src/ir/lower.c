/*
 * lower.c - AST -> IR: name resolution, types, constant folding.
 *
 * Input: the A_MODULE of parse.c.  Output: a Module (ir.h) whose
 * expressions all have a type and every scalar a dtype.  Errors are
 * diagnostics (PT_E_* in codes/sema.def); lowering goes on after an error
 * where it can, and a name whose definition failed is "poisoned" so that
 * its uses report nothing more.
 *
 * The language as lowered (docs/language.md is written from this list):
 *
 * Module level
 *  - `import ...` / `from ... import ...` are accepted.  `from X import
 *    tirx as A` (or `import X.tirx as A`) binds A to the builtin namespace
 *    (any alias).  `from X import S, R, TileLayout, ComposeLayout, Axis,
 *    laneid, ...` binds those builtins by name; other imported names are
 *    ignored (using them is an unknown name).
 *  - `N = expr` binds a compile-time constant (int, float, bool, str, or a
 *    tuple/list of those; expressions of earlier constants are folded).
 *    `L = T.TileLayout(...)` binds a layout.  `n = T.dynamic("n")` makes a
 *    symbolic size (an int32 Var named after the assigned name; the string
 *    is not used).  Rebinding a constant is allowed (Python order).
 *  - `@T.function def f(...)`: several per file.  A function whose first
 *    statement (after a docstring) is `T.device_entry(...)` is a kernel;
 *    any other is a scalar function (for ewise).  Function bodies see every
 *    module constant, whatever its position (Python resolves globals at
 *    call time).  In the IR, scalar functions come first, then kernels,
 *    each group in source order (the printer's order).
 *  - Anything else at module level is PT_E_MODULE_STMT.
 *
 * Types
 *  - Int literals are "weak" (dtype DT_NONE while lowering): next to a
 *    typed operand they take its dtype; alone they become int32 (int64
 *    when the value does not fit; literals above INT64_MAX are uint64).
 *    Float literals likewise become float32 (rounded).  An int literal
 *    adapts to a float dtype; a float literal never adapts to an int one.
 *  - Two different non-literal dtypes in one operation are
 *    PT_E_TYPE_MISMATCH: convert explicitly with T.cast.  Comparisons give
 *    bool; and/or/not and conditions (if, while, T.if_then_else, pred=)
 *    need bool.  & | ^ take ints or bools; << >> ~ take ints.
 *  - Integer `/` truncates, `//` and `%` floor (ir.h).  Constants are
 *    folded with wrap-around at the dtype's width; weak ones (Python
 *    ints) that leave int64 are PT_E_INT_OVERFLOW;
 *    shifts by a negative amount or >= the width, float results that are
 *    not finite, and float // and % are left unfolded.  Constant division
 *    by zero is PT_E_CONST_DIV.
 *  - `T.uint32(5)` is a typed literal whose value must fit the dtype
 *    (PT_E_LITERAL_RANGE; T.cast wraps); `T.uint32(x)` of a non-constant is
 *    a cast (EX_CAST), as is `T.cast(x, "uint32")` / `T.cast(x,
 *    ty="uint32")`.  `T.reinterpret("uint32", x)` needs equal bit widths.
 *
 * Statements (inside functions; Python's flat function scope)
 *  - `x = e` with x new: a tensor-valued e (a view) defines a Buffer
 *    (ST_BUF_DEF, BK_VIEW); `T.alloc_*`/`T.decl_buffer` define BK_ALLOC;
 *    a layout call binds a layout; a constant tuple or string binds a
 *    constant; any other scalar declares a local (ST_VAR_DECL, dtype of
 *    e).  With x an existing local it assigns (ST_ASSIGN; dtypes must
 *    match after literal adaptation).  Parameters, loop variables and
 *    symbolic sizes are not assignable; buffer names are not rebound.
 *  - `x: T.dtype = e` / `x: T.dtype` declare (redeclaring is an error).
 *  - `A[i, j] = e` stores (ST_STORE); `x op= e` and `A[i] op= e` become
 *    an assignment / store of the binary operation.
 *  - `for i in range(a[, b[, s]])` and `T.serial(...)` are FOR_SERIAL,
 *    `T.unroll(...)` FOR_UNROLL; begin, end and step share one int dtype,
 *    which is the loop variable's; each loop makes a new variable.
 *  - `while`, `if/elif/else`, `break`/`continue` (only in loops),
 *    `pass`, docstrings (ignored), expression statements (calls only;
 *    `T.evaluate(call)` is the same as `call`).
 *  - `return e` only in scalar functions, which may hold only scalar
 *    declarations/assignments, if/else and returns, and must return on
 *    every path.  Their result dtype is the annotation or, without one,
 *    the first returned value's.
 *
 * Kernels
 *  - Parameters: `T.Tensor(shape, dtype[, align=, layout=, scope=])`
 *    (scope "global" by default), scalar dtypes (`T.int32`, ...), and
 *    `T.TensorMap()` (a Var of dtype uint64, the map's address).
 *  - First statement `T.device_entry(launch=T.cuda.LaunchConfig(grid=,
 *    block=[, cluster=]))`; grid/block ints, scalar expressions or 1-3
 *    tuples; cluster compile-time ints.
 *  - Allocation: `T.alloc_shared` (scope shared), `T.alloc_local`
 *    (local), `T.alloc_buffer(..., scope=)` (default "global"),
 *    `T.decl_buffer(..., scope="tmem", allocated_addr=e)` (tmem only).
 *    Keywords layout= ("default" or a layout) and align=.
 *
 * Expressions
 *  - Subscripts: all-scalar indices are a load (EX_LOAD), also in tile
 *    operand lists; any slice makes a region (EX_REGION); `X.sub[...]` is
 *    always a region.  Index dims of `.sub` drop from the region's
 *    shape; in `X[i, :]` they stay with extent 1 (TIRx).  Slice
 *    steps are rejected.  `X.view("dtype")` / `X.view(T.dtype)` is
 *    EX_VIEW_DTYPE; `X.view(s0, s1[, layout=L])` or `X.view((s0, s1),
 *    ...)` is EX_VIEW_RESHAPE.  `X.ptr_to([i, ...])` is EX_PTR_TO, a
 *    scalar of dtype uint64.
 *  - Raw PTX: `T.ptx.a.b_.c__d(args, pred=, preserve_dst=)` spells
 *    "a.b.c::d" (per dotted part: one trailing '_' dropped, then "__" ->
 *    "::"); `T.ptx["a.b"](...)` takes the literal (a constant string).
 *    Spellings must use only [A-Za-z0-9_.:] (PT_E_PTX_SPELLING); the form
 *    table check is a later pass.  Both are EX_PTX (void).
 *  - `T.cuda.tile.apply(T.ptx["op"] | T.ptx.op.chain, *operands,
 *    scope="thread", **params)`: every keyword except scope is a named
 *    parameter in written order; the generic keywords attrs, ty, ty_args
 *    and loc are rejected (PT_E_UNSUPPORTED).  `T.cuda.tile.ewise(fn, dst,
 *    *inputs, scope=)` names a scalar @T.function.
 *  - Star arguments `*[a, b]`, `*(a, b)` and `*NAME` (a constant tuple)
 *    expand in place; constant sequences are limited to 4096 elements.
 *  - Layouts: `T.TileLayout(S[...] [+ R[...]] [+ k@axis | k]...)`,
 *    `T.ComposeLayout(M, B, S, tile)`, a name bound to a layout, or
 *    "default".  Iters: `S[(e0, e1):(s0, s1)]`, `S[e:s]`, `S[e0, e1]`
 *    (row-major strides on m); a stride is k (axis m), `k@axis` or an
 *    axis-name string (1@axis).  Axes: bare imported names, `Axis.x`,
 *    `T.Axis.x`.  Offset terms on the same axis are merged.
 */
#include <math.h>
#include <string.h>

#include "api.h"
#include "ir/ir.h"
#include "ptx/ptx.h"
#include "script/ast.h"

#define MAX_SEQ 4096

typedef VEC(LayoutIter) IterVec;
typedef VEC(LayoutOffset) OffsetVec;
typedef VEC(Func *) FuncVec;

typedef enum SymKind {
	SYM_CONST,   /* cval: a constant expression (scalar, str, tuple) */
	SYM_LAYOUT,  /* layout */
	SYM_VAR,     /* var */
	SYM_BUF,     /* buf */
	SYM_FUNC,    /* fn */
	SYM_NS,      /* the builtin namespace (T) */
	SYM_BUILTIN, /* an imported builtin: path ("S", "Axis.laneid") */
	SYM_ERROR,   /* definition failed: uses stay silent */
} SymKind;

typedef struct Sym {
	const char *name;
	SymKind kind;
	Expr *cval;
	Layout *layout;
	Var *var;
	Buffer *buf;
	Func *fn;
	const char *path;
} Sym;

typedef struct Lower {
	Ctx *c;
	Module *m;
	VEC(Sym) syms;
	size_t func_base; /* first symbol of the current function */
	Func *fn;
	int loops;
	int next_id;
} Lower;

/* An argument of a call: an AST, or a value from a star expansion. */
typedef struct Arg {
	Ast *ast;
	Expr *val;
	Span span;
} Arg;

typedef struct Args {
	VEC(Arg) pos;
	AstVec kw; /* A_KWARG nodes */
} Args;

static Expr *lower_expr(Lower *L, Ast *a);
static Expr *lower_call(Lower *L, Ast *a);
static void lower_block(Lower *L, AstVec *in, Block *out);
static bool lower_layout(Lower *L, Ast *a, Layout **out);

/* ---- symbols ---- */

static Sym *
lookup(Lower *L, const char *name)
{
	for (size_t i = L->syms.n; i-- > 0;)
		if (!strcmp(L->syms.v[i].name, name))
			return &L->syms.v[i];
	return NULL;
}

/* The symbol `name` when defined in the current function. */
static Sym *
lookup_local(Lower *L, const char *name)
{
	for (size_t i = L->syms.n; i-- > L->func_base;)
		if (!strcmp(L->syms.v[i].name, name))
			return &L->syms.v[i];
	return NULL;
}

static Sym *
bind(Lower *L, const char *name, SymKind k)
{
	Sym s = {0};
	s.name = name;
	s.kind = k;
	vec_push(&L->c->arena, &L->syms, s);
	return &L->syms.v[L->syms.n - 1];
}

static Var *
new_var(Lower *L, const char *name, DType t, VarKind k, Span sp)
{
	Var *v = NEW(&L->c->arena, Var);
	v->name = name;
	v->dtype = t;
	v->kind = k;
	v->span = sp;
	v->id = L->next_id++;
	return v;
}

static Buffer *
new_buf(Lower *L, const char *name, BufKind k, Span sp)
{
	Buffer *b = NEW(&L->c->arena, Buffer);
	b->name = name;
	b->kind = k;
	b->span = sp;
	b->id = L->next_id++;
	return b;
}

/* ---- builtin paths ---- */

/* The builtin path of an expression rooted at the namespace alias or an
 * imported builtin: T.cuda.tile.apply -> "cuda.tile.apply", bare S ->
 * "S".  NULL when a is not such a chain. */
static const char *
ast_path(Lower *L, const Ast *a)
{
	if (a->kind == A_NAME) {
		Sym *s = lookup(L, a->name);
		if (s && s->kind == SYM_NS)
			return "";
		if (s && s->kind == SYM_BUILTIN)
			return s->path;
		return NULL;
	}
	if (a->kind != A_ATTR)
		return NULL;
	const char *p = ast_path(L, a->a);
	if (!p)
		return NULL;
	if (!*p)
		return a->name;
	return arena_printf(&L->c->arena, "%s.%s", p, a->name);
}

static bool
path_is(const char *p, const char *want)
{
	return p && !strcmp(p, want);
}

static const char *
call_path(Lower *L, const Ast *a)
{
	return a && a->kind == A_CALL ? ast_path(L, a->a) : NULL;
}

static bool
is_alloc_path(const char *p)
{
	return path_is(p, "alloc_shared") || path_is(p, "alloc_local") ||
	       path_is(p, "alloc_buffer") || path_is(p, "decl_buffer") ||
	       path_is(p, "tmem") || path_is(p, "decl_tensor");
}

static bool
is_layout_path(const char *p)
{
	return path_is(p, "TileLayout") || path_is(p, "ComposeLayout");
}

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

static bool
is_intlike(DType t)
{
	DTypeKind k = dtype_kind(t);
	return t == DT_NONE || k == DK_INT || k == DK_UINT || k == DK_BITS;
}

static bool
is_unsigned(DType t)
{
	return t != DT_NONE &&
	       (dtype_kind(t) == DK_UINT || dtype_kind(t) == DK_BITS);
}

/* v truncated to the width of t and sign- or zero-extended. */
static int64_t
wrap_int(int64_t v, DType t)
{
	int bits = dtype_bits(t);
	if (t == DT_BOOL)
		return v != 0;
	if (t == DT_NONE || bits >= 64 || bits <= 0)
		return v;
	uint64_t mask = ((uint64_t)1 << bits) - 1;
	uint64_t u = (uint64_t)v & mask;
	if (!is_unsigned(t) && (u >> (bits - 1)) & 1)
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

/* Gives a weak literal its default dtype. */
static void
settle(Expr *e)
{
	if (!e || !is_weak(e))
		return;
	if (e->kind == EX_FLOAT) {
		e->dtype = DT_FLOAT32;
		e->u.fval = round_float(e->u.fval, DT_FLOAT32);
	} else {
		bool fits = e->u.ival >= INT32_MIN && e->u.ival <= INT32_MAX;
		e->dtype = fits ? DT_INT32 : DT_INT64;
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
	if (e->kind == EX_INT && is_intlike(t))
		return ir_int(L->c, wrap_int(e->u.ival, t), t, e->span);
	if (e->kind == EX_INT && dtype_kind(t) == DK_FLOAT)
		return ir_float(L->c, round_float((double)e->u.ival, t), t,
				e->span);
	if (e->kind == EX_FLOAT && dtype_kind(t) == DK_FLOAT)
		return ir_float(L->c, round_float(e->u.fval, t), t, e->span);
	return e;
}

/* e converted for a place of dtype t: weak literals adapt, others must
 * match.  NULL after an error. */
static Expr *
coerce(Lower *L, Expr *e, DType t, Span sp)
{
	if (!e)
		return NULL;
	e = adapt(L, e, t);
	settle(e);
	if (e->dtype != t) {
		mismatch(L, sp, t, e->dtype);
		return NULL;
	}
	return e;
}

static Expr *
need_scalar(Lower *L, Expr *e, Span sp)
{
	if (e && e->type != ET_SCALAR) {
		diag_error(L->c, PT_E_NOT_SCALAR, sp, "expected a scalar value");
		return NULL;
	}
	return e;
}

static Expr *
need_int(Lower *L, Expr *e, Span sp)
{
	if (!need_scalar(L, e, sp))
		return NULL;
	if (!is_intlike(e->dtype) || e->kind == EX_FLOAT) {
		diag_error(L->c, PT_E_TYPE_MISMATCH, sp,
			   "expected an integer, found %s",
			   e->dtype == DT_NONE ? "a float literal"
					       : dtype_name(e->dtype));
		return NULL;
	}
	settle(e);
	return e;
}

static Expr *
need_bool(Lower *L, Expr *e, Span sp)
{
	if (!need_scalar(L, e, sp))
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

/* Makes a and b share one dtype (weak literals adapt). */
static bool
unify(Lower *L, Expr **a, Expr **b, Span sp)
{
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
static Expr *
clone_const(Lower *L, const Expr *e, Span sp)
{
	Expr *n = NEW(&L->c->arena, Expr);
	*n = *e;
	n->span = sp;
	if (e->kind == EX_TUPLE) {
		memset(&n->u.tuple, 0, sizeof(n->u.tuple));
		for (size_t i = 0; i < e->u.tuple.n; i++)
			vec_push(&L->c->arena, &n->u.tuple,
				 clone_const(L, e->u.tuple.v[i], sp));
	}
	return n;
}

static bool
is_const_value(const Expr *e)
{
	if (e->kind == EX_STR || is_const(e))
		return true;
	if (e->kind != EX_TUPLE)
		return false;
	for (size_t i = 0; i < e->u.tuple.n; i++)
		if (!is_const_value(e->u.tuple.v[i]))
			return false;
	return true;
}

/* A compile-time integer from an AST. */
static bool
const_int(Lower *L, Ast *a, int64_t *v)
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
static const char *
const_str(Lower *L, Ast *a, const char *what)
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

static bool
weak_overflows(BinOp op, int64_t x, int64_t y)
{
	int64_t r;
	switch (op) {
	case BIN_ADD: return ckd_add64(&r, x, y);
	case BIN_SUB: return ckd_sub64(&r, x, y);
	case BIN_MUL: return ckd_mul64(&r, x, y);
	case BIN_SHL:
		return y >= 0 && y < 64 &&
		       (x < 0 || (y > 0 && (x >> (63 - y)) != 0));
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
	default: return "<<";
	}
}

/* 1: folded into *out; 0: left unfolded; -1: error reported. */
static int
fold_int(Lower *L, BinOp op, DType t, int64_t x, int64_t y, int64_t *out,
	 Span sp)
{
	bool u = is_unsigned(t);
	uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
	int width = t == DT_NONE ? 64 : dtype_bits(t);
	/* Weak constants are Python ints: a result past 64 bits is not
	 * wrapped (N * N == 2**64 must not fold to 0 and shrink a shape). */
	if (t == DT_NONE && weak_overflows(op, x, y))
		return diag_error(L->c, PT_E_INT_OVERFLOW, sp,
				  "constant %lld %s %lld does not fit in 64 "
				  "bits", (long long)x, binop_text(op),
				  (long long)y) - 1;
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
	*out = wrap_int(*out, t);
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

static bool
binop_of(int tok, BinOp *op)
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

static Expr *
make_binary(Lower *L, BinOp op, Expr *a, Expr *b, Span sp)
{
	if (!need_scalar(L, a, a ? a->span : sp) ||
	    !need_scalar(L, b, b ? b->span : sp))
		return NULL;
	if (!unify(L, &a, &b, sp))
		return NULL;
	if (!check_operand_kind(L, op, a, sp))
		return NULL;
	if (is_const(a) && is_const(b) && a->kind == b->kind) {
		bool err = false;
		Expr *f = fold_binary(L, op, a, b, sp, &err);
		if (f || err)
			return f;
	}
	if (is_compare_op(op)) {
		settle(a);
		settle(b);
	}
	DType rt = is_compare_op(op) ? DT_BOOL : a->dtype;
	Expr *e = ir_new_expr(L->c, EX_BINARY, ET_SCALAR, rt, sp);
	e->u.op.op = op;
	e->u.op.a = a;
	e->u.op.b = b;
	if (rt == DT_NONE) {
		/* weak operands that did not fold (e.g. 1 << 70) */
		settle(a);
		settle(b);
		if (!unify(L, &e->u.op.a, &e->u.op.b, sp))
			return NULL;
		e->dtype = e->u.op.a->dtype;
	}
	return e;
}

static Expr *
make_unary(Lower *L, UnOp op, Expr *a, Span sp)
{
	if (!need_scalar(L, a, sp))
		return NULL;
	DType t = a->dtype;
	if (op == UN_LNOT && !need_bool(L, a, sp))
		return NULL;
	if (op == UN_BNOT && (!is_intlike(t) || a->kind == EX_FLOAT)) {
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
	if (a->kind == EX_INT)
		return ir_int(L->c, wrap_int(op == UN_NEG ? (int64_t)(0 - (uint64_t)a->u.ival)
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
			   : is_unsigned(a->dtype) ? (double)(uint64_t)a->u.ival
						   : (double)a->u.ival;
		return ir_float(L->c, round_float(v, t), t, sp);
	}
	if (a->kind != EX_FLOAT)
		return ir_int(L->c, wrap_int(a->u.ival, t), t, sp);
	double v = trunc(a->u.fval);
	if (!(v >= -9.2e18 && v <= 9.2e18))
		return NULL;
	return ir_int(L->c, wrap_int((int64_t)v, t), t, sp);
}

static Expr *
make_cast(Lower *L, Expr *a, DType t, Span sp)
{
	if (!need_scalar(L, a, sp))
		return NULL;
	if (is_const(a)) {
		Expr *f = fold_cast(L, a, t, sp);
		if (f)
			return f;
	}
	settle(a);
	Expr *e = ir_new_expr(L->c, EX_CAST, ET_SCALAR, t, sp);
	e->u.op.a = a;
	return e;
}

/* ---- call arguments ---- */

/* Appends the elements of a constant sequence (a star argument). */
static bool
expand_star(Lower *L, Ast *star, Args *out)
{
	Ast *v = star->a;
	if (v->kind == A_TUPLE || v->kind == A_LIST) {
		for (size_t i = 0; i < v->list.n; i++) {
			Ast *e = v->list.v[i];
			if (e->kind == A_STAR) {
				if (!expand_star(L, e, out))
					return false;
				continue;
			}
			Arg arg = {e, NULL, e->span};
			vec_push(&L->c->arena, &out->pos, arg);
		}
		return true;
	}
	Expr *e = lower_expr(L, v);
	if (!e)
		return false;
	if (e->kind != EX_TUPLE)
		return diag_error(L->c, PT_E_STAR_ARG, star->span,
				  "a star argument must be a list, a tuple or "
				  "a constant tuple name");
	for (size_t i = 0; i < e->u.tuple.n; i++) {
		Arg arg = {NULL, e->u.tuple.v[i], star->span};
		vec_push(&L->c->arena, &out->pos, arg);
	}
	return true;
}

static bool
split_args(Lower *L, Ast *call, Args *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < call->list.n; i++) {
		Ast *a = call->list.v[i];
		if (a->kind == A_KWARG) {
			for (size_t j = 0; j < out->kw.n; j++)
				if (!strcmp(out->kw.v[j]->name, a->name))
					return diag_error(L->c, PT_E_DUP_KEYWORD,
							  a->span,
							  "keyword '%s' given "
							  "twice", a->name);
			vec_push(&L->c->arena, &out->kw, a);
		} else if (a->kind == A_STAR) {
			if (!expand_star(L, a, out))
				return false;
		} else {
			Arg arg = {a, NULL, a->span};
			vec_push(&L->c->arena, &out->pos, arg);
		}
		if (out->pos.n > MAX_SEQ)
			return diag_error(L->c, PT_E_TOO_LARGE, a->span,
					  "more than %d arguments", MAX_SEQ);
	}
	return true;
}

static Expr *
arg_expr(Lower *L, Arg *a)
{
	return a->ast ? lower_expr(L, a->ast) : a->val;
}

static Ast *
kwarg(Args *a, const char *name)
{
	for (size_t i = 0; i < a->kw.n; i++)
		if (!strcmp(a->kw.v[i]->name, name))
			return a->kw.v[i]->a;
	return NULL;
}

/* Rejects keywords outside the NULL-terminated list allowed[]. */
static bool
check_keywords(Lower *L, Args *a, const char *const *allowed,
	       const char *callee)
{
	for (size_t i = 0; i < a->kw.n; i++) {
		size_t k = 0;
		while (allowed[k] && strcmp(allowed[k], a->kw.v[i]->name))
			k++;
		if (!allowed[k])
			return diag_error(L->c, PT_E_UNKNOWN_KEYWORD,
					  a->kw.v[i]->span,
					  "%s has no keyword '%s'", callee,
					  a->kw.v[i]->name);
	}
	return true;
}

static bool
check_count(Lower *L, Args *a, size_t lo, size_t hi, Span sp,
	    const char *callee)
{
	if (a->pos.n >= lo && a->pos.n <= hi)
		return true;
	if (lo == hi)
		return diag_error(L->c, PT_E_ARG_COUNT, sp,
				  "%s takes %zu positional argument%s, %zu "
				  "given", callee, lo, lo == 1 ? "" : "s",
				  a->pos.n);
	return diag_error(L->c, PT_E_ARG_COUNT, sp,
			  "%s takes %zu to %zu positional arguments, %zu given",
			  callee, lo, hi, a->pos.n);
}

/* ---- dtypes in the source ---- */

/* A dtype written as "float32", T.float32 or a string constant. */
static bool
ast_dtype(Lower *L, Ast *a, DType *out)
{
	const char *p = ast_path(L, a);
	const char *name = NULL;
	if (p && *p) {
		name = p;
	} else if (a->kind == A_STR) {
		name = a->str;
	} else if (a->kind == A_NAME) {
		Sym *s = lookup(L, a->name);
		if (s && s->kind == SYM_CONST && s->cval->kind == EX_STR)
			name = s->cval->u.str;
	}
	if (!name)
		return diag_error(L->c, PT_E_UNKNOWN_DTYPE, a->span,
				  "expected a dtype such as \"float32\" or "
				  "T.float32");
	if (!dtype_parse(name, out))
		return diag_error(L->c, PT_E_UNKNOWN_DTYPE, a->span,
				  "unknown dtype '%s'", name);
	return true;
}

static bool
arg_dtype(Lower *L, Arg *a, DType *out)
{
	if (a->ast)
		return ast_dtype(L, a->ast, out);
	if (a->val->kind == EX_STR && dtype_parse(a->val->u.str, out))
		return true;
	return diag_error(L->c, PT_E_UNKNOWN_DTYPE, a->span, "expected a dtype");
}

/* ---- tensors ---- */

static int
tensor_rank(const Expr *e)
{
	switch (e->kind) {
	case EX_BUF:
		return e->u.buf->ndim;
	case EX_REGION: {
		int n = 0;
		for (int i = 0; i < e->u.region.ndims; i++)
			n += e->u.region.dims[i].is_slice;
		return n;
	}
	case EX_VIEW_DTYPE:
		return tensor_rank(e->u.view.base);
	case EX_VIEW_RESHAPE:
		return (int)e->u.view.shape.n;
	default:
		return 0;
	}
}

/* end - begin, folded, with (b + k) - b simplified to k. */
static Expr *
extent_of(Lower *L, Expr *begin, Expr *end, Span sp)
{
	if (!begin)
		return end;
	if (end && end->kind == EX_BINARY && end->u.op.op == BIN_ADD &&
	    ir_expr_equal(end->u.op.a, begin))
		return end->u.op.b;
	int64_t x, y;
	if (ir_const_int(begin, &x) && x == 0)
		return end;
	if (ir_const_int(begin, &x) && ir_const_int(end, &y))
		return ir_int(L->c, wrap_int((int64_t)((uint64_t)y - (uint64_t)x),
					     end->dtype), end->dtype, sp);
	Expr *e = ir_new_expr(L->c, EX_BINARY, ET_SCALAR, end->dtype, sp);
	e->u.op.op = BIN_SUB;
	e->u.op.a = end;
	e->u.op.b = begin;
	return e;
}

/* Shape of a tensor expression (rank tensor_rank(e)). */
static Expr **
tensor_shape(Lower *L, const Expr *e)
{
	int n = tensor_rank(e);
	Expr **s = NEWN(&L->c->arena, Expr *, n > 0 ? n : 1);
	switch (e->kind) {
	case EX_BUF:
		for (int i = 0; i < n; i++)
			s[i] = e->u.buf->shape[i];
		break;
	case EX_REGION: {
		Expr **base = tensor_shape(L, e->u.region.base);
		int k = 0;
		for (int i = 0; i < e->u.region.ndims; i++) {
			const Slice *d = &e->u.region.dims[i];
			if (!d->is_slice)
				continue;
			s[k++] = extent_of(L, d->begin,
					   d->end ? d->end : base[i], e->span);
		}
		break;
	}
	case EX_VIEW_DTYPE: {
		Expr **base = tensor_shape(L, e->u.view.base);
		for (int i = 0; i < n; i++)
			s[i] = base[i];
		int ob = dtype_bits(e->u.view.base->dtype);
		int nb = dtype_bits(e->dtype);
		int64_t v;
		if (n > 0 && ob > 0 && nb > 0 && ir_const_int(s[n - 1], &v)) {
			int64_t bits = (int64_t)((uint64_t)v * (uint64_t)ob);
			s[n - 1] = ir_int(L->c, bits / nb, s[n - 1]->dtype,
					  e->span);
		}
		break;
	}
	case EX_VIEW_RESHAPE:
		for (int i = 0; i < n; i++)
			s[i] = e->u.view.shape.v[i];
		break;
	default:
		break;
	}
	return s;
}

static Expr *
need_tensor(Lower *L, Expr *e, Span sp)
{
	if (e && e->type != ET_TENSOR) {
		diag_error(L->c, PT_E_NOT_TENSOR, sp, "expected a tensor");
		return NULL;
	}
	return e;
}

static Expr *
index_expr(Lower *L, Ast *a)
{
	return need_int(L, lower_expr(L, a), a->span);
}

static bool
lower_slice(Lower *L, Ast *a, Slice *out)
{
	if (a->kind != A_SLICE) {
		out->begin = index_expr(L, a);
		return out->begin != NULL;
	}
	if (a->c)
		return diag_error(L->c, PT_E_BAD_INDEX, a->c->span,
				  "slice steps are not supported");
	out->is_slice = true;
	if (a->a && !(out->begin = index_expr(L, a->a)))
		return false;
	if (a->b && !(out->end = index_expr(L, a->b)))
		return false;
	return true;
}

/* base[items]: a load when every item is an index, else a region. */
static Expr *
make_subscript(Lower *L, Expr *base, AstVec *items, bool sub, Span sp)
{
	if (!need_tensor(L, base, sp))
		return NULL;
	int rank = tensor_rank(base);
	if ((int)items->n != rank) {
		diag_error(L->c, PT_E_RANK, sp,
			   "tensor of rank %d subscripted with %zu indices",
			   rank, items->n);
		return NULL;
	}
	Slice *dims = NEWN(&L->c->arena, Slice, rank > 0 ? rank : 1);
	bool any_slice = sub;
	for (int i = 0; i < rank; i++) {
		if (!lower_slice(L, items->v[i], &dims[i]))
			return NULL;
		any_slice |= dims[i].is_slice;
	}
	if (!any_slice) {
		Expr *e = ir_new_expr(L->c, EX_LOAD, ET_SCALAR, base->dtype, sp);
		e->u.access.base = base;
		for (int i = 0; i < rank; i++)
			vec_push(&L->c->arena, &e->u.access.indices,
				 dims[i].begin);
		return e;
	}
	/* X[i, :] keeps axis i with extent 1 (as TIRx does); only
	 * X.sub[i, :] drops it */
	for (int i = 0; i < rank && !sub; i++) {
		if (dims[i].is_slice)
			continue;
		dims[i].is_slice = true;
		dims[i].end = ir_new_expr(L->c, EX_BINARY, ET_SCALAR,
					  dims[i].begin->dtype, sp);
		dims[i].end->u.op.op = BIN_ADD;
		dims[i].end->u.op.a = dims[i].begin;
		dims[i].end->u.op.b = ir_int(L->c, 1, dims[i].begin->dtype, sp);
	}
	Expr *e = ir_new_expr(L->c, EX_REGION, ET_TENSOR, base->dtype, sp);
	e->u.region.base = base;
	e->u.region.sub = sub;
	e->u.region.dims = dims;
	e->u.region.ndims = rank;
	return e;
}

static Expr *
lower_subscript(Lower *L, Ast *a)
{
	Ast *obj = a->a;
	const char *p = ast_path(L, obj);
	if (path_is(p, "ptx")) {
		diag_error(L->c, PT_E_UNSUPPORTED, a->span,
			   "T.ptx[...] must be called or passed to "
			   "T.cuda.tile.apply");
		return NULL;
	}
	if (p) {
		diag_error(L->c, PT_E_UNSUPPORTED, a->span,
			   "subscript of T.%s is not supported here", p);
		return NULL;
	}
	bool sub = obj->kind == A_ATTR && !strcmp(obj->name, "sub");
	Expr *base = lower_expr(L, sub ? obj->a : obj);
	if (!base)
		return NULL;
	return make_subscript(L, base, &a->list, sub, a->span);
}

/* ---- shapes ---- */

/* A shape written as an int, an expression or a tuple/list of them. */
static bool
lower_shape(Lower *L, Arg *arg, ExprVec *out)
{
	Expr *e = arg_expr(L, arg);
	if (!e)
		return false;
	if (e->kind != EX_TUPLE) {
		if (!need_int(L, e, arg->span))
			return false;
		vec_push(&L->c->arena, out, e);
		return true;
	}
	for (size_t i = 0; i < e->u.tuple.n; i++) {
		Expr *d = need_int(L, e->u.tuple.v[i], arg->span);
		if (!d)
			return false;
		vec_push(&L->c->arena, out, d);
	}
	return true;
}

static void
set_shape(Buffer *b, ExprVec *shape)
{
	b->ndim = (int)shape->n;
	b->shape = shape->v;
}

/* ---- tensor methods ---- */

static Expr *
lower_view(Lower *L, Expr *base, Ast *call)
{
	Args a;
	if (!split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {"layout", NULL};
	if (!check_keywords(L, &a, kws, "view"))
		return NULL;
	if (a.pos.n == 1 && !kwarg(&a, "layout")) {
		Arg *x = &a.pos.v[0];
		Sym *s = x->ast && x->ast->kind == A_NAME
				 ? lookup(L, x->ast->name) : NULL;
		bool is_dtype = (x->ast && (x->ast->kind == A_STR ||
					    (ast_path(L, x->ast) &&
					     *ast_path(L, x->ast)))) ||
				(x->val && x->val->kind == EX_STR) ||
				(s && s->kind == SYM_CONST &&
				 s->cval->kind == EX_STR);
		if (is_dtype) {
			DType t;
			if (!arg_dtype(L, x, &t))
				return NULL;
			Expr *e = ir_new_expr(L->c, EX_VIEW_DTYPE, ET_TENSOR, t,
					      call->span);
			e->u.view.base = base;
			return e;
		}
	}
	if (a.pos.n == 0)
		return diag_error(L->c, PT_E_ARG_COUNT, call->span,
				  "view needs a dtype or a shape"), NULL;
	Expr *e = ir_new_expr(L->c, EX_VIEW_RESHAPE, ET_TENSOR, base->dtype,
			      call->span);
	e->u.view.base = base;
	for (size_t i = 0; i < a.pos.n; i++)
		if (!lower_shape(L, &a.pos.v[i], &e->u.view.shape))
			return NULL;
	Ast *lay = kwarg(&a, "layout");
	if (lay && !lower_layout(L, lay, &e->u.view.layout))
		return NULL;
	return e;
}

static Expr *
lower_ptr_to(Lower *L, Expr *base, Ast *call)
{
	Args a;
	if (!split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {NULL};
	if (!check_keywords(L, &a, kws, "ptr_to") ||
	    !check_count(L, &a, 1, 1, call->span, "ptr_to"))
		return NULL;
	Expr *idx = arg_expr(L, &a.pos.v[0]);
	if (!idx)
		return NULL;
	if (idx->kind != EX_TUPLE) {
		diag_error(L->c, PT_E_TYPE_MISMATCH, a.pos.v[0].span,
			   "ptr_to takes a list of indices");
		return NULL;
	}
	if ((int)idx->u.tuple.n != tensor_rank(base)) {
		diag_error(L->c, PT_E_RANK, a.pos.v[0].span,
			   "tensor of rank %d given %zu indices",
			   tensor_rank(base), idx->u.tuple.n);
		return NULL;
	}
	Expr *e = ir_new_expr(L->c, EX_PTR_TO, ET_SCALAR, DT_UINT64,
			      call->span);
	e->u.access.base = base;
	for (size_t i = 0; i < idx->u.tuple.n; i++) {
		Expr *x = need_int(L, idx->u.tuple.v[i], a.pos.v[0].span);
		if (!x)
			return NULL;
		vec_push(&L->c->arena, &e->u.access.indices, x);
	}
	return e;
}

static Expr *
lower_method(Lower *L, Ast *call)
{
	Ast *callee = call->a;
	const char *m = callee->name;
	if (strcmp(m, "view") && strcmp(m, "ptr_to")) {
		diag_error(L->c, PT_E_UNSUPPORTED, callee->span,
			   "method '%s' is not supported", m);
		return NULL;
	}
	Expr *base = need_tensor(L, lower_expr(L, callee->a), callee->a->span);
	if (!base)
		return NULL;
	return !strcmp(m, "view") ? lower_view(L, base, call)
				  : lower_ptr_to(L, base, call);
}

/* ---- raw PTX ---- */

static bool
check_spelling(Lower *L, const char *s, Span sp)
{
	if (!*s)
		return diag_error(L->c, PT_E_PTX_SPELLING, sp,
				  "empty PTX spelling");
	const char *bad = ptx_spelling_bad_char(s);
	if (bad)
		return diag_error(L->c, PT_E_PTX_SPELLING, sp,
				  "character '%c' in PTX spelling \"%s\"",
				  *bad, s);
	return true;
}

/* The spelling of an instruction reference: T.ptx["..."] or T.ptx.chain.
 * NULL (no diagnostic) when a is neither. */
static const char *
ptx_ref(Lower *L, Ast *a, bool *err)
{
	*err = false;
	if (a->kind == A_SUBSCRIPT && path_is(ast_path(L, a->a), "ptx")) {
		if (a->list.n != 1 || a->list.v[0]->kind == A_SLICE) {
			*err = true;
			diag_error(L->c, PT_E_PTX_SPELLING, a->span,
				   "T.ptx[...] takes one string");
			return NULL;
		}
		const char *s = const_str(L, a->list.v[0], "T.ptx[...]");
		if (!s || !check_spelling(L, s, a->list.v[0]->span)) {
			*err = true;
			return NULL;
		}
		return s;
	}
	const char *p = ast_path(L, a);
	if (!p || strncmp(p, "ptx.", 4))
		return NULL;
	/* "ptx.fence.proxy.async_.shared__cta" -> "fence.proxy.async.shared::cta" */
	const char *s = ptx_chain_to_spelling(&L->c->arena, p + 4);
	if (!s) {
		diag_error(L->c, PT_E_PTX_SPELLING, a->span,
			   "empty part in the PTX chain \"%s\"", p + 4);
		*err = true;
		return NULL;
	}
	if (!check_spelling(L, s, a->span)) {
		*err = true;
		return NULL;
	}
	return s;
}

static bool
lower_operands(Lower *L, Args *a, size_t from, ExprVec *out)
{
	for (size_t i = from; i < a->pos.n; i++) {
		Expr *e = arg_expr(L, &a->pos.v[i]);
		if (!e)
			return false;
		settle(e);
		vec_push(&L->c->arena, out, e);
	}
	return true;
}

static Expr *
lower_ptx_call(Lower *L, Ast *call, const char *spelling)
{
	Args a;
	if (!split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {"pred", "preserve_dst", NULL};
	if (!check_keywords(L, &a, kws, "a T.ptx call"))
		return NULL;
	Expr *e = ir_new_expr(L->c, EX_PTX, ET_VOID, DT_NONE, call->span);
	e->u.ptx.spelling = spelling;
	e->u.ptx.opcode_span = call->a->span;
	if (!lower_operands(L, &a, 0, &e->u.ptx.args))
		return NULL;
	Ast *pred = kwarg(&a, "pred");
	if (pred && !(e->u.ptx.pred = need_bool(L, lower_expr(L, pred),
						pred->span)))
		return NULL;
	Ast *pd = kwarg(&a, "preserve_dst");
	if (pd) {
		Expr *v = lower_expr(L, pd);
		if (!v)
			return NULL;
		if (v->kind != EX_BOOL)
			return diag_error(L->c, PT_E_NOT_CONST, pd->span,
					  "preserve_dst must be True or False"),
			       NULL;
		e->u.ptx.preserve_dst = v->u.ival != 0;
	}
	return e;
}

/* ---- tile calls ---- */

static bool
scope_kw(Lower *L, Args *a, ExecScope *out)
{
	*out = ES_THREAD;
	Ast *s = kwarg(a, "scope");
	if (!s)
		return true;
	const char *name = const_str(L, s, "scope");
	if (!name)
		return false;
	if (!execscope_parse(name, out))
		return diag_error(L->c, PT_E_UNKNOWN_SCOPE, s->span,
				  "unknown execution scope '%s'", name);
	return true;
}

static Expr *
lower_apply(Lower *L, Ast *call)
{
	Args a;
	if (!split_args(L, call, &a))
		return NULL;
	if (a.pos.n == 0 || !a.pos.v[0].ast)
		return diag_error(L->c, PT_E_ARG_COUNT, call->span,
				  "apply needs an instruction T.ptx[\"...\"]"),
		       NULL;
	bool err;
	const char *op = ptx_ref(L, a.pos.v[0].ast, &err);
	if (!op) {
		if (!err)
			diag_error(L->c, PT_E_TYPE_MISMATCH, a.pos.v[0].span,
				   "apply's first argument must be "
				   "T.ptx[\"opcode\"]");
		return NULL;
	}
	Expr *e = ir_new_expr(L->c, EX_TILE_APPLY, ET_VOID, DT_NONE,
			      call->span);
	e->u.apply.opcode = op;
	e->u.apply.opcode_span = a.pos.v[0].span;
	if (!lower_operands(L, &a, 1, &e->u.apply.operands) ||
	    !scope_kw(L, &a, &e->u.apply.scope))
		return NULL;
	for (size_t i = 0; i < a.kw.n; i++) {
		Ast *k = a.kw.v[i];
		if (!strcmp(k->name, "scope"))
			continue;
		if (!strcmp(k->name, "attrs") || !strcmp(k->name, "ty") ||
		    !strcmp(k->name, "ty_args") || !strcmp(k->name, "loc"))
			return diag_error(L->c, PT_E_UNSUPPORTED, k->span,
					  "the generic keyword '%s' is not "
					  "supported", k->name), NULL;
		NamedArg na = {k->name, lower_expr(L, k->a), k->span};
		if (!na.value)
			return NULL;
		settle(na.value);
		vec_push(&L->c->arena, &e->u.apply.params, na);
	}
	return e;
}

static Expr *
lower_ewise(Lower *L, Ast *call)
{
	Args a;
	if (!split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {"scope", NULL};
	if (!check_keywords(L, &a, kws, "ewise") ||
	    !check_count(L, &a, 2, MAX_SEQ, call->span, "ewise"))
		return NULL;
	Ast *f = a.pos.v[0].ast;
	Sym *s = f && f->kind == A_NAME ? lookup(L, f->name) : NULL;
	if (!s || s->kind != SYM_FUNC || s->fn->is_kernel)
		return diag_error(L->c, PT_E_BAD_EWISE, a.pos.v[0].span,
				  "ewise's first argument must name a scalar "
				  "@T.function"), NULL;
	Expr *e = ir_new_expr(L->c, EX_TILE_EWISE, ET_VOID, DT_NONE,
			      call->span);
	e->u.ewise.fn = s->fn;
	e->u.ewise.dst = arg_expr(L, &a.pos.v[1]);
	if (!e->u.ewise.dst || !lower_operands(L, &a, 2, &e->u.ewise.inputs) ||
	    !scope_kw(L, &a, &e->u.ewise.scope))
		return NULL;
	return e;
}

/* ---- builtins of builtins.def ---- */

static bool
check_thread_axis(Lower *L, Expr *e, Span sp)
{
	if (e->kind == EX_STR && (!strcmp(e->u.str, "x") ||
				  !strcmp(e->u.str, "y") ||
				  !strcmp(e->u.str, "z")))
		return true;
	return diag_error(L->c, PT_E_UNKNOWN_AXIS, sp,
			  "expected \"x\", \"y\" or \"z\"");
}

static Expr *
fold_builtin(Lower *L, Builtin id, Expr **v, size_t n, Span sp)
{
	int64_t x, y;
	if (n == 0 || v[0]->kind != EX_INT || !ir_const_int(v[0], &x))
		return NULL;
	DType t = v[0]->dtype;
	if (id == BI_ABS && !is_unsigned(t))
		return ir_int(L->c, wrap_int(x < 0 ? (int64_t)(0 - (uint64_t)x) : x, t), t, sp);
	if (n < 2 || !ir_const_int(v[1], &y))
		return NULL;
	bool u = is_unsigned(t);
	bool less = u ? (uint64_t)x < (uint64_t)y : x < y;
	if (id == BI_MIN)
		return ir_int(L->c, less ? x : y, t, sp);
	if (id == BI_MAX)
		return ir_int(L->c, less ? y : x, t, sp);
	if (id == BI_CEILDIV && y > 0 && x >= 0)
		return ir_int(L->c, wrap_int(x / y + (x % y != 0), t), t, sp);
	return NULL;
}

static bool
unify_args(Lower *L, Expr **v, size_t n, Span sp)
{
	for (size_t i = 1; i < n; i++)
		if (!unify(L, &v[0], &v[i], sp))
			return false;
	for (size_t i = 1; i < n; i++)
		if (!unify(L, &v[0], &v[i], sp))
			return false;
	return true;
}

static Expr *
lower_builtin(Lower *L, Builtin id, Ast *call)
{
	const BuiltinInfo *bi = builtin_info(id);
	Args a;
	if (!split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {NULL};
	if (!check_keywords(L, &a, kws, bi->spelling) ||
	    !check_count(L, &a, (size_t)bi->nargs, (size_t)bi->nargs,
			 call->span, bi->spelling))
		return NULL;
	Expr *v[4] = {0};
	size_t n = a.pos.n;
	for (size_t i = 0; i < n; i++) {
		v[i] = arg_expr(L, &a.pos.v[i]);
		if (!v[i])
			return NULL;
	}
	ExprType ty = ET_SCALAR;
	DType rt = DT_NONE;
	switch (bi->result) {
	case BR_VOID: ty = ET_VOID; break;
	case BR_INT32: rt = DT_INT32; break;
	case BR_UINT32: rt = DT_UINT32; break;
	case BR_BOOL: rt = DT_BOOL; break;
	case BR_ARG:
		for (size_t i = 0; i < n; i++)
			if (!need_scalar(L, v[i], a.pos.v[i].span))
				return NULL;
		if (!unify_args(L, v, n, call->span))
			return NULL;
		rt = v[0]->dtype;
		break;
	}
	if (id == BI_THREAD_IDX || id == BI_BLOCK_IDX || id == BI_CLUSTER_CTA_ID)
		if (!check_thread_axis(L, v[0], a.pos.v[0].span))
			return NULL;
	if (bi->result == BR_ARG && id >= BI_EXP && id <= BI_SIGMOID &&
	    dtype_kind(rt) != DK_FLOAT)
		return diag_error(L->c, PT_E_TYPE_MISMATCH, call->span,
				  "%s needs a float argument, found %s",
				  bi->spelling, rt == DT_NONE ? "an int literal"
							      : dtype_name(rt)),
		       NULL;
	if (id == BI_CEILDIV && (!is_intlike(rt) || v[0]->kind == EX_FLOAT))
		return diag_error(L->c, PT_E_TYPE_MISMATCH, call->span,
				  "T.ceildiv needs integers"), NULL;
	if (bi->result == BR_ARG) {
		Expr *f = fold_builtin(L, id, v, n, call->span);
		if (f)
			return f;
		for (size_t i = 0; i < n; i++)
			settle(v[i]);
		rt = v[0]->dtype;
	}
	Expr *e = ir_new_expr(L->c, EX_BUILTIN, ty, rt, call->span);
	e->u.call.id = id;
	for (size_t i = 0; i < n; i++) {
		settle(v[i]);
		vec_push(&L->c->arena, &e->u.call.args, v[i]);
	}
	return e;
}

/* ---- other T.* calls ---- */

/* T.uint32(v) of a Python int: v must be a value of the dtype (TVM's
 * IntImm rejects the rest rather than wrapping). */
static bool
literal_fits(int64_t v, DType t)
{
	int bits = dtype_bits(t);
	if (bits <= 0 || bits > 64)
		return true;
	if (is_unsigned(t))
		return v >= 0 && (bits == 64 || v <= (int64_t)((UINT64_C(1) << bits) - 1));
	return bits == 64 || (v >= -(INT64_C(1) << (bits - 1)) &&
			      v < (INT64_C(1) << (bits - 1)));
}

static Expr *
lower_typed(Lower *L, DType t, Ast *call)
{
	Args a;
	if (!split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {NULL};
	if (!check_keywords(L, &a, kws, dtype_name(t)) ||
	    !check_count(L, &a, 1, 1, call->span, dtype_name(t)))
		return NULL;
	Expr *x = arg_expr(L, &a.pos.v[0]);
	if (x && x->kind == EX_INT && x->dtype == DT_NONE && t != DT_BOOL &&
	    dtype_kind(t) != DK_FLOAT && !literal_fits(x->u.ival, t)) {
		diag_error(L->c, PT_E_LITERAL_RANGE, call->span,
			   "%lld is out of range for %s", (long long)x->u.ival,
			   dtype_name(t));
		return NULL;
	}
	return make_cast(L, x, t, call->span);
}

static Expr *
lower_cast(Lower *L, Ast *call)
{
	Args a;
	if (!split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {"ty", "dtype", NULL};
	if (!check_keywords(L, &a, kws, "T.cast"))
		return NULL;
	Ast *ty = kwarg(&a, "ty") ? kwarg(&a, "ty") : kwarg(&a, "dtype");
	if (!check_count(L, &a, ty ? 1 : 2, ty ? 1 : 2, call->span, "T.cast"))
		return NULL;
	DType t;
	if (ty ? !ast_dtype(L, ty, &t) : !arg_dtype(L, &a.pos.v[1], &t))
		return NULL;
	return make_cast(L, arg_expr(L, &a.pos.v[0]), t, call->span);
}

static Expr *
lower_reinterpret(Lower *L, Ast *call)
{
	Args a;
	if (!split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {NULL};
	if (!check_keywords(L, &a, kws, "T.reinterpret") ||
	    !check_count(L, &a, 2, 2, call->span, "T.reinterpret"))
		return NULL;
	DType t;
	if (!arg_dtype(L, &a.pos.v[0], &t))
		return NULL;
	Expr *x = need_scalar(L, arg_expr(L, &a.pos.v[1]), a.pos.v[1].span);
	if (!x)
		return NULL;
	settle(x);
	if (dtype_bits(x->dtype) != dtype_bits(t))
		return diag_error(L->c, PT_E_TYPE_MISMATCH, call->span,
				  "T.reinterpret from %s to %s changes the bit "
				  "width", dtype_name(x->dtype), dtype_name(t)),
		       NULL;
	Expr *e = ir_new_expr(L->c, EX_REINTERPRET, ET_SCALAR, t, call->span);
	e->u.op.a = x;
	return e;
}

static Expr *
lower_select(Lower *L, Ast *call)
{
	Args a;
	if (!split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {NULL};
	if (!check_keywords(L, &a, kws, "T.if_then_else") ||
	    !check_count(L, &a, 3, 3, call->span, "T.if_then_else"))
		return NULL;
	Expr *c = need_bool(L, arg_expr(L, &a.pos.v[0]), a.pos.v[0].span);
	Expr *x = need_scalar(L, c ? arg_expr(L, &a.pos.v[1]) : NULL,
			      a.pos.v[1].span);
	Expr *y = need_scalar(L, x ? arg_expr(L, &a.pos.v[2]) : NULL,
			      a.pos.v[2].span);
	if (!y || !unify(L, &x, &y, call->span))
		return NULL;
	if (c->kind == EX_BOOL)
		return c->u.ival ? x : y;
	settle(x);
	settle(y);
	Expr *e = ir_new_expr(L->c, EX_SELECT, ET_SCALAR, x->dtype, call->span);
	e->u.op.a = c;
	e->u.op.b = x;
	e->u.op.c = y;
	return e;
}

/* Names of the T namespace that exist in TIRx but not in this language. */
static bool
is_known_unsupported(const char *p)
{
	static const char *const names[] = {
		"meta_var", "inline", "macro", "prim_func", "jit",
		"match_buffer", "address_of", "Buffer", "handle", "SMEMPool",
		"TMEMPool", "attr", "call_packed", "thread_id", "cta_id",
		"lane_id", "warp_id", "Select", "grid", "parallel",
		"vectorized", "thread_binding", "constexpr", "let",
		"shared_scalar", "ptr_byte_offset", "tvm_access_ptr", NULL,
	};
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(names[i], p))
			return true;
	return false;
}

static Expr *
lower_path_call(Lower *L, Ast *call, const char *p)
{
	DType t;
	Builtin id;
	const char *full = arena_printf(&L->c->arena, "T.%s", p);
	if (!strncmp(p, "ptx.", 4)) {
		bool err;
		const char *s = ptx_ref(L, call->a, &err);
		return s ? lower_ptx_call(L, call, s) : NULL;
	}
	if (dtype_parse(p, &t))
		return lower_typed(L, t, call);
	if (builtin_parse(full, &id))
		return lower_builtin(L, id, call);
	if (!strcmp(p, "cast"))
		return lower_cast(L, call);
	if (!strcmp(p, "reinterpret"))
		return lower_reinterpret(L, call);
	if (!strcmp(p, "if_then_else"))
		return lower_select(L, call);
	if (!strcmp(p, "cuda.tile.apply"))
		return lower_apply(L, call);
	if (!strcmp(p, "cuda.tile.ewise"))
		return lower_ewise(L, call);
	int code = PT_E_UNKNOWN_BUILTIN;
	const char *why = "is not a builtin";
	if (is_alloc_path(p)) {
		code = PT_E_UNSUPPORTED;
		why = "must be assigned to a name (x = ...)";
	} else if (!strcmp(p, "device_entry")) {
		code = PT_E_DEVICE_ENTRY;
		why = "must be the first statement of a kernel";
	} else if (is_layout_path(p) || !strcmp(p, "S") || !strcmp(p, "R")) {
		code = PT_E_BAD_LAYOUT;
		why = "is only valid where a layout is expected";
	} else if (!strcmp(p, "evaluate")) {
		code = PT_E_UNSUPPORTED;
		why = "is only valid as a statement";
	} else if (!strcmp(p, "serial") || !strcmp(p, "unroll")) {
		code = PT_E_UNSUPPORTED;
		why = "is only valid in a for statement";
	} else if (!strcmp(p, "dynamic")) {
		code = PT_E_UNSUPPORTED;
		why = "is only valid at module level (n = T.dynamic(\"n\"))";
	} else if (is_known_unsupported(p)) {
		code = PT_E_UNSUPPORTED;
		why = "is not supported by this language";
	}
	diag_error(L->c, code, call->a->span, "%s %s", full, why);
	return NULL;
}

#define INLINE_MAX_NODES 65536

/* f(args) of a scalar function: its body as one expression over the
 * arguments (inline.c). */
static Expr *
lower_scalar_call(Lower *L, Ast *call, const Func *f)
{
	Args a;
	if (!split_args(L, call, &a) ||
	    !check_keywords(L, &a, (const char *const[]){NULL}, f->name))
		return NULL;
	if (f->body.n == 0) /* not lowered yet: defined below, or itself */
		return diag_error(L->c, PT_E_UNSUPPORTED, call->a->span,
				  "scalar function '%s' is not complete here: a "
				  "function may call only scalar functions "
				  "defined above it (no recursion)", f->name),
		       NULL;
	if (a.pos.n != f->params.n)
		return diag_error(L->c, PT_E_ARG_COUNT, call->span,
				  "%s takes %zu arguments, got %zu", f->name,
				  f->params.n, a.pos.n),
		       NULL;
	Expr **args = NEWN(&L->c->arena, Expr *, a.pos.n + 1);
	for (size_t i = 0; i < a.pos.n; i++) {
		args[i] = coerce(L, need_scalar(L, arg_expr(L, &a.pos.v[i]),
						a.pos.v[i].span),
				 f->params.v[i].var->dtype, a.pos.v[i].span);
		if (!args[i])
			return NULL;
	}
	Expr *x = ir_inline_call(L->c, f, args, a.pos.n);
	if (!x)
		diag_error(L->c, PT_E_UNSUPPORTED, call->a->span,
			   "scalar function '%s' is not complete here: a "
			   "function may call only scalar functions defined "
			   "above it (no recursion)", f->name);
	/* nested calls share their arguments; written out as a tree
	 * (codegen, print) they could double per level */
	else if (ir_tree_size(x, INLINE_MAX_NODES + 1) > INLINE_MAX_NODES)
		return diag_error(L->c, PT_E_UNSUPPORTED, call->a->span,
				  "calling '%s' here makes an expression of "
				  "more than %d nodes", f->name,
				  INLINE_MAX_NODES),
		       NULL;
	return x;
}

static Expr *
lower_call(Lower *L, Ast *call)
{
	Ast *callee = call->a;
	bool err;
	const char *s = callee->kind == A_SUBSCRIPT ? ptx_ref(L, callee, &err)
						    : NULL;
	if (s)
		return lower_ptx_call(L, call, s);
	if (callee->kind == A_SUBSCRIPT && err)
		return NULL;
	const char *p = ast_path(L, callee);
	if (p && *p)
		return lower_path_call(L, call, p);
	if (callee->kind == A_ATTR && !p)
		return lower_method(L, call);
	if (callee->kind == A_NAME) {
		Sym *sym = lookup(L, callee->name);
		if (sym && sym->kind == SYM_ERROR)
			return NULL;
		if (!sym && !strcmp(callee->name, "range")) {
			diag_error(L->c, PT_E_UNSUPPORTED, callee->span,
				   "range() is only valid in a for statement");
			return NULL;
		}
		if (!sym) {
			diag_error(L->c, PT_E_UNKNOWN_NAME, callee->span,
				   "unknown name '%s'", callee->name);
			return NULL;
		}
		if (sym->kind == SYM_FUNC && !sym->fn->is_kernel)
			return lower_scalar_call(L, call, sym->fn);
	}
	diag_error(L->c, PT_E_UNSUPPORTED, callee->span,
		   "this call is not supported (only T builtins, T.ptx, "
		   "view and ptr_to)");
	return NULL;
}

/* ---- expressions ---- */

static Expr *
lower_name(Lower *L, Ast *a)
{
	Sym *s = lookup(L, a->name);
	if (!s) {
		diag_error(L->c, PT_E_UNKNOWN_NAME, a->span, "unknown name '%s'",
			   a->name);
		return NULL;
	}
	switch (s->kind) {
	case SYM_CONST:
		return clone_const(L, s->cval, a->span);
	case SYM_VAR: {
		Expr *e = ir_new_expr(L->c, EX_VAR, ET_SCALAR, s->var->dtype,
				      a->span);
		e->u.var = s->var;
		return e;
	}
	case SYM_BUF: {
		Expr *e = ir_new_expr(L->c, EX_BUF, ET_TENSOR, s->buf->dtype,
				      a->span);
		e->u.buf = s->buf;
		return e;
	}
	case SYM_ERROR:
		return NULL;
	default:
		diag_error(L->c, PT_E_NOT_SCALAR, a->span,
			   "'%s' is not a value", a->name);
		return NULL;
	}
}

static Expr *
lower_tuple(Lower *L, Ast *a)
{
	Expr *e = ir_new_expr(L->c, EX_TUPLE, ET_TUPLE, DT_NONE, a->span);
	Args tmp = {0};
	for (size_t i = 0; i < a->list.n; i++) {
		Ast *x = a->list.v[i];
		if (x->kind == A_STAR) {
			if (!expand_star(L, x, &tmp))
				return NULL;
		} else {
			Arg arg = {x, NULL, x->span};
			vec_push(&L->c->arena, &tmp.pos, arg);
		}
		if (tmp.pos.n > MAX_SEQ) {
			diag_error(L->c, PT_E_TOO_LARGE, a->span,
				   "sequence longer than %d", MAX_SEQ);
			return NULL;
		}
	}
	for (size_t i = 0; i < tmp.pos.n; i++) {
		Expr *x = arg_expr(L, &tmp.pos.v[i]);
		if (!x)
			return NULL;
		if (x->type == ET_VOID) {
			diag_error(L->c, PT_E_NOT_SCALAR, tmp.pos.v[i].span,
				   "a call without a value in a tuple");
			return NULL;
		}
		vec_push(&L->c->arena, &e->u.tuple, x);
	}
	return e;
}

static Expr *
lower_binary_ast(Lower *L, Ast *a)
{
	if (a->op == TK_AT) {
		diag_error(L->c, PT_E_BAD_LAYOUT, a->span,
			   "'@' is only valid in layouts (k@axis)");
		return NULL;
	}
	BinOp op;
	if (!binop_of(a->op, &op)) {
		diag_error(L->c, PT_E_UNSUPPORTED, a->span, "unsupported operator");
		return NULL;
	}
	Expr *x = lower_expr(L, a->a);
	Expr *y = x ? lower_expr(L, a->b) : NULL;
	if (!y)
		return NULL;
	return make_binary(L, op, x, y, a->span);
}

static Expr *
lower_expr(Lower *L, Ast *a)
{
	switch (a->kind) {
	case A_INT:
		if (a->ival > (uint64_t)INT64_MAX)
			return ir_int(L->c, (int64_t)a->ival, DT_UINT64, a->span);
		return ir_int(L->c, (int64_t)a->ival, DT_NONE, a->span);
	case A_FLOAT:
		return ir_float(L->c, a->fval, DT_NONE, a->span);
	case A_STR: {
		Expr *e = ir_new_expr(L->c, EX_STR, ET_STR, DT_NONE, a->span);
		e->u.str = a->str;
		return e;
	}
	case A_BOOL:
		return ir_bool(L->c, a->ival != 0, a->span);
	case A_NAME:
		return lower_name(L, a);
	case A_TUPLE:
	case A_LIST:
		return lower_tuple(L, a);
	case A_UNARY: {
		Expr *x = lower_expr(L, a->a);
		if (!x)
			return NULL;
		if (a->op == TK_PLUS)
			return need_scalar(L, x, a->span);
		return make_unary(L, a->op == TK_MINUS ? UN_NEG : UN_BNOT, x,
				  a->span);
	}
	case A_NOT: {
		Expr *x = lower_expr(L, a->a);
		return x ? make_unary(L, UN_LNOT, x, a->span) : NULL;
	}
	case A_AND:
	case A_OR: {
		Expr *x = lower_expr(L, a->a);
		Expr *y = x ? lower_expr(L, a->b) : NULL;
		if (!need_bool(L, x, a->a->span) || !need_bool(L, y, a->b->span))
			return NULL;
		return make_binary(L, a->kind == A_AND ? BIN_LAND : BIN_LOR, x,
				   y, a->span);
	}
	case A_BINARY:
	case A_COMPARE:
		return lower_binary_ast(L, a);
	case A_CALL:
		return lower_call(L, a);
	case A_SUBSCRIPT:
		return lower_subscript(L, a);
	case A_ATTR: {
		const char *p = ast_path(L, a);
		if (p)
			diag_error(L->c, PT_E_UNSUPPORTED, a->span,
				   "T.%s is not a value here", p);
		else
			diag_error(L->c, PT_E_UNSUPPORTED, a->span,
				   "attribute '%s' is not supported", a->name);
		return NULL;
	}
	case A_NONE:
		diag_error(L->c, PT_E_UNSUPPORTED, a->span,
			   "None is not supported");
		return NULL;
	default:
		diag_error(L->c, PT_E_UNSUPPORTED, a->span,
			   "this expression is not supported here");
		return NULL;
	}
}

/* ---- layouts ---- */

static bool
ast_axis(Lower *L, Ast *a, Axis *out)
{
	const char *p = ast_path(L, a);
	const char *name = NULL;
	if (p && !strncmp(p, "Axis.", 5))
		name = p + 5;
	else if (p && !strncmp(p, "cuda.Axis.", 10)) /* TIRx's spelling */
		name = p + 10;
	else if (a->kind == A_STR)
		name = a->str;
	if (!name) {
		if (a->kind == A_NAME && !lookup(L, a->name))
			return diag_error(L->c, PT_E_UNKNOWN_AXIS, a->span,
					  "unknown axis '%s' (import it from "
					  "tvm_tirx.backend.cuda.axis or write "
					  "T.cuda.Axis.%s)", a->name, a->name);
		return diag_error(L->c, PT_E_UNKNOWN_AXIS, a->span,
				  "expected a layout axis such as "
				  "T.cuda.Axis.laneid");
	}
	if (!axis_parse(name, out)) {
		const char *names[AX_COUNT];
		StrBuf all;
		sb_init(&all, &L->c->arena);
		for (int i = 0; i < AX_COUNT; i++) {
			names[i] = axis_name((Axis)i);
			sb_printf(&all, "%s%s", i ? " " : "", names[i]);
		}
		const char *near = suggest_name(name, names, AX_COUNT);
		return diag_error(L->c, PT_E_UNKNOWN_AXIS, a->span,
				  "unknown axis '%s'%s%s%s (axes: %s)", name,
				  near ? "; did you mean '" : "",
				  near ? near : "", near ? "'?" : "",
				  sb_cstr(&all));
	}
	return true;
}

/* A stride: k (on m), k@axis, or "axis" (1@axis). */
static bool
layout_stride(Lower *L, Ast *a, int64_t *v, Axis *ax)
{
	if (a->kind == A_STR) {
		*v = 1;
		return ast_axis(L, a, ax);
	}
	if (a->kind == A_BINARY && a->op == TK_AT) {
		return const_int(L, a->a, v) && ast_axis(L, a->b, ax);
	}
	*ax = AX_M;
	return const_int(L, a, v);
}

static void
seq_items(Ast *a, Ast ***items, size_t *n)
{
	if (a->kind == A_TUPLE || a->kind == A_LIST) {
		*items = a->list.v;
		*n = a->list.n;
	} else {
		*items = NULL;
		*n = 1;
	}
}

/* S[...] or R[...] into iters. */
static bool
layout_iters(Lower *L, Ast *sub, IterVec *out)
{
	Ast **ext, **str = NULL;
	size_t next, nstr = 0;
	Ast *one = sub->list.n == 1 ? sub->list.v[0] : NULL;
	if (one && one->kind == A_SLICE) {
		if (!one->a || !one->b || one->c)
			return diag_error(L->c, PT_E_BAD_LAYOUT, one->span,
					  "expected S[extents:strides]");
		seq_items(one->a, &ext, &next);
		if (!ext)
			ext = &one->a;
		seq_items(one->b, &str, &nstr);
		if (!str)
			str = &one->b;
		if (next != nstr)
			return diag_error(L->c, PT_E_BAD_LAYOUT, one->span,
					  "%zu extents but %zu strides", next,
					  nstr);
	} else if (one) {
		seq_items(one, &ext, &next);
		if (!ext)
			ext = &sub->list.v[0];
	} else {
		ext = sub->list.v;
		next = sub->list.n;
	}
	for (size_t i = 0; i < next; i++) {
		LayoutIter it = {0, 1, AX_M};
		if (ext[i]->kind == A_SLICE)
			return diag_error(L->c, PT_E_BAD_LAYOUT, ext[i]->span,
					  "unexpected ':' in a layout");
		if (!const_int(L, ext[i], &it.extent))
			return false;
		if (str && !layout_stride(L, str[i], &it.stride, &it.axis))
			return false;
		vec_push(&L->c->arena, out, it);
	}
	if (!str) {
		/* extents only: row-major strides on m */
		uint64_t s = 1;
		for (size_t i = out->n; i-- > 0;) {
			out->v[i].stride = (int64_t)s;
			s *= (uint64_t)out->v[i].extent;
		}
	}
	return true;
}

static bool
layout_terms(Lower *L, Ast *a, AstVec *out, int depth)
{
	if (depth > AST_MAX_DEPTH)
		return false;
	if (a->kind == A_BINARY && a->op == TK_PLUS)
		return layout_terms(L, a->a, out, depth + 1) &&
		       layout_terms(L, a->b, out, depth + 1);
	vec_push(&L->c->arena, out, a);
	return true;
}

static void
add_offset(Lower *L, OffsetVec *offs, int64_t v, Axis ax)
{
	for (size_t i = 0; i < offs->n; i++)
		if (offs->v[i].axis == ax) {
			offs->v[i].value = (int64_t)((uint64_t)offs->v[i].value +
						     (uint64_t)v);
			return;
		}
	LayoutOffset o = {v, ax};
	vec_push(&L->c->arena, offs, o);
}

static bool
tile_layout(Lower *L, Ast *spec, Layout **out)
{
	AstVec terms = {0};
	IterVec shard = {0}, rep = {0};
	OffsetVec offs = {0};
	bool have_s = false, have_r = false;
	layout_terms(L, spec, &terms, 0);
	for (size_t i = 0; i < terms.n; i++) {
		Ast *t = terms.v[i];
		const char *p = t->kind == A_SUBSCRIPT ? ast_path(L, t->a) : NULL;
		if (path_is(p, "S") || path_is(p, "R")) {
			bool is_s = p[0] == 'S';
			if (is_s ? have_s : have_r)
				return diag_error(L->c, PT_E_BAD_LAYOUT, t->span,
						  "more than one %s[...]", p);
			if (is_s ? have_r : false)
				return diag_error(L->c, PT_E_BAD_LAYOUT, t->span,
						  "S[...] must come before R[...]");
			*(is_s ? &have_s : &have_r) = true;
			if (!layout_iters(L, t, is_s ? &shard : &rep))
				return false;
			continue;
		}
		int64_t v;
		Axis ax;
		if (t->kind == A_STR)
			return diag_error(L->c, PT_E_BAD_LAYOUT, t->span,
					  "a string is not an offset term");
		if (!layout_stride(L, t, &v, &ax))
			return false;
		add_offset(L, &offs, v, ax);
	}
	if (!have_s)
		return diag_error(L->c, PT_E_BAD_LAYOUT, spec->span,
				  "a TileLayout needs S[...]");
	*out = layout_make(&L->c->arena, shard.v, (int)shard.n, rep.v,
			   (int)rep.n, offs.v, (int)offs.n);
	return true;
}

static bool
compose_layout(Lower *L, Ast *call, Layout **out)
{
	Args a;
	if (!split_args(L, call, &a))
		return false;
	static const char *const kws[] = {NULL};
	if (!check_keywords(L, &a, kws, "T.ComposeLayout") ||
	    !check_count(L, &a, 4, 4, call->span, "T.ComposeLayout"))
		return false;
	int64_t v[3];
	for (int i = 0; i < 3; i++) {
		if (!a.pos.v[i].ast || !const_int(L, a.pos.v[i].ast, &v[i]))
			return false;
		if (v[i] < 0 || v[i] > 30)
			return diag_error(L->c, PT_E_BAD_LAYOUT, a.pos.v[i].span,
					  "swizzle parameter out of range");
	}
	Layout *inner;
	if (!a.pos.v[3].ast || !lower_layout(L, a.pos.v[3].ast, &inner))
		return false;
	if (!inner || inner->kind != LAYOUT_TILE)
		return diag_error(L->c, PT_E_BAD_LAYOUT, a.pos.v[3].span,
				  "ComposeLayout needs a TileLayout");
	*out = layout_compose(&L->c->arena, (int)v[0], (int)v[1], (int)v[2],
			      inner);
	return true;
}

/* A layout argument: "default" (NULL), a TileLayout/ComposeLayout call,
 * or a name bound to a layout. */
static bool
lower_layout(Lower *L, Ast *a, Layout **out)
{
	*out = NULL;
	if (a->kind == A_STR && !strcmp(a->str, "default"))
		return true;
	if (a->kind == A_NAME) {
		Sym *s = lookup(L, a->name);
		if (s && s->kind == SYM_LAYOUT) {
			*out = s->layout;
			return true;
		}
		if (s && s->kind == SYM_ERROR)
			return false;
	}
	const char *p = call_path(L, a);
	if (path_is(p, "TileLayout")) {
		if (a->list.n != 1 || a->list.v[0]->kind == A_KWARG ||
		    a->list.v[0]->kind == A_STAR)
			return diag_error(L->c, PT_E_ARG_COUNT, a->span,
					  "TileLayout takes one layout spec");
		return tile_layout(L, a->list.v[0], out);
	}
	if (path_is(p, "ComposeLayout"))
		return compose_layout(L, a, out);
	return diag_error(L->c, PT_E_BAD_LAYOUT, a->span,
			  "expected \"default\", T.TileLayout(...) or "
			  "T.ComposeLayout(...)");
}

/* ---- buffers ---- */

static bool
alloc_int_kw(Lower *L, Args *a, const char *name, int64_t *out)
{
	Ast *k = kwarg(a, name);
	return !k || const_int(L, k, out);
}

/* shape and dtype given positionally or as shape=/dtype=. */
static bool
shape_and_dtype(Lower *L, Args *a, Ast *call, const char *fn, Buffer *b)
{
	if (a->pos.n > 2)
		return check_count(L, a, 2, 2, call->span, fn);
	Ast *ks = kwarg(a, "shape"), *kd = kwarg(a, "dtype");
	if ((a->pos.n >= 1) == (ks != NULL) ||
	    (a->pos.n >= 2) == (kd != NULL))
		return diag_error(L->c, PT_E_MISSING_ARG, call->span,
				  "%s needs a shape and a dtype (once each)",
				  fn);
	ExprVec shape = {0};
	Arg sa = {ks, NULL, ks ? ks->span : a->pos.v[0].span};
	if (!ks)
		sa = a->pos.v[0];
	if (!lower_shape(L, &sa, &shape))
		return false;
	set_shape(b, &shape);
	if (kd)
		return ast_dtype(L, kd, &b->dtype);
	return arg_dtype(L, &a->pos.v[1], &b->dtype);
}

static bool
scope_of(Lower *L, Ast *k, MemScope *out)
{
	const char *s = const_str(L, k, "scope");
	if (!s)
		return false;
	if (!memscope_parse(s, out))
		return diag_error(L->c, PT_E_UNKNOWN_SCOPE, k->span,
				  "unknown memory scope '%s'", s);
	return true;
}

static Buffer *
lower_alloc(Lower *L, const char *name, Ast *call, const char *p)
{
	Buffer *b = new_buf(L, name, BK_ALLOC, call->span);
	Args a;
	if (!split_args(L, call, &a))
		return NULL;
	/* T.tmem and T.decl_tensor are TIRx's spellings of decl_buffer */
	bool tmem = !strcmp(p, "tmem");
	bool decl = tmem || !strcmp(p, "decl_buffer") ||
		    !strcmp(p, "decl_tensor");
	bool gen = !strcmp(p, "alloc_buffer");
	bool shared = !strcmp(p, "alloc_shared");
	static const char *const kw_sl[] = {"shape", "dtype", "layout",
					    "align", NULL};
	static const char *const kw_sh[] = {"shape", "dtype", "layout",
					    "align", "scope", NULL};
	static const char *const kw_buf[] = {"shape", "dtype", "layout",
					     "align", "scope", NULL};
	static const char *const kw_decl[] = {"shape", "dtype", "layout",
					      "align", "scope",
					      "allocated_addr", NULL};
	const char *fn = arena_printf(&L->c->arena, "T.%s", p);
	if (!check_keywords(L, &a,
			    decl ? kw_decl : gen ? kw_buf : shared ? kw_sh : kw_sl,
			    fn) ||
	    !shape_and_dtype(L, &a, call, fn, b))
		return NULL;
	b->scope = shared ? MS_SHARED
		   : !strcmp(p, "alloc_local") ? MS_LOCAL
		   : tmem ? MS_TMEM : MS_GLOBAL;
	Ast *sk = kwarg(&a, "scope");
	if (sk && !scope_of(L, sk, &b->scope))
		return NULL;
	if (shared && b->scope != MS_SHARED && b->scope != MS_SHARED_DYN)
		return diag_error(L->c, PT_E_UNKNOWN_SCOPE, sk->span,
				  "T.alloc_shared takes scope=\"shared\" or "
				  "\"shared.dyn\""), NULL;
	if (decl) {
		if (b->scope != MS_TMEM)
			return diag_error(L->c, PT_E_UNSUPPORTED, call->span,
					  "%s is only supported with "
					  "scope=\"tmem\"", fn), NULL;
		Ast *addr = kwarg(&a, "allocated_addr");
		if (!addr)
			return diag_error(L->c, PT_E_MISSING_ARG, call->span,
					  "%s needs allocated_addr=", fn),
			       NULL;
		b->allocated_addr = need_int(L, lower_expr(L, addr), addr->span);
		if (!b->allocated_addr)
			return NULL;
	} else if (b->scope == MS_TMEM) {
		return diag_error(L->c, PT_E_UNSUPPORTED, call->span,
				  "tensor memory is declared with "
				  "T.tmem(..., allocated_addr=...)"),
		       NULL;
	}
	Ast *lay = kwarg(&a, "layout");
	if (lay && !lower_layout(L, lay, &b->layout))
		return NULL;
	if (!alloc_int_kw(L, &a, "align", &b->align))
		return NULL;
	return b;
}

static Buffer *
view_buffer(Lower *L, const char *name, Expr *view, Span sp)
{
	Buffer *b = new_buf(L, name, BK_VIEW, sp);
	b->dtype = view->dtype;
	b->ndim = tensor_rank(view);
	b->shape = tensor_shape(L, view);
	const Expr *root = view;
	while (root->kind != EX_BUF)
		root = root->kind == EX_REGION ? root->u.region.base
					       : root->u.view.base;
	b->scope = root->u.buf->scope;
	if (view->kind == EX_VIEW_RESHAPE)
		b->layout = view->u.view.layout;
	b->view = view;
	return b;
}

/* ---- statements ---- */

static void
emit(Lower *L, Block *out, Stmt *s)
{
	if (s)
		vec_push(&L->c->arena, out, s);
}

static void
poison(Lower *L, const char *name)
{
	if (!lookup_local(L, name))
		bind(L, name, SYM_ERROR);
}

static Stmt *
def_buffer(Lower *L, Buffer *b, Span sp)
{
	bind(L, b->name, SYM_BUF)->buf = b;
	Stmt *s = ir_new_stmt(L->c, ST_BUF_DEF, sp);
	s->u.buf = b;
	return s;
}

static Stmt *
declare_var(Lower *L, const char *name, DType t, Expr *init, Span sp)
{
	Var *v = new_var(L, name, t, VK_LOCAL, sp);
	bind(L, name, SYM_VAR)->var = v;
	Stmt *s = ir_new_stmt(L->c, ST_VAR_DECL, sp);
	s->u.var.var = v;
	s->u.var.value = init;
	return s;
}

static Stmt *
assign_existing(Lower *L, Sym *s, Ast *value, Span sp)
{
	if (s->kind == SYM_ERROR)
		return NULL;
	if (s->kind != SYM_VAR || s->var->kind != VK_LOCAL) {
		const char *what = s->kind == SYM_BUF ? "a buffer"
				   : s->kind == SYM_VAR
					   ? (s->var->kind == VK_LOOP
						      ? "a loop variable"
						      : "a parameter")
					   : "not a variable";
		diag_error(L->c, s->kind == SYM_BUF ? PT_E_REDEFINED
						    : PT_E_NOT_ASSIGNABLE,
			   sp, "cannot assign to '%s': %s", s->name, what);
		return NULL;
	}
	Expr *e = coerce(L, need_scalar(L, lower_expr(L, value), value->span),
			 s->var->dtype, value->span);
	if (!e)
		return NULL;
	Stmt *st = ir_new_stmt(L->c, ST_ASSIGN, sp);
	st->u.var.var = s->var;
	st->u.var.value = e;
	return st;
}

/* name = value */
static Stmt *
assign_name(Lower *L, Ast *target, Ast *value, Span sp)
{
	const char *name = target->name;
	const char *p = call_path(L, value);
	Sym *old = lookup_local(L, name);
	if (old && old->kind == SYM_VAR && !is_alloc_path(p))
		return assign_existing(L, old, value, sp);
	if (old && old->kind != SYM_CONST && old->kind != SYM_LAYOUT) {
		if (old->kind == SYM_ERROR)
			return NULL;
		diag_error(L->c, PT_E_REDEFINED, target->span,
			   "'%s' is already defined", name);
		return NULL;
	}
	if (is_alloc_path(p)) {
		Buffer *b = lower_alloc(L, name, value, p);
		if (!b)
			return poison(L, name), NULL;
		return def_buffer(L, b, sp);
	}
	if (is_layout_path(p)) {
		Layout *lay;
		if (!lower_layout(L, value, &lay))
			return poison(L, name), NULL;
		bind(L, name, SYM_LAYOUT)->layout = lay;
		return NULL;
	}
	Expr *e = lower_expr(L, value);
	if (!e)
		return poison(L, name), NULL;
	if (e->type == ET_TENSOR)
		return def_buffer(L, view_buffer(L, name, e, sp), sp);
	if ((e->type == ET_TUPLE || e->type == ET_STR) && is_const_value(e)) {
		bind(L, name, SYM_CONST)->cval = e;
		return NULL;
	}
	if (e->type != ET_SCALAR) {
		diag_error(L->c, PT_E_NOT_SCALAR, value->span,
			   "this value cannot be bound to a name");
		return poison(L, name), NULL;
	}
	settle(e);
	return declare_var(L, name, e->dtype, e, sp);
}

static Stmt *
lower_store(Lower *L, Ast *target, Expr *value, Span sp)
{
	Ast *obj = target->a;
	if (obj->kind == A_ATTR && !strcmp(obj->name, "sub")) {
		diag_error(L->c, PT_E_BAD_INDEX, target->span,
			   "cannot assign to a region");
		return NULL;
	}
	Expr *base = need_tensor(L, lower_expr(L, obj), obj->span);
	if (!base)
		return NULL;
	Expr *ld = make_subscript(L, base, &target->list, false, target->span);
	if (!ld)
		return NULL;
	if (ld->kind != EX_LOAD) {
		diag_error(L->c, PT_E_BAD_INDEX, target->span,
			   "cannot assign to a slice; store elements one by "
			   "one or use a tile call");
		return NULL;
	}
	value = coerce(L, need_scalar(L, value, sp), base->dtype, sp);
	if (!value)
		return NULL;
	Stmt *s = ir_new_stmt(L->c, ST_STORE, sp);
	s->u.store.base = base;
	s->u.store.indices = ld->u.access.indices;
	s->u.store.value = value;
	return s;
}

static Stmt *
lower_assign(Lower *L, Ast *s)
{
	Ast *t = s->a;
	if (t->kind == A_NAME)
		return assign_name(L, t, s->b, s->span);
	if (t->kind == A_SUBSCRIPT) {
		Expr *v = lower_expr(L, s->b);
		return v ? lower_store(L, t, v, s->span) : NULL;
	}
	diag_error(L->c, PT_E_UNSUPPORTED, t->span,
		   t->kind == A_TUPLE ? "tuple unpacking is not supported"
				      : "cannot assign to this target");
	return NULL;
}

static Stmt *
lower_annassign(Lower *L, Ast *s)
{
	Ast *t = s->a;
	if (t->kind != A_NAME) {
		diag_error(L->c, PT_E_UNSUPPORTED, t->span,
			   "only names can be declared with a dtype");
		return NULL;
	}
	DType dt;
	if (!ast_dtype(L, s->b, &dt))
		return poison(L, t->name), NULL;
	Sym *old = lookup_local(L, t->name);
	if (old && old->kind != SYM_ERROR) {
		diag_error(L->c, PT_E_REDEFINED, t->span,
			   "'%s' is already defined", t->name);
		return NULL;
	}
	Expr *init = NULL;
	if (s->c) {
		init = lower_expr(L, s->c);
		init = coerce(L, need_scalar(L, init, s->c->span), dt,
			      s->c->span);
		if (!init)
			return poison(L, t->name), NULL;
	}
	return declare_var(L, t->name, dt, init, s->span);
}

static Stmt *
lower_augassign(Lower *L, Ast *s)
{
	BinOp op;
	if (!binop_of(s->op, &op) || op >= BIN_LT) {
		diag_error(L->c, PT_E_UNSUPPORTED, s->span,
			   "unsupported augmented assignment");
		return NULL;
	}
	Ast *t = s->a;
	if (t->kind != A_NAME && t->kind != A_SUBSCRIPT) {
		diag_error(L->c, PT_E_UNSUPPORTED, t->span,
			   "cannot assign to this target");
		return NULL;
	}
	Expr *cur = lower_expr(L, t);
	Expr *v = cur ? lower_expr(L, s->b) : NULL;
	Expr *e = v ? make_binary(L, op, cur, v, s->span) : NULL;
	if (!e)
		return NULL;
	if (t->kind == A_SUBSCRIPT)
		return lower_store(L, t, e, s->span);
	Sym *sym = lookup(L, t->name);
	if (sym->kind != SYM_VAR || sym->var->kind != VK_LOCAL) {
		diag_error(L->c, PT_E_NOT_ASSIGNABLE, t->span,
			   "cannot assign to '%s'", t->name);
		return NULL;
	}
	e = coerce(L, e, sym->var->dtype, s->span);
	if (!e)
		return NULL;
	Stmt *st = ir_new_stmt(L->c, ST_ASSIGN, s->span);
	st->u.var.var = sym->var;
	st->u.var.value = e;
	return st;
}

static Stmt *
lower_expr_stmt(Lower *L, Ast *s)
{
	Ast *a = s->a;
	if (a->kind == A_STR)
		return NULL; /* docstring */
	if (a->kind != A_CALL) {
		diag_error(L->c, PT_E_NO_EFFECT, a->span,
			   "expression statement has no effect");
		return NULL;
	}
	if (path_is(call_path(L, a), "evaluate")) {
		if (a->list.n != 1 || a->list.v[0]->kind != A_CALL) {
			diag_error(L->c, PT_E_ARG_COUNT, a->span,
				   "T.evaluate takes one call");
			return NULL;
		}
		a = a->list.v[0];
	}
	Expr *e = lower_call(L, a);
	if (!e)
		return NULL;
	if (!L->fn->is_kernel) {
		diag_error(L->c, PT_E_SCALAR_FN, s->span,
			   "a scalar function holds only bindings, if/else "
			   "and returns");
		return NULL;
	}
	Stmt *st = ir_new_stmt(L->c, ST_EVAL, s->span);
	st->u.value = e;
	return st;
}

static Stmt *
lower_if(Lower *L, Ast *s)
{
	Expr *c = need_bool(L, lower_expr(L, s->a), s->a->span);
	Stmt *st = ir_new_stmt(L->c, ST_IF, s->span);
	st->u.cond.cond = c;
	lower_block(L, &s->body, &st->u.cond.then);
	lower_block(L, &s->orelse, &st->u.cond.els);
	return c ? st : NULL;
}

static Stmt *
lower_while(Lower *L, Ast *s)
{
	Expr *c = need_bool(L, lower_expr(L, s->a), s->a->span);
	Stmt *st = ir_new_stmt(L->c, ST_WHILE, s->span);
	st->u.whil.cond = c;
	L->loops++;
	lower_block(L, &s->body, &st->u.whil.body);
	L->loops--;
	return c ? st : NULL;
}

static bool
loop_range(Lower *L, Ast *it, Stmt *st)
{
	const char *p = ast_path(L, it->a);
	bool is_range = it->a->kind == A_NAME && !strcmp(it->a->name, "range") &&
			!lookup(L, "range");
	if (path_is(p, "unroll"))
		st->u.loop.kind = FOR_UNROLL;
	else if (!is_range && !path_is(p, "serial"))
		return diag_error(L->c, PT_E_UNSUPPORTED, it->span,
				  "a for loop iterates over range(), "
				  "T.serial() or T.unroll()");
	Args a;
	if (!split_args(L, it, &a))
		return false;
	static const char *const kws[] = {NULL};
	if (!check_keywords(L, &a, kws, "range") ||
	    !check_count(L, &a, 1, 3, it->span, "range"))
		return false;
	Expr *v[3] = {0};
	for (size_t i = 0; i < a.pos.n; i++) {
		v[i] = need_scalar(L, arg_expr(L, &a.pos.v[i]), a.pos.v[i].span);
		if (!v[i])
			return false;
	}
	Expr *b = a.pos.n > 1 ? v[0] : ir_int(L->c, 0, DT_NONE, it->span);
	Expr *e = a.pos.n > 1 ? v[1] : v[0];
	Expr *s = a.pos.n > 2 ? v[2] : ir_int(L->c, 1, DT_NONE, it->span);
	if (!unify(L, &b, &e, it->span) || !unify(L, &b, &s, it->span) ||
	    !unify(L, &e, &s, it->span))
		return false;
	settle(b), settle(e), settle(s);
	if (!need_int(L, b, it->span) || !need_int(L, e, it->span) ||
	    !need_int(L, s, it->span))
		return false;
	st->u.loop.begin = b;
	st->u.loop.end = e;
	st->u.loop.step = s;
	return true;
}

static Stmt *
lower_for(Lower *L, Ast *s)
{
	if (s->a->kind != A_NAME) {
		diag_error(L->c, PT_E_UNSUPPORTED, s->a->span,
			   "the loop target must be one name");
		return NULL;
	}
	if (s->b->kind != A_CALL) {
		diag_error(L->c, PT_E_UNSUPPORTED, s->b->span,
			   "a for loop iterates over range(), T.serial() or "
			   "T.unroll()");
		return NULL;
	}
	Stmt *st = ir_new_stmt(L->c, ST_FOR, s->span);
	bool ok = loop_range(L, s->b, st);
	Var *v = new_var(L, s->a->name, ok ? st->u.loop.begin->dtype : DT_INT32,
			 VK_LOOP, s->a->span);
	st->u.loop.var = v;
	bind(L, v->name, ok ? SYM_VAR : SYM_ERROR)->var = v;
	L->loops++;
	lower_block(L, &s->body, &st->u.loop.body);
	L->loops--;
	return ok ? st : NULL;
}

static Stmt *
lower_return(Lower *L, Ast *s)
{
	if (L->fn->is_kernel) {
		diag_error(L->c, PT_E_BAD_RETURN, s->span,
			   "return is only valid in a scalar function");
		return NULL;
	}
	if (!s->a) {
		diag_error(L->c, PT_E_SCALAR_FN, s->span,
			   "a scalar function returns a value");
		return NULL;
	}
	Expr *e = need_scalar(L, lower_expr(L, s->a), s->a->span);
	if (!e)
		return NULL;
	if (L->fn->ret == DT_NONE) {
		settle(e);
		L->fn->ret = e->dtype;
	}
	e = coerce(L, e, L->fn->ret, s->a->span);
	if (!e)
		return NULL;
	Stmt *st = ir_new_stmt(L->c, ST_RETURN, s->span);
	st->u.value = e;
	return st;
}

static bool
scalar_fn_allows(Ast *s)
{
	return s->kind == S_ASSIGN || s->kind == S_ANNASSIGN ||
	       s->kind == S_AUGASSIGN || s->kind == S_IF ||
	       s->kind == S_RETURN || s->kind == S_PASS ||
	       (s->kind == S_EXPR && s->a->kind == A_STR);
}

static Stmt *
lower_stmt(Lower *L, Ast *s)
{
	if (!L->fn->is_kernel && !scalar_fn_allows(s)) {
		diag_error(L->c, PT_E_SCALAR_FN, s->span,
			   "a scalar function holds only bindings, if/else "
			   "and returns");
		return NULL;
	}
	switch (s->kind) {
	case S_EXPR: return lower_expr_stmt(L, s);
	case S_ASSIGN: return lower_assign(L, s);
	case S_ANNASSIGN: return lower_annassign(L, s);
	case S_AUGASSIGN: return lower_augassign(L, s);
	case S_IF: return lower_if(L, s);
	case S_FOR: return lower_for(L, s);
	case S_WHILE: return lower_while(L, s);
	case S_BREAK:
	case S_CONTINUE:
		if (L->loops == 0) {
			diag_error(L->c, PT_E_NOT_IN_LOOP, s->span,
				   "'%s' outside a loop",
				   s->kind == S_BREAK ? "break" : "continue");
			return NULL;
		}
		return ir_new_stmt(L->c, s->kind == S_BREAK ? ST_BREAK
							    : ST_CONTINUE,
				   s->span);
	case S_RETURN: return lower_return(L, s);
	case S_PASS: return NULL;
	case S_DEF:
		diag_error(L->c, PT_E_UNSUPPORTED, s->span,
			   "nested functions are not supported");
		return NULL;
	default:
		diag_error(L->c, PT_E_UNSUPPORTED, s->span,
			   "imports belong at module level");
		return NULL;
	}
}

static void
lower_block(Lower *L, AstVec *in, Block *out)
{
	for (size_t i = 0; i < in->n; i++)
		emit(L, out, lower_stmt(L, in->v[i]));
}

/* ---- functions ---- */

static bool
tensor_param(Lower *L, Ast *p, Ast *ann, Param *out)
{
	Buffer *b = new_buf(L, p->name, BK_PARAM, p->span);
	Args a;
	if (!split_args(L, ann, &a))
		return false;
	static const char *const kws[] = {"shape", "dtype", "align", "layout",
					  "scope", NULL};
	if (!check_keywords(L, &a, kws, "T.Tensor") ||
	    !shape_and_dtype(L, &a, ann, "T.Tensor", b))
		return false;
	b->scope = MS_GLOBAL;
	Ast *sk = kwarg(&a, "scope");
	if (sk && !scope_of(L, sk, &b->scope))
		return false;
	Ast *lay = kwarg(&a, "layout");
	if (lay && !lower_layout(L, lay, &b->layout))
		return false;
	if (!alloc_int_kw(L, &a, "align", &b->align))
		return false;
	out->kind = PK_TENSOR;
	out->buf = b;
	bind(L, b->name, SYM_BUF)->buf = b;
	return true;
}

static bool
lower_param(Lower *L, Ast *p, Param *out)
{
	out->span = p->span;
	if (!p->a)
		return diag_error(L->c, PT_E_BAD_PARAM, p->span,
				  "parameter '%s' needs an annotation",
				  p->name);
	if (lookup_local(L, p->name))
		return diag_error(L->c, PT_E_REDEFINED, p->span,
				  "duplicate parameter '%s'", p->name);
	const char *cp = call_path(L, p->a);
	const char *ap = ast_path(L, p->a);
	if (path_is(cp, "Tensor") || path_is(cp, "TensorMap") ||
	    path_is(ap, "TensorMap")) {
		if (!L->fn->is_kernel)
			return diag_error(L->c, PT_E_BAD_PARAM, p->a->span,
					  "a scalar function takes only scalar "
					  "parameters");
		if (path_is(cp, "Tensor"))
			return tensor_param(L, p, p->a, out);
		if (cp && p->a->list.n)
			return diag_error(L->c, PT_E_ARG_COUNT, p->a->span,
					  "T.TensorMap() takes no arguments");
		out->kind = PK_TENSORMAP;
		out->var = new_var(L, p->name, DT_UINT64, VK_PARAM, p->span);
		bind(L, p->name, SYM_VAR)->var = out->var;
		return true;
	}
	DType t;
	if (!ap || !*ap || !dtype_parse(ap, &t))
		return diag_error(L->c, PT_E_BAD_PARAM, p->a->span,
				  "expected T.Tensor(...), T.TensorMap() or a "
				  "scalar dtype such as T.int32");
	out->kind = PK_SCALAR;
	out->var = new_var(L, p->name, t, VK_PARAM, p->span);
	bind(L, p->name, SYM_VAR)->var = out->var;
	return true;
}

/* grid=/block=/cluster= value: an int expression or a 1-3 tuple. */
static bool
launch_dims(Lower *L, Ast *a, Expr **dims, int *n, bool *tuple)
{
	Expr *e = lower_expr(L, a);
	if (!e)
		return false;
	*tuple = e->kind == EX_TUPLE;
	size_t cnt = *tuple ? e->u.tuple.n : 1;
	if (cnt < 1 || cnt > 3)
		return diag_error(L->c, PT_E_BAD_LAUNCH, a->span,
				  "expected 1 to 3 dimensions");
	for (size_t i = 0; i < cnt; i++) {
		Expr *d = need_int(L, *tuple ? e->u.tuple.v[i] : e, a->span);
		if (!d)
			return false;
		dims[i] = d;
	}
	*n = (int)cnt;
	return true;
}

/* kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=,
 * max_blocks_per_cluster=, max_registers_per_thread=): positive constants
 * that become the .minnctapersm, .maxclusterrank and .maxnreg
 * directives. */
static bool
lower_kernel_attrs(Lower *L, Ast *ka, Launch *out)
{
	if (!path_is(call_path(L, ka), "cuda.KernelAttributes"))
		return diag_error(L->c, PT_E_BAD_LAUNCH, ka->span,
				  "expected kernel_attrs=T.cuda.KernelAttributes"
				  "(...)");
	Args k;
	if (!split_args(L, ka, &k))
		return false;
	static const char *const kws[] = {"min_blocks_per_sm",
					  "max_blocks_per_cluster",
					  "max_registers_per_thread", NULL};
	if (!check_keywords(L, &k, kws, "T.cuda.KernelAttributes") ||
	    !check_count(L, &k, 0, 0, ka->span, "T.cuda.KernelAttributes"))
		return false;
	int64_t *dst[] = {&out->min_blocks_per_sm, &out->max_blocks_per_cluster,
			  &out->max_registers};
	const int64_t hi[] = {1024, 1024, 255};
	for (int i = 0; i < 3; i++) {
		Ast *v = kwarg(&k, kws[i]);
		if (!v)
			continue;
		Expr *e = lower_expr(L, v);
		if (!e)
			return false;
		if (!ir_const_int(e, dst[i]))
			return diag_error(L->c, PT_E_NOT_CONST, v->span,
					  "%s must be a constant", kws[i]);
		if (*dst[i] < 1 || *dst[i] > hi[i])
			return diag_error(L->c, PT_E_BAD_LAUNCH, v->span,
					  "%s is %lld, outside 1..%lld", kws[i],
					  (long long)*dst[i], (long long)hi[i]);
	}
	return true;
}

static bool
lower_launch(Lower *L, Ast *s, Launch *out)
{
	Ast *call = s->a;
	Args a;
	if (!split_args(L, call, &a))
		return false;
	static const char *const kws[] = {"launch", "kernel_attrs", NULL};
	if (!check_keywords(L, &a, kws, "T.device_entry") ||
	    !check_count(L, &a, 0, 0, call->span, "T.device_entry"))
		return false;
	Ast *lc = kwarg(&a, "launch");
	if (!lc || !path_is(call_path(L, lc), "cuda.LaunchConfig"))
		return diag_error(L->c, PT_E_BAD_LAUNCH, call->span,
				  "expected launch=T.cuda.LaunchConfig(grid=..., "
				  "block=...)");
	Args la;
	if (!split_args(L, lc, &la))
		return false;
	static const char *const lkws[] = {"grid", "block", "cluster", NULL};
	if (!check_keywords(L, &la, lkws, "T.cuda.LaunchConfig") ||
	    !check_count(L, &la, 0, 0, lc->span, "T.cuda.LaunchConfig"))
		return false;
	Ast *ka = kwarg(&a, "kernel_attrs");
	if (ka && !lower_kernel_attrs(L, ka, out))
		return false;
	Ast *g = kwarg(&la, "grid"), *b = kwarg(&la, "block");
	Ast *cl = kwarg(&la, "cluster");
	if (cl && out->max_blocks_per_cluster)
		/* PTX: .reqnctapercluster and .maxclusterrank conflict */
		return diag_error(L->c, PT_E_BAD_LAUNCH, ka->span,
				  "max_blocks_per_cluster bounds a cluster "
				  "chosen at launch; it cannot be combined "
				  "with cluster=, which fixes the cluster");
	if (!g || !b)
		return diag_error(L->c, PT_E_MISSING_ARG, lc->span,
				  "LaunchConfig needs grid= and block=");
	if (!launch_dims(L, g, out->grid, &out->ngrid, &out->grid_tuple) ||
	    !launch_dims(L, b, out->block, &out->nblock, &out->block_tuple))
		return false;
	if (!cl)
		return true;
	Expr *dims[3];
	if (!launch_dims(L, cl, dims, &out->ncluster, &out->cluster_tuple))
		return false;
	for (int i = 0; i < out->ncluster; i++)
		if (!ir_const_int(dims[i], &out->cluster[i]))
			return diag_error(L->c, PT_E_NOT_CONST, cl->span,
					  "cluster dimensions must be constants");
	return true;
}

static bool
is_device_entry(Lower *L, Ast *s)
{
	return s->kind == S_EXPR && path_is(call_path(L, s->a), "device_entry");
}

/* Index of the first statement that is not a docstring. */
static size_t
first_stmt(Ast *def)
{
	size_t i = 0;
	if (def->body.n > 0 && def->body.v[0]->kind == S_EXPR &&
	    def->body.v[0]->a->kind == A_STR)
		i = 1;
	return i;
}

static bool
block_returns(const Block *b)
{
	if (b->n == 0)
		return false;
	const Stmt *s = b->v[b->n - 1];
	if (s->kind == ST_RETURN)
		return true;
	return s->kind == ST_IF && block_returns(&s->u.cond.then) &&
	       block_returns(&s->u.cond.els);
}

static void
lower_function(Lower *L, Ast *def, Func *f)
{
	L->fn = f;
	L->func_base = L->syms.n;
	L->loops = 0;
	for (size_t i = 0; i < def->params.n; i++) {
		Param p = {0};
		if (!lower_param(L, def->params.v[i], &p)) {
			poison(L, def->params.v[i]->name);
			continue;
		}
		vec_push(&L->c->arena, &f->params, p);
	}
	if (def->b && !f->is_kernel && !ast_dtype(L, def->b, &f->ret))
		f->ret = DT_NONE;
	AstVec body = def->body;
	size_t k = first_stmt(def);
	if (f->is_kernel) {
		lower_launch(L, def->body.v[k], &f->launch);
		k++;
	}
	body.v += k;
	body.n -= k;
	lower_block(L, &body, &f->body);
	if (!f->is_kernel && !ctx_has_errors(L->c) && !block_returns(&f->body))
		diag_error(L->c, PT_E_SCALAR_FN, def->span,
			   "scalar function '%s' must return a value on every "
			   "path", f->name);
	L->syms.n = L->func_base;
	L->func_base = L->syms.n;
}

/* ---- module ---- */

static bool
is_function_decorator(Lower *L, Ast *d)
{
	const char *p = ast_path(L, d);
	if (path_is(p, "function"))
		return true;
	return d->kind == A_CALL && d->list.n == 0 &&
	       path_is(ast_path(L, d->a), "function");
}

static Func *
declare_function(Lower *L, Ast *def)
{
	if (def->list.n != 1 || !is_function_decorator(L, def->list.v[0])) {
		Span sp = def->list.n ? def->list.v[0]->span : def->span;
		diag_error(L->c, PT_E_BAD_DECORATOR, sp,
			   "function '%s' needs exactly one decorator, "
			   "@T.function", def->name);
		return NULL;
	}
	Sym *old = lookup(L, def->name);
	if (old && old->kind == SYM_FUNC) {
		diag_error(L->c, PT_E_REDEFINED, def->span,
			   "function '%s' is defined twice", def->name);
		return NULL;
	}
	Func *f = NEW(&L->c->arena, Func);
	f->name = def->name;
	f->span = def->span;
	size_t k = first_stmt(def);
	f->is_kernel = k < def->body.n && is_device_entry(L, def->body.v[k]);
	bind(L, def->name, SYM_FUNC)->fn = f;
	return f;
}

static const char *
last_component(const char *dotted)
{
	const char *p = strrchr(dotted, '.');
	return p ? p + 1 : dotted;
}

static bool
is_builtin_import(const char *name)
{
	static const char *const names[] = {"S", "R", "TileLayout",
					    "ComposeLayout", "Axis", NULL};
	Axis ax;
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return axis_parse(name, &ax);
}

static void
lower_import(Lower *L, Ast *s)
{
	for (size_t i = 0; i < s->list.n; i++) {
		Ast *al = s->list.v[i];
		const char *as = al->str ? al->str : al->name;
		if (s->kind == S_IMPORT) {
			if (al->str && !strcmp(last_component(al->name), "tirx"))
				bind(L, as, SYM_NS);
			continue;
		}
		if (!strcmp(al->name, "tirx")) {
			bind(L, as, SYM_NS);
		} else if (is_builtin_import(al->name)) {
			Axis ax;
			Sym *b = bind(L, as, SYM_BUILTIN);
			b->path = axis_parse(al->name, &ax)
					  ? arena_printf(&L->c->arena, "Axis.%s",
							 al->name)
					  : al->name;
		}
	}
}

static void
lower_module_assign(Lower *L, Ast *s)
{
	if (s->a->kind != A_NAME) {
		diag_error(L->c, PT_E_MODULE_STMT, s->span,
			   "module level assigns constants to names");
		return;
	}
	const char *name = s->a->name;
	const char *p = call_path(L, s->b);
	Sym *old = lookup(L, name);
	if (old && (old->kind == SYM_FUNC || old->kind == SYM_VAR)) {
		diag_error(L->c, PT_E_REDEFINED, s->a->span,
			   "'%s' is already defined", name);
		return;
	}
	if (path_is(p, "dynamic")) {
		if (s->b->list.n != 1 || s->b->list.v[0]->kind != A_STR) {
			diag_error(L->c, PT_E_ARG_COUNT, s->b->span,
				   "T.dynamic takes one name string");
			bind(L, name, SYM_ERROR);
			return;
		}
		Var *v = new_var(L, name, DT_INT32, VK_DYN, s->a->span);
		vec_push(&L->c->arena, &L->m->dyn, v);
		bind(L, name, SYM_VAR)->var = v;
		return;
	}
	if (is_layout_path(p)) {
		Layout *lay;
		if (lower_layout(L, s->b, &lay))
			bind(L, name, SYM_LAYOUT)->layout = lay;
		else
			bind(L, name, SYM_ERROR);
		return;
	}
	Expr *e = lower_expr(L, s->b);
	if (e && !is_const_value(e)) {
		diag_error(L->c, PT_E_NOT_CONST, s->b->span,
			   "module-level values must be compile-time "
			   "constants");
		e = NULL;
	}
	if (e)
		bind(L, name, SYM_CONST)->cval = e;
	else
		bind(L, name, SYM_ERROR);
}

static void
lower_module_stmt(Lower *L, Ast *s, AstVec *defs, FuncVec *fns)
{
	switch (s->kind) {
	case S_IMPORT:
	case S_FROM:
		lower_import(L, s);
		return;
	case S_ASSIGN:
		lower_module_assign(L, s);
		return;
	case S_DEF: {
		Func *f = declare_function(L, s);
		if (f) {
			vec_push(&L->c->arena, defs, s);
			vec_push(&L->c->arena, fns, f);
		}
		return;
	}
	case S_EXPR:
		if (s->a->kind == A_STR)
			return;
		/* fall through */
	default:
		diag_error(L->c, PT_E_MODULE_STMT, s->span,
			   "only imports, constants, T.dynamic and "
			   "@T.function definitions are allowed at module "
			   "level");
	}
}

Module *
lower_module(Ctx *c, Ast *mod)
{
	Lower L = {0};
	L.c = c;
	L.m = NEW(&c->arena, Module);
	AstVec defs = {0};
	FuncVec fns = {0};
	for (size_t i = 0; i < mod->body.n; i++)
		lower_module_stmt(&L, mod->body.v[i], &defs, &fns);
	for (size_t i = 0; i < defs.n; i++)
		lower_function(&L, defs.v[i], fns.v[i]);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < fns.n; i++)
			if (fns.v[i]->is_kernel == (pass == 1))
				vec_push(&c->arena, &L.m->funcs, fns.v[i]);
	return L.m;
}
