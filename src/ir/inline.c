/*
 * inline.c - a call of a scalar function inside another function
 * (`return sq(x) + 1.0`), made into one expression at the call site.
 *
 * A scalar function holds only bindings, if/else and returns of pure
 * expressions, so its value is an expression: bindings substitute
 * forward, `if c: ... else: ...` becomes T.if_then_else(c, then, else)
 * over the rest of the body, `return e` ends it.  Both branches are
 * evaluated (they have no effects); the result is the function's
 * return dtype.  The callee's body must already be lowered: functions
 * call functions defined before them, so there is no recursion.
 */
#include <string.h>

#include "ir/ir.h"

typedef struct Binding {
	const Var *var;
	Expr *value;
} Binding;

typedef struct Inliner {
	Ctx *c;
	VEC(Binding) env;
} Inliner;

static Expr *
bound(const Inliner *in, const Var *v)
{
	for (size_t i = in->env.n; i-- > 0;)
		if (in->env.v[i].var == v)
			return in->env.v[i].value;
	return NULL;
}

Expr *
ir_clone_subst(Ctx *c, const Expr *x,
	       Expr *(*get)(const void *ud, const Var *v), const void *ud)
{
	if (!x)
		return NULL;
	if (x->kind == EX_VAR) {
		Expr *t = get(ud, x->u.var);
		return t ? t : (Expr *)x;
	}
	Expr *n = NEW(&c->arena, Expr);
	*n = *x;
	switch (x->kind) {
	case EX_UNARY:
	case EX_BINARY:
	case EX_CAST:
	case EX_REINTERPRET:
	case EX_SELECT:
		n->u.op.a = ir_clone_subst(c, x->u.op.a, get, ud);
		n->u.op.b = ir_clone_subst(c, x->u.op.b, get, ud);
		n->u.op.c = ir_clone_subst(c, x->u.op.c, get, ud);
		break;
	case EX_BUILTIN:
		memset(&n->u.call.args, 0, sizeof(n->u.call.args));
		for (size_t i = 0; i < x->u.call.args.n; i++)
			vec_push(&c->arena, &n->u.call.args,
				 ir_clone_subst(c, x->u.call.args.v[i], get,
						ud));
		break;
	case EX_TUPLE:
		memset(&n->u.tuple, 0, sizeof(n->u.tuple));
		for (size_t i = 0; i < x->u.tuple.n; i++)
			vec_push(&c->arena, &n->u.tuple,
				 ir_clone_subst(c, x->u.tuple.v[i], get, ud));
		break;
	default:
		break;
	}
	return n;
}

static Expr *
bound_get(const void *ud, const Var *v)
{
	return bound(ud, v);
}

static Expr *
copy(Inliner *in, const Expr *x)
{
	return ir_clone_subst(in->c, x, bound_get, in);
}

static Expr *
as_dtype(Ctx *c, Expr *x, DType t)
{
	if (!x || x->dtype == t)
		return x;
	Expr *k = ir_new_expr(c, EX_CAST, ET_SCALAR, t, x->span);
	k->u.op.a = x;
	return k;
}

static Expr *body_value(Inliner *in, const Stmt *const *v, size_t n,
			DType ret, int depth);

/* The value of b's statements followed by rest[0..nrest). */
static Expr *
joined_value(Inliner *in, const Block *b, const Stmt *const *rest,
	     size_t nrest, DType ret, int depth)
{
	VEC(const Stmt *) l = {0};
	for (size_t i = 0; i < b->n; i++)
		vec_push(&in->c->arena, &l, b->v[i]);
	for (size_t i = 0; i < nrest; i++)
		vec_push(&in->c->arena, &l, rest[i]);
	size_t mark = in->env.n;
	Expr *r = body_value(in, l.v, l.n, ret, depth + 1);
	in->env.n = mark;
	return r;
}

static Expr *
body_value(Inliner *in, const Stmt *const *v, size_t n, DType ret, int depth)
{
	if (depth > 64)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const Stmt *st = v[i];
		switch (st->kind) {
		case ST_VAR_DECL:
		case ST_ASSIGN: {
			Binding b = {st->u.var.var,
				     as_dtype(in->c, copy(in, st->u.var.value),
					      st->u.var.var->dtype)};
			if (!b.value)
				return NULL;
			vec_push(&in->c->arena, &in->env, b);
			break;
		}
		case ST_RETURN:
			return as_dtype(in->c, copy(in, st->u.value), ret);
		case ST_IF: {
			Expr *c = copy(in, st->u.cond.cond);
			Expr *t = joined_value(in, &st->u.cond.then, v + i + 1,
					       n - i - 1, ret, depth);
			Expr *e = joined_value(in, &st->u.cond.els, v + i + 1,
					       n - i - 1, ret, depth);
			if (!c || !t || !e)
				return NULL;
			Expr *s = ir_new_expr(in->c, EX_SELECT, ET_SCALAR, ret,
					      st->span);
			s->u.op.a = c;
			s->u.op.b = t;
			s->u.op.c = e;
			return s;
		}
		default:
			return NULL;
		}
	}
	return NULL; /* no return: the caller reports it */
}

/* Walks x as a tree (a shared subexpression at every use) no deeper
 * than depth + 1 and over at most nodes + 1 nodes, so it is cheap and
 * safe on any DAG: IR_TREE_DEEP when x nests deeper than depth,
 * IR_TREE_BIG when it has more than nodes nodes, else IR_TREE_OK. */
static IrTree
measure(const Expr *x, int depth, size_t *left)
{
	if (!x)
		return IR_TREE_OK;
	if (depth <= 0)
		return IR_TREE_DEEP;
	if (*left == 0)
		return IR_TREE_BIG;
	--*left;
	IrTree r = IR_TREE_OK;
	switch (x->kind) {
	case EX_UNARY:
	case EX_BINARY:
	case EX_CAST:
	case EX_REINTERPRET:
	case EX_SELECT:
		if (!(r = measure(x->u.op.a, depth - 1, left)) &&
		    !(r = measure(x->u.op.b, depth - 1, left)))
			r = measure(x->u.op.c, depth - 1, left);
		break;
	case EX_BUILTIN:
		for (size_t i = 0; i < x->u.call.args.n && !r; i++)
			r = measure(x->u.call.args.v[i], depth - 1, left);
		break;
	default:
		break;
	}
	return r;
}

IrTree
ir_tree_measure(const Expr *x, int depth, size_t nodes)
{
	return measure(x, depth, &nodes);
}

Expr *
ir_inline_call(Ctx *c, const Func *f, Expr *const *args, size_t nargs)
{
	if (f->is_kernel || nargs != f->params.n || f->body.n == 0)
		return NULL;
	Inliner in = {c, {0}};
	for (size_t i = 0; i < nargs; i++) {
		Binding b = {f->params.v[i].var, args[i]};
		vec_push(&c->arena, &in.env, b);
	}
	return body_value(&in, (const Stmt *const *)f->body.v, f->body.n,
			  f->ret, 0);
}

bool
ir_dtype_is_storage(DType t)
{
	return dtype_kind(t) == DK_FLOAT && dtype_bits(t) < 16;
}
