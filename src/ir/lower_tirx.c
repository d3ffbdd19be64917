/*
 * lower_tirx.c - TIRx's T.cuda helpers that are one PTX instruction (or
 * a short fixed sequence of them), lowered to the raw PTX calls they
 * stand for, so that the form table checks them and codegen, the
 * emulator and `ptxtile print` see ordinary T.ptx calls:
 *
 *   T.cuda.uint_as_float(x) / float_as_uint(x)   T.reinterpret (32 bits)
 *   T.cuda.clock64()              mov.u64 d, %clock64         (uint64)
 *   T.cuda.ballot_sync(mask, p)   vote.sync.ballot.b32 d, p, mask
 *   T.cuda.atomic_add(ptr, v)     atom.add.<t> d, [ptr], v    (old value)
 *   T.cuda.wait_until(dst, ptr, cond | predicate=lambda v: ...,
 *                     scope="gpu", space="global", ptx_type=)
 *       ld.relaxed.<scope>.<space>.<t> dst, [ptr] until cond holds, then
 *       one ld.acquire of the same word (the acquire edge), as TIRx
 *       0.1.0a4 emits it.
 *
 * Semantics and spellings were taken from what apache-tvm-tirx 0.1.0a4
 * emits for each (its CUDA source, used as a black box).
 */
#include <string.h>

#include "ir/lower.h"

/* EX_PTX of spelling over args (not yet selected: the form check pass
 * selects every raw call). */
static Expr *
ptx_node(Lower *L, const char *spelling, Expr **args, size_t n, Span sp)
{
	Expr *e = ir_new_expr(L->c, EX_PTX, ET_VOID, DT_NONE, sp);
	e->u.ptx.spelling = spelling;
	e->u.ptx.opcode_span = sp;
	for (size_t i = 0; i < n; i++)
		vec_push(&L->c->arena, &e->u.ptx.args, args[i]);
	return e;
}

static void
push_stmt(Lower *L, Stmt *s)
{
	vec_push(&L->c->arena, L->cur, s);
}

static Stmt *
eval_stmt(Lower *L, Expr *e, Span sp)
{
	Stmt *st = ir_new_stmt(L->c, ST_EVAL, sp);
	st->u.value = e;
	return st;
}

/* Where a helper may put statements before the one using it: a kernel
 * statement (not a while condition, not a scalar function). */
static bool
in_kernel_stmt(Lower *L, const char *what, Span sp)
{
	if (L->cur && L->fn && L->fn->is_kernel)
		return true;
	return diag_error(L->c, PT_E_PTX_NO_VALUE, sp,
			  "%s is a PTX instruction: it is valid only in a "
			  "kernel statement (not in a while condition or a "
			  "scalar function)",
			  what);
}

/* The value spelling writes into a hidden local of dtype t (declared
 * and issued before the current statement, like a T.ptx value). */
static Expr *
ptx_value(Lower *L, const char *spelling, DType t, Expr **args, size_t n,
	  Span sp)
{
	const char *name;
	do
		name = arena_printf(&L->c->arena, "_ptx%d", L->next_tmp++);
	while (lw_lookup(L, name));
	Var *v = lw_new_var(L, name, t, VK_LOCAL, sp);
	lw_bind(L, name, SYM_VAR)->var = v;
	Stmt *d = ir_new_stmt(L->c, ST_VAR_DECL, sp);
	d->u.var.var = v;
	push_stmt(L, d);
	Expr *r = ir_new_expr(L->c, EX_VAR, ET_SCALAR, t, sp);
	r->u.var = v;
	Expr **all = NEWN(&L->c->arena, Expr *, n + 1);
	all[0] = r;
	for (size_t i = 0; i < n; i++)
		all[i + 1] = args[i];
	push_stmt(L, eval_stmt(L, ptx_node(L, spelling, all, n + 1, sp), sp));
	return r;
}

static bool
args_n(Lower *L, Ast *call, Args *a, size_t lo, size_t hi,
       const char *const *kws, const char *fn)
{
	return lw_split_args(L, call, a) && lw_check_keywords(L, a, kws, fn) &&
	       lw_check_count(L, a, lo, hi, call->span, fn);
}

static Expr *
scalar_arg(Lower *L, Arg *a)
{
	Expr *e = lw_need_scalar(L, lw_arg_expr(L, a), a->span);
	if (e)
		lw_settle(e);
	return e;
}

