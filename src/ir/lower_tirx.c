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
 *   T.cuda.atomic_cas(ptr, c, v)  atom.cas.b32/b64 d, [ptr], c, v  (old value)
 *   T.cuda.thread_fence()         membar.gl                   (__threadfence)
 *   T.cuda.nano_sleep(t)          nanosleep.u32 t             (__nanosleep)
 *   T.cuda.make_float2(x, y)      the uint64 whose low word is x's bits and
 *                                 high word y's (float2 in a 64-bit register,
 *                                 what TIRx's f32x2 operands take)
 *   T.cuda.wait_until(dst, ptr, cond | predicate=lambda v: ...,
 *                     scope="gpu", space="global", ptx_type=,
 *                     backoff_ns=)
 *       ld.relaxed.<scope>.<space>.<t> dst, [ptr] until cond holds, then
 *       one ld.acquire of the same word (the acquire edge), as TIRx
 *       0.1.0a4 emits it; with backoff_ns, a nanosleep.u32 before each
 *       poll but the first (none after the last).  ptx_type=None and
 *       backoff_ns=None are TIRx's defaults.
 *
 * Semantics and spellings were taken from what apache-tvm-tirx 0.1.0a4
 * emits for each (its CUDA source, used as a black box).
 */
#include <stdint.h>
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

/* A hidden local of dtype t, declared before the current statement. */
static Expr *
hidden_local(Lower *L, DType t, Span sp)
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
	Expr *e = ir_new_expr(L->c, EX_VAR, ET_SCALAR, t, sp);
	e->u.var = v;
	return e;
}

/* The value spelling writes into a hidden local of dtype t (declared
 * and issued before the current statement, like a T.ptx value). */
