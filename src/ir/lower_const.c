/*
 * lower_const.c - constant overrides (pt_set_constant, `ptxtile -D`,
 * ptxtile.compile(constants=)).  Part of the lowering pass.
 *
 * Each override's value text is its own source ("<constant NAME>", so a
 * diagnostic shows the value as written) and is parsed once per load.
 * Where the module assigns NAME, the script's value is still lowered (its
 * errors are the script's), then the override is lowered in the same
 * scope - so it may name earlier constants, and constants computed from
 * NAME afterwards see the new value - and must have the type of the value
 * it replaces: kernels were written for that type, and a string where an
 * int was meant would surface far from the cause.  Ints may replace
 * floats (as in Python); a dtype name must be replaced by a dtype name.
 */
#include "ir/lower.h"

void
lw_parse_overrides(Lower *L)
{
	for (const ConstOverride *o = L->c->consts; o; o = o->next) {
		const char *src =
			arena_printf(&L->c->arena, "<constant %s>", o->name);
		uint32_t f =
			ctx_add_source(L->c, src, o->value, strlen(o->value));
		Override ov = {o->name, parse_expression(L->c, f), false};
		vec_push(&L->c->arena, &L->overrides, ov);
	}
}

static Override *
find_override(Lower *L, const char *name)
{
	for (size_t i = 0; i < L->overrides.n; i++)
		if (!strcmp(L->overrides.v[i].name, name))
			return &L->overrides.v[i];
	return NULL;
}

static bool
is_dtype_name(const Expr *e)
{
	DType t;
	return e->kind == EX_STR && dtype_parse(e->u.str, &t);
}

static const char *
kind_name(Lower *L, const Expr *e)
{
	switch (e->kind) {
	case EX_INT:
		return e->dtype == DT_NONE
			       ? "an int"
			       : arena_printf(&L->c->arena, "an int (%s)",
					      dtype_name(e->dtype));
	case EX_FLOAT:
		return e->dtype == DT_NONE
			       ? "a float"
			       : arena_printf(&L->c->arena, "a float (%s)",
					      dtype_name(e->dtype));
	case EX_BOOL:
		return "a bool";
	case EX_STR:
		return is_dtype_name(e) ? "a dtype name" : "a string";
	case EX_TUPLE:
		return arena_printf(&L->c->arena, "a tuple of %zu",
				    e->u.tuple.n);
	default:
		return "not a constant";
	}
}

/* A number for a place of dtype t (DT_NONE: a Python number); NULL when
 * the value does not fit t. */
static Expr *
typed_number(Lower *L, Expr *v, DType t, bool want_float)
{
	if (want_float && v->kind == EX_INT && v->dtype == DT_NONE)
		v = ir_float(L->c, (double)v->u.ival, DT_NONE, v->span);
	if (t == DT_NONE || v->dtype == t)
		return v->dtype == t ? v : NULL;
	if (v->dtype != DT_NONE)
		return NULL;
	if (v->kind == EX_INT && lw_wrap_int(v->u.ival, t) != v->u.ival)
		return NULL; /* T.uint8 constant given 300: refuse, not wrap */
	return lw_coerce(L, v, t, v->span);
}

/* v made to fit where orig was, or NULL when its type differs. */
static Expr *
fit(Lower *L, const Expr *orig, Expr *v)
{
	switch (orig->kind) {
	case EX_BOOL:
		return v->kind == EX_BOOL ? v : NULL;
	case EX_INT:
		return v->kind == EX_INT
			       ? typed_number(L, v, orig->dtype, false)
			       : NULL;
	case EX_FLOAT:
		if (v->kind != EX_INT && v->kind != EX_FLOAT)
			return NULL;
		return typed_number(L, v, orig->dtype, true);
	case EX_STR:
		if (v->kind != EX_STR ||
		    is_dtype_name(orig) != is_dtype_name(v))
			return NULL;
		return v;
	case EX_TUPLE:
		break;
	default:
		return NULL;
	}
	if (v->kind != EX_TUPLE)
		return NULL;
	/* Same length: element by element.  Another length (a different
	 * cluster rank, a longer schedule): each element must match the
	 * original's first, so an all-int tuple stays all int. */
	size_t n = orig->u.tuple.n;
	if (n == 0)
		return v;
	for (size_t i = 0; i < v->u.tuple.n; i++) {
		const Expr *o = orig->u.tuple.v[v->u.tuple.n == n ? i : 0];
		Expr *e = fit(L, o, v->u.tuple.v[i]);
		if (!e)
			return NULL;
		v->u.tuple.v[i] = e;
	}
	return v;
}

/* The value module constant name takes: the override's, or the script's
 * value e (NULL when that failed) when none names it. */
Expr *
lw_override_const(Lower *L, const char *name, Expr *e, Span at)
{
	Override *o = find_override(L, name);
	if (!o)
		return e;
	o->used = true;
	/* After an error the script's value stays bound, so that uses of
	 * the name report nothing more. */
	if (!o->value || !e)
		return e;
	Expr *v = lower_expr(L, o->value);
	if (!v)
		return e;
	if (!lw_is_const_value(v)) {
		diag_error(L->c, PT_E_CONST_VALUE, o->value->span,
			   "the value of constant '%s' must be a compile-time "
			   "constant: a literal, or an expression of earlier "
			   "module constants",
			   name);
		return e;
	}
	Expr *r = fit(L, e, lw_clone_const(L, v, v->span));
	if (r)
		return r;
	diag_error(L->c, PT_E_CONST_TYPE, o->value->span,
		   "constant '%s' is %s in the script; the override is %s",
		   name, kind_name(L, e), kind_name(L, v));
	diag_note(L->c, at, "'%s' is assigned here", name);
	return e;
}

void
lw_refuse_override(Lower *L, const char *name, const char *what, Span at)
{
	Override *o = find_override(L, name);
	if (!o || o->used)
		return;
	o->used = true;
	diag_error(L->c, PT_E_CONST_TYPE, o->value ? o->value->span : at,
		   "'%s' is %s in the script, not a constant value; it cannot "
		   "be overridden",
		   name, what);
	diag_note(L->c, at, "'%s' is assigned here", name);
}

void
lw_check_overrides_used(Lower *L)
{
	size_t n = 0;
	const char **names = NEWN(&L->c->arena, const char *, L->syms.n + 1);
	for (size_t i = 0; i < L->syms.n; i++)
		if (L->syms.v[i].kind == SYM_CONST)
			names[n++] = L->syms.v[i].name;
	for (size_t i = 0; i < L->overrides.n; i++) {
		Override *o = &L->overrides.v[i];
		if (o->used)
			continue;
		const char *near = suggest_name(o->name, names, n);
		Span sp = o->value ? o->value->span : (Span){0};
		diag_error(L->c, PT_E_CONST_UNKNOWN, sp,
			   "no module constant '%s' to override (the script "
			   "has no module-level '%s = ...')%s%s%s",
			   o->name, o->name, near ? "; did you mean '" : "",
			   near ? near : "", near ? "'?" : "");
	}
}