/* uint_as_float / float_as_uint: the same 32 bits as the other dtype. */
static Expr *
bits_as(Lower *L, Ast *call, DType to, const char *fn)
{
	Args a;
	if (!args_n(L, call, &a, 1, 1, (const char *const[]){NULL}, fn))
		return NULL;
	Expr *x = scalar_arg(L, &a.pos.v[0]);
	if (!x)
		return NULL;
	if (dtype_bits(x->dtype) != 32 || x->dtype == to)
		return diag_error(L->c, PT_E_TYPE_MISMATCH, a.pos.v[0].span,
				  "%s takes a 32-bit %s, not %s", fn,
				  to == DT_FLOAT32 ? "integer" : "float",
				  dtype_name(x->dtype)),
		       NULL;
	Expr *e = ir_new_expr(L->c, EX_REINTERPRET, ET_SCALAR, to, call->span);
	e->u.op.a = x;
	return e;
}

Expr *
lw_tirx_uint_as_float(Lower *L, Ast *call)
{
	return bits_as(L, call, DT_FLOAT32, "T.cuda.uint_as_float");
}

Expr *
lw_tirx_float_as_uint(Lower *L, Ast *call)
{
	return bits_as(L, call, DT_UINT32, "T.cuda.float_as_uint");
}

Expr *
lw_tirx_clock64(Lower *L, Ast *call)
{
	Args a;
	if (!args_n(L, call, &a, 0, 0, (const char *const[]){NULL},
		    "T.cuda.clock64") ||
	    !in_kernel_stmt(L, "T.cuda.clock64", call->span))
		return NULL;
	return ptx_value(L, "mov.u64", DT_UINT64, NULL, 0, call->span);
}

/* A bool, or an integer read as "nonzero" (CUDA's int predicate). */
static Expr *
as_pred(Lower *L, Expr *x, Span sp)
{
	if (x->dtype == DT_BOOL)
		return x;
	if (!lw_is_intlike(x->dtype))
		return diag_error(L->c, PT_E_NOT_BOOL, sp,
				  "a predicate is a bool or an integer, not "
				  "%s",
				  dtype_name(x->dtype)),
		       NULL;
	return lw_make_binary(L, BIN_NE, x, ir_int(L->c, 0, x->dtype, sp), sp);
}

Expr *
lw_tirx_ballot_sync(Lower *L, Ast *call)
{
	Args a;
	if (!args_n(L, call, &a, 2, 2, (const char *const[]){NULL},
		    "T.cuda.ballot_sync") ||
	    !in_kernel_stmt(L, "T.cuda.ballot_sync", call->span))
		return NULL;
	Expr *mask = lw_coerce(L, scalar_arg(L, &a.pos.v[0]), DT_UINT32,
			       a.pos.v[0].span);
	Expr *p = mask ? scalar_arg(L, &a.pos.v[1]) : NULL;
	if (!p || !(p = as_pred(L, p, a.pos.v[1].span)))
		return NULL;
	Expr *args[2] = {p, mask};
	return ptx_value(L, "vote.sync.ballot.b32", DT_UINT32, args, 2,
			 call->span);
}

/* The atom.add type of a value dtype (int64 adds as u64: the same bits). */
static const char *
atom_add_type(DType t)
{
	switch (t) {
	case DT_INT32:
		return "s32";
	case DT_UINT32:
		return "u32";
	case DT_INT64:
	case DT_UINT64:
		return "u64";
	case DT_FLOAT32:
		return "f32";
	case DT_FLOAT64:
		return "f64";
	default:
		return NULL;
	}
}

/* T.cuda.atomic_add(ptr, v): CUDA's atomicAdd on a generic address; the
 * old value (TIRx returns it; as a statement it is dropped). */
Expr *
lw_tirx_atomic_add(Lower *L, Ast *call)
{
	Args a;
	if (!args_n(L, call, &a, 2, 2, (const char *const[]){NULL},
		    "T.cuda.atomic_add") ||
	    !in_kernel_stmt(L, "T.cuda.atomic_add", call->span))
		return NULL;
	Expr *ptr = lw_coerce(L, scalar_arg(L, &a.pos.v[0]), DT_UINT64,
			      a.pos.v[0].span);
	Expr *v = ptr ? scalar_arg(L, &a.pos.v[1]) : NULL;
	if (!v)
		return NULL;
	const char *t = atom_add_type(v->dtype);
	if (!t)
		return diag_error(L->c, PT_E_TYPE_MISMATCH, a.pos.v[1].span,
				  "T.cuda.atomic_add adds an int32, uint32, "
				  "int64, uint64, float32 or float64, not %s",
				  dtype_name(v->dtype)),
		       NULL;
	Expr *args[2] = {ptr, v};
	return ptx_value(L, arena_printf(&L->c->arena, "atom.add.%s", t),
			 v->dtype, args, 2, call->span);
}