static Expr *
ptx_value(Lower *L, const char *spelling, DType t, Expr **args, size_t n,
	  Span sp)
{
	Expr *r = hidden_local(L, t, sp);
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
 * polled local, or the condition argument as written. */
static Expr *
wait_condition(Lower *L, Ast *cond, Var *polled)
{
	if (cond->kind != A_LAMBDA)
		return lw_need_bool(L, lower_expr(L, cond), cond->span);
	size_t mark = L->syms.n;
	lw_bind(L, cond->name, SYM_VAR)->var = polled;
	Expr *c = lw_need_bool(L, lower_expr(L, cond->a), cond->a->span);
	lw_unbind_to(L, mark);
	return c;
}

/* One poll: the relaxed load into the polled local and, when the
 * destination is a tensor element (a lambda needs a local to name), the
 * copy into it, so the element holds every polled value as TIRx's. */
static void
push_poll(Lower *L, Block *b, const char *relaxed, Expr *polled, Expr *dst,
	  Expr *ptr, Span sp)
{
	Expr *args[2] = {polled, ptr};
	vec_push(&L->c->arena, b,
		 eval_stmt(L, ptx_node(L, relaxed, args, 2, sp), sp));
	if (polled == dst)
		return;
	Stmt *st = ir_new_stmt(L->c, ST_STORE, sp);
	st->u.store.base = dst->u.access.base;
	st->u.store.indices = dst->u.access.indices;
	st->u.store.value = polled;
	vec_push(&L->c->arena, b, st);
}

/* A keyword argument of wait_until, NULL when absent or None. */
static Ast *
opt_kw(Args *a, const char *kw)
{
	Ast *k = lw_kwarg(a, kw);
	return k && k->kind == A_NONE ? NULL : k;
}

/* A string keyword (or the positional argument pos); ptx_type may be
 * None, as TIRx allows there (scope and space may not). */
static const char *
str_kw(Lower *L, Args *a, size_t pos, const char *kw, const char *dflt)
{
	Ast *k = strcmp(kw, "ptx_type") ? lw_kwarg(a, kw) : opt_kw(a, kw);
	if (!k && !lw_kwarg(a, kw) && a->pos.n > pos && a->pos.v[pos].ast)
		k = a->pos.v[pos].ast;
	return k ? lw_const_str(L, k, kw) : dflt;
}

/* A count of nanoseconds, nanosleep.u32's operand: an integer, made
 * uint32 (a constant must fit; a wider value is truncated, as by CUDA's
 * unsigned parameter). */
static Expr *
ns_count(Lower *L, Expr *e, Span sp, const char *what)
{
	int64_t k;
	if (!(e = lw_need_int(L, e, sp)))
		return NULL;
	if (e->kind == EX_INT && ir_const_int(e, &k)) {
		if (k < 0 || k > (int64_t)UINT32_MAX)
			return diag_error(L->c, PT_E_LITERAL_RANGE, sp,
					  "%s takes 0 to 4294967295 ns, not "
					  "%lld",
					  what, (long long)k),
			       NULL;
		return ir_int(L->c, k, DT_UINT32, sp);
	}
	return e->dtype == DT_UINT32 ? e : lw_make_cast(L, e, DT_UINT32, sp);
}

/* backoff_ns=: nanosleep.u32's operand (NULL when absent: no sleep);
 * *ok is false after an error. */
static Expr *
backoff_arg(Lower *L, Args *a, bool *ok)
{
	Ast *k = opt_kw(a, "backoff_ns");
	Expr *e =
		k ? ns_count(L, lower_expr(L, k), k->span, "backoff_ns") : NULL;
	*ok = !k || e;
	return e;
}

Expr *
lw_tirx_wait_until(Lower *L, Ast *call)
{
	Args a;
	static const char *const kws[] = {"predicate", "scope",	     "space",
					  "ptx_type",  "backoff_ns", NULL};
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
	bool ok;
	Expr *backoff = backoff_arg(L, &a, &ok);
	Span sp = call->span;
	if (ok && pred->kind == A_LAMBDA && dst->kind != EX_VAR &&
	    dst->kind != EX_LOAD)
		return diag_error(L->c, PT_E_LAMBDA, pred->span,
				  "a predicate= lambda needs a scalar local "
				  "or a tensor element as the destination"),
		       NULL;
	Expr *polled = dst;
	if (ok && pred->kind == A_LAMBDA && dst->kind == EX_LOAD)
		polled = hidden_local(L, dst->dtype, sp);
	Expr *cond = ok ? wait_condition(L, pred,
					 polled->kind == EX_VAR ? polled->u.var
								: NULL)
			: NULL;
	if (!cond)
		return NULL;
	const char *relaxed = arena_printf(&L->c->arena, "ld.relaxed.%s.%s.%s",
					   scope, space, ty);
	const char *acquire = arena_printf(&L->c->arena, "ld.acquire.%s.%s.%s",
					   scope, space, ty);
	push_poll(L, L->cur, relaxed, polled, dst, ptr, sp);
	Stmt *w = ir_new_stmt(L->c, ST_WHILE, sp);
	w->u.whil.cond = lw_make_unary(L, UN_LNOT, cond, sp);
	if (backoff)
		vec_push(
			&L->c->arena, &w->u.whil.body,
			eval_stmt(L,
				  ptx_node(L, "nanosleep.u32", &backoff, 1, sp),
				  sp));
	push_poll(L, &w->u.whil.body, relaxed, polled, dst, ptr, sp);
	push_stmt(L, w);
	/* the acquire edge: one more load, into a scratch of dst's dtype */
	Expr *eargs[2] = {hidden_local(L, dst->dtype, sp), ptr};
	return ptx_node(L, acquire, eargs, 2, sp);
}

/* T.cuda.atomic_cas(ptr, compare, value): CUDA's atomicCAS on a generic
 * address (int/unsigned/unsigned long long: the bit types b32, b64); the
 * old value, of the value's dtype. */
Expr *
lw_tirx_atomic_cas(Lower *L, Ast *call)
{
	Args a;
	if (!args_n(L, call, &a, 3, 3, (const char *const[]){NULL},
		    "T.cuda.atomic_cas") ||
	    !in_kernel_stmt(L, "T.cuda.atomic_cas", call->span))
		return NULL;
	Expr *ptr = lw_coerce(L, scalar_arg(L, &a.pos.v[0]), DT_UINT64,
			      a.pos.v[0].span);
	Expr *cmp = ptr ? scalar_arg(L, &a.pos.v[1]) : NULL;
	Expr *v = cmp ? scalar_arg(L, &a.pos.v[2]) : NULL;
	if (!v || !lw_unify(L, &cmp, &v, a.pos.v[2].span))
		return NULL;
	int bits = dtype_bits(v->dtype);
	if (!lw_is_intlike(v->dtype) || v->dtype == DT_BOOL ||
	    (bits != 32 && bits != 64))
		return diag_error(L->c, PT_E_TYPE_MISMATCH, a.pos.v[2].span,
				  "T.cuda.atomic_cas swaps an int32, uint32, "
				  "int64 or uint64, not %s",
				  dtype_name(v->dtype)),
		       NULL;
	Expr *args[3] = {ptr, cmp, v};
	return ptx_value(L, bits == 32 ? "atom.cas.b32" : "atom.cas.b64",
			 v->dtype, args, 3, call->span);
}

/* T.cuda.thread_fence(): CUDA's __threadfence, which nvcc writes as
 * membar.gl (a fence.sc.gpu on sm_70 and newer). */
Expr *
lw_tirx_thread_fence(Lower *L, Ast *call)
{
	Args a;
	if (!args_n(L, call, &a, 0, 0, (const char *const[]){NULL},
		    "T.cuda.thread_fence") ||
	    !in_kernel_stmt(L, "T.cuda.thread_fence", call->span))
		return NULL;
	return ptx_node(L, "membar.gl", NULL, 0, call->span);
}

/* T.cuda.nano_sleep(t): __nanosleep(t), t nanoseconds (ns_count). */
Expr *
lw_tirx_nano_sleep(Lower *L, Ast *call)
{
	Args a;
	if (!args_n(L, call, &a, 1, 1, (const char *const[]){NULL},
		    "T.cuda.nano_sleep") ||
	    !in_kernel_stmt(L, "T.cuda.nano_sleep", call->span))
		return NULL;
	Expr *t = ns_count(L, lw_arg_expr(L, &a.pos.v[0]), a.pos.v[0].span,
			   "T.cuda.nano_sleep");
	return t ? ptx_node(L, "nanosleep.u32", &t, 1, call->span) : NULL;
}

/* The 32 bits of a float32 x as a uint64 (zero-extended). */
static Expr *
f32_word(Lower *L, Expr *x, Span sp)
{
	Expr *w = ir_new_expr(L->c, EX_REINTERPRET, ET_SCALAR, DT_UINT32, sp);
	w->u.op.a = x;
	return lw_make_cast(L, w, DT_UINT64, sp);
}

/* T.cuda.make_float2(x, y): CUDA's float2 {x, y} as TIRx passes it to the
 * f32x2 instructions, one 64-bit value with x in the low word (a float2
 * in memory is x then y, little-endian). */
Expr *
lw_tirx_make_float2(Lower *L, Ast *call)
{
	Args a;
	if (!args_n(L, call, &a, 2, 2, (const char *const[]){NULL},
		    "T.cuda.make_float2"))
		return NULL;
	Expr *w[2];
	for (int i = 0; i < 2; i++) {
		Span sp = a.pos.v[i].span;
		w[i] = lw_coerce(L, scalar_arg(L, &a.pos.v[i]), DT_FLOAT32, sp);
		if (!w[i])
			return NULL;
		w[i] = f32_word(L, w[i], sp);
	}
	Span sp = call->span;
	Expr *hi = lw_make_binary(L, BIN_SHL, w[1],
				  ir_int(L->c, 32, DT_UINT64, sp), sp);
	return lw_make_binary(L, BIN_BOR, hi, w[0], sp);
}