/* The wait's condition: the lambda's body with its parameter naming the
 * destination (a local), or the condition argument as written. */
static Expr *
wait_condition(Lower *L, Ast *cond, Expr *dst)
{
	if (cond->kind != A_LAMBDA)
		return lw_need_bool(L, lower_expr(L, cond), cond->span);
	if (dst->kind != EX_VAR)
		return diag_error(L->c, PT_E_LAMBDA, cond->span,
				  "a predicate= lambda needs a scalar local "
				  "as the destination (observed: T.int32)"),
		       NULL;
	size_t mark = L->syms.n;
	lw_bind(L, cond->name, SYM_VAR)->var = dst->u.var;
	Expr *c = lw_need_bool(L, lower_expr(L, cond->a), cond->a->span);
	lw_unbind_to(L, mark);
	return c;
}

static const char *
str_kw(Lower *L, Args *a, size_t pos, const char *kw, const char *dflt)
{
	Ast *k = lw_kwarg(a, kw);
	if (!k && a->pos.n > pos && a->pos.v[pos].ast)
		k = a->pos.v[pos].ast;
	return k ? lw_const_str(L, k, kw) : dflt;
}

Expr *
lw_tirx_wait_until(Lower *L, Ast *call)
{
	Args a;
	static const char *const kws[] = {"predicate", "scope", "space",
					  "ptx_type", NULL};
	if (!args_n(L, call, &a, 2, 5, kws, "T.cuda.wait_until") ||
	    !in_kernel_stmt(L, "T.cuda.wait_until", call->span))
		return NULL;
	Ast *pred = lw_kwarg(&a, "predicate");
	if (!pred && a.pos.n > 2)
		pred = a.pos.v[2].ast;
	if (!pred || (lw_kwarg(&a, "predicate") && a.pos.n > 2))
		return diag_error(L->c, PT_E_MISSING_ARG, call->span,
				  "T.cuda.wait_until needs one condition: a "
				  "third argument or predicate=lambda v: ..."),
		       NULL;
	Expr *dst = scalar_arg(L, &a.pos.v[0]);
	Expr *ptr = dst ? lw_coerce(L, scalar_arg(L, &a.pos.v[1]), DT_UINT64,
				    a.pos.v[1].span)
			: NULL;
	const char *scope = ptr ? str_kw(L, &a, 3, "scope", "gpu") : NULL;
	const char *space = scope ? str_kw(L, &a, 4, "space", "global") : NULL;
	const char *ty =
		space ? str_kw(L, &a, 99, "ptx_type", dtype_ptx(dst->dtype))
		      : NULL;
	if (!ty)
		return NULL;
	Expr *cond = wait_condition(L, pred, dst);
	if (!cond)
		return NULL;
	const char *relaxed = arena_printf(&L->c->arena, "ld.relaxed.%s.%s.%s",
					   scope, space, ty);
	const char *acquire = arena_printf(&L->c->arena, "ld.acquire.%s.%s.%s",
					   scope, space, ty);
	Expr *args[2] = {dst, ptr};
	Span sp = call->span;
	push_stmt(L, eval_stmt(L, ptx_node(L, relaxed, args, 2, sp), sp));
	Stmt *w = ir_new_stmt(L->c, ST_WHILE, sp);
	w->u.whil.cond = lw_make_unary(L, UN_LNOT, cond, sp);
	vec_push(&L->c->arena, &w->u.whil.body,
		 eval_stmt(L, ptx_node(L, relaxed, args, 2, sp), sp));
	push_stmt(L, w);
	/* the acquire edge: one more load, into a scratch of dst's dtype */
	const char *name;
	do
		name = arena_printf(&L->c->arena, "_ptx%d", L->next_tmp++);
	while (lw_lookup(L, name));
	Var *edge = lw_new_var(L, name, dst->dtype, VK_LOCAL, sp);
	lw_bind(L, name, SYM_VAR)->var = edge;
	Stmt *d = ir_new_stmt(L->c, ST_VAR_DECL, sp);
	d->u.var.var = edge;
	push_stmt(L, d);
	Expr *ev = ir_new_expr(L->c, EX_VAR, ET_SCALAR, dst->dtype, sp);
	ev->u.var = edge;
	Expr *eargs[2] = {ev, ptr};
	return ptx_node(L, acquire, eargs, 2, sp);
}
