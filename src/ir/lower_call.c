/* lower_call.c - AST -> IR: call arguments, dtypes written in the source,
 * raw PTX calls, tile calls, the builtins of builtins.def and the other T.*
 * calls.  Part of the lowering pass; lower.c describes the language it
 * accepts, lower.h what the parts share.
 */
#include "ir/lower.h"

/* ---- call arguments ---- */

/* Appends the elements of a constant sequence (a star argument). */
bool
lw_expand_star(Lower *L, Ast *star, Args *out)
{
	Ast *v = star->a;
	if (v->kind == A_TUPLE || v->kind == A_LIST) {
		for (size_t i = 0; i < v->list.n; i++) {
			Ast *e = v->list.v[i];
			if (e->kind == A_STAR) {
				if (!lw_expand_star(L, e, out))
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

bool
lw_split_args(Lower *L, Ast *call, Args *out)
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
			if (!lw_expand_star(L, a, out))
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

Expr *
lw_arg_expr(Lower *L, Arg *a)
{
	return a->ast ? lower_expr(L, a->ast) : a->val;
}

Ast *
lw_kwarg(Args *a, const char *name)
{
	for (size_t i = 0; i < a->kw.n; i++)
		if (!strcmp(a->kw.v[i]->name, name))
			return a->kw.v[i]->a;
	return NULL;
}

/* Rejects keywords outside the NULL-terminated list allowed[]. */
bool
lw_check_keywords(Lower *L, Args *a, const char *const *allowed,
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

bool
lw_check_count(Lower *L, Args *a, size_t lo, size_t hi, Span sp,
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
bool
lw_ast_dtype(Lower *L, Ast *a, DType *out)
{
	const char *p = lw_ast_path(L, a);
	const char *name = NULL;
	if (p && *p) {
		name = p;
	} else if (a->kind == A_STR) {
		name = a->str;
	} else if (a->kind == A_NAME) {
		Sym *s = lw_lookup(L, a->name);
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

bool
lw_arg_dtype(Lower *L, Arg *a, DType *out)
{
	if (a->ast)
		return lw_ast_dtype(L, a->ast, out);
	if (a->val->kind == EX_STR && dtype_parse(a->val->u.str, out))
		return true;
	return diag_error(L->c, PT_E_UNKNOWN_DTYPE, a->span, "expected a dtype");
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
	if (a->kind == A_SUBSCRIPT && lw_path_is(lw_ast_path(L, a->a), "ptx")) {
		if (a->list.n != 1 || a->list.v[0]->kind == A_SLICE) {
			*err = true;
			diag_error(L->c, PT_E_PTX_SPELLING, a->span,
				   "T.ptx[...] takes one string");
			return NULL;
		}
		const char *s = lw_const_str(L, a->list.v[0], "T.ptx[...]");
		if (!s || !check_spelling(L, s, a->list.v[0]->span)) {
			*err = true;
			return NULL;
		}
		return s;
	}
	const char *p = lw_ast_path(L, a);
	if (!p || strncmp(p, "ptx.", 4))
		return NULL;
	/* "ptx.fence.proxy.async_.shared__cta" -> "fence.proxy.async.shared::cta" */
	const char *s = ptx_chain_to_spelling(&L->c->arena, p + 4);
	/* TIRx's chain for st.bulk (a part `st` would be the mnemonic st) */
	if (s && !strncmp(s, "st_bulk", 7) && (s[7] == '.' || !s[7]))
		s = arena_printf(&L->c->arena, "st.bulk%s", s + 7);
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
		Expr *e = lw_arg_expr(L, &a->pos.v[i]);
		if (!e)
			return false;
		lw_settle(e);
		vec_push(&L->c->arena, out, e);
	}
	return true;
}

static Expr *
lower_ptx_call(Lower *L, Ast *call, const char *spelling)
{
	Args a;
	if (!lw_split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {"pred", "preserve_dst", NULL};
	if (!lw_check_keywords(L, &a, kws, "a T.ptx call"))
		return NULL;
	Expr *e = ir_new_expr(L->c, EX_PTX, ET_VOID, DT_NONE, call->span);
	e->u.ptx.spelling = spelling;
	e->u.ptx.opcode_span = call->a->span;
	if (!lower_operands(L, &a, 0, &e->u.ptx.args))
		return NULL;
	Ast *pred = lw_kwarg(&a, "pred");
	if (pred && !(e->u.ptx.pred = lw_need_bool(L, lower_expr(L, pred),
						pred->span)))
		return NULL;
	Ast *pd = lw_kwarg(&a, "preserve_dst");
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

/* ---- raw PTX used as a value ---- */

/* True when a is a call of T.ptx[...] or T.ptx.chain. */
bool
lw_is_ptx_call(Lower *L, const Ast *a)
{
	if (a->kind != A_CALL)
		return false;
	const Ast *f = a->a;
	if (f->kind == A_SUBSCRIPT)
		return lw_path_is(lw_ast_path(L, f->a), "ptx");
	const char *p = lw_ast_path(L, f);
	return p && !strncmp(p, "ptx.", 4);
}

/* The dtype of the value a form writes: its operand type, or for an
 * untyped .bN operand the dtype of the first input of that width
 * (shfl.sync.bfly.b32 of a float32 gives a float32), else bN. */
static DType
ptx_value_dtype(const PtxOperand *out, const ExprVec *inputs)
{
	if (out->kind == PTXOP_PRED)
		return DT_BOOL;
	const char *name = ptx_type_name(out->type);
	int bits = ptx_type_bits(out->type);
	bool untyped = name[0] == 'b';
	for (size_t i = 0; untyped && i < inputs->n; i++) {
		const Expr *x = inputs->v[i];
		if (x->type == ET_SCALAR && x->dtype != DT_BOOL &&
		    dtype_bits(x->dtype) == bits)
			return x->dtype;
	}
	for (int t = DT_NONE + 1; t < DT_COUNT; t++)
		if (!strcmp(dtype_ptx((DType)t), name))
			return (DType)t;
	return DT_NONE;
}

/* The one operand the form of `spelling` writes: its first, a register
 * or a predicate, and no other output.  NULL after a diagnostic. */
static const PtxOperand *
ptx_single_output(Lower *L, const char *spelling, Span sp, PtxInst *in)
{
	PtxSel sel;
	PtxMiss why = ptx_select(spelling, NULL, -1, &sel);
	if (why != PTXM_OK) {
		sel.inst.spelling = spelling;
		ptx_select_report(L->c, why, &sel, -1, sp);
		return NULL;
	}
	*in = sel.inst;
	int outs = 0;
	for (int i = 0; i < in->nops; i++)
		outs += in->ops[i].out;
	const PtxOperand *o = &in->ops[0];
	if (outs != 1 || !o->out ||
	    (o->kind != PTXOP_REG && o->kind != PTXOP_PRED))
		return diag_error(L->c, PT_E_PTX_NO_VALUE, sp,
				  "%s writes %d operands (%s), so it cannot be "
				  "used as a value: call it as a statement "
				  "with its destinations first", spelling,
				  outs, ptx_describe_operands(&L->c->arena, in)),
		       NULL;
	return o;
}

/* name = T.ptx[...](inputs): the call with the destination put first,
 * the variable dst (an existing local) or a new local `name` of dtype
 * want (DT_NONE: the form's, see ptx_value_dtype), returned in *made
 * with its declaration pushed to L->cur. */
Stmt *
lw_ptx_into(Lower *L, Ast *call, const char *name, Var *dst, DType want,
	    Var **made)
{
	if (!L->cur || !L->fn || !L->fn->is_kernel)
		return diag_error(L->c, PT_E_PTX_NO_VALUE, call->span,
				  "a PTX call is a value only in a kernel "
				  "statement (not in a while condition or a "
				  "scalar function)"),
		       NULL;
	Expr *e = lower_call(L, call);
	if (!e)
		return NULL;
	PtxInst in;
	const PtxOperand *o = ptx_single_output(L, e->u.ptx.spelling,
						e->u.ptx.opcode_span, &in);
	if (!o)
		return NULL;
	if (!dst) {
		DType t = want != DT_NONE ? want : ptx_value_dtype(o, &e->u.ptx.args);
		if (t == DT_NONE)
			return diag_error(L->c, PT_E_PTX_NO_VALUE, call->span,
					  "no script dtype holds the %s value "
					  "of %s: declare the destination "
					  "(x: T.uint32) and pass it first",
					  ptx_type_name(o->type),
					  e->u.ptx.spelling),
			       NULL;
		dst = lw_new_var(L, name, t, VK_LOCAL, call->span);
		lw_bind(L, name, SYM_VAR)->var = dst;
		Stmt *d = ir_new_stmt(L->c, ST_VAR_DECL, call->span);
		d->u.var.var = dst;
		vec_push(&L->c->arena, L->cur, d);
	}
	Expr *v = ir_new_expr(L->c, EX_VAR, ET_SCALAR, dst->dtype, call->span);
	v->u.var = dst;
	ExprVec args = {0};
	vec_push(&L->c->arena, &args, v);
	for (size_t i = 0; i < e->u.ptx.args.n; i++)
		vec_push(&L->c->arena, &args, e->u.ptx.args.v[i]);
	e->u.ptx.args = args;
	if (made)
		*made = dst;
	Stmt *st = ir_new_stmt(L->c, ST_EVAL, call->span);
	st->u.value = e;
	return st;
}

/* A PTX call inside an expression: it runs first, into a hidden local
 * named so that it reads back (ptxtile print) as the same program. */
Expr *
lw_ptx_value(Lower *L, Ast *call)
{
	const char *name;
	do
		name = arena_printf(&L->c->arena, "_ptx%d", L->next_tmp++);
	while (lw_lookup(L, name));
	Var *v = NULL;
	Stmt *st = lw_ptx_into(L, call, name, NULL, DT_NONE, &v);
	if (!st)
		return NULL;
	vec_push(&L->c->arena, L->cur, st);
	Expr *e = ir_new_expr(L->c, EX_VAR, ET_SCALAR, v->dtype, call->span);
	e->u.var = v;
	return e;
}

/* ---- tile calls ---- */

static bool
scope_kw(Lower *L, Args *a, ExecScope *out)
{
	*out = ES_THREAD;
	Ast *s = lw_kwarg(a, "scope");
	if (!s)
		return true;
	const char *name = lw_const_str(L, s, "scope");
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
	if (!lw_split_args(L, call, &a))
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
		lw_settle(na.value);
		vec_push(&L->c->arena, &e->u.apply.params, na);
	}
	return e;
}

static Expr *
lower_ewise(Lower *L, Ast *call)
{
	Args a;
	if (!lw_split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {"scope", NULL};
	if (!lw_check_keywords(L, &a, kws, "ewise") ||
	    !lw_check_count(L, &a, 2, MAX_SEQ, call->span, "ewise"))
		return NULL;
	Ast *f = a.pos.v[0].ast;
	Sym *s = f && f->kind == A_NAME ? lw_lookup(L, f->name) : NULL;
	if (!s || s->kind != SYM_FUNC || s->fn->is_kernel)
		return diag_error(L->c, PT_E_BAD_EWISE, a.pos.v[0].span,
				  "ewise's first argument must name a scalar "
				  "@T.function"), NULL;
	Expr *e = ir_new_expr(L->c, EX_TILE_EWISE, ET_VOID, DT_NONE,
			      call->span);
	e->u.ewise.fn = s->fn;
	e->u.ewise.dst = lw_arg_expr(L, &a.pos.v[1]);
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
	if (id == BI_ABS && !lw_is_unsigned(t))
		return ir_int(L->c, lw_wrap_int(x < 0 ? (int64_t)(0 - (uint64_t)x) : x, t), t, sp);
	if (n < 2 || !ir_const_int(v[1], &y))
		return NULL;
	bool u = lw_is_unsigned(t);
	bool less = u ? (uint64_t)x < (uint64_t)y : x < y;
	if (id == BI_MIN)
		return ir_int(L->c, less ? x : y, t, sp);
	if (id == BI_MAX)
		return ir_int(L->c, less ? y : x, t, sp);
	if (id == BI_CEILDIV && y > 0 && x >= 0)
		return ir_int(L->c, lw_wrap_int(x / y + (x % y != 0), t), t, sp);
	return NULL;
}

static bool
unify_args(Lower *L, Expr **v, size_t n, Span sp)
{
	for (size_t i = 1; i < n; i++)
		if (!lw_unify(L, &v[0], &v[i], sp))
			return false;
	for (size_t i = 1; i < n; i++)
		if (!lw_unify(L, &v[0], &v[i], sp))
			return false;
	return true;
}

/* T.cuda.printf(fmt, *args): the format a constant string, each
 * argument a scalar (literals settle to int32/float32 as in C). */
static Expr *
lower_printf(Lower *L, Ast *call)
{
	Args a;
	if (!lw_split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {NULL};
	if (!lw_check_keywords(L, &a, kws, "T.cuda.printf"))
		return NULL;
	if (a.pos.n == 0 || a.pos.n > 33)
		return diag_error(L->c, PT_E_ARG_COUNT, call->span,
				  "T.cuda.printf takes a format and at most 32 "
				  "arguments"),
		       NULL;
	Expr *e = ir_new_expr(L->c, EX_BUILTIN, ET_VOID, DT_NONE, call->span);
	e->u.call.id = BI_PRINTF;
	for (size_t i = 0; i < a.pos.n; i++) {
		Expr *x = lw_arg_expr(L, &a.pos.v[i]);
		if (!x || (i > 0 && !lw_need_scalar(L, x, a.pos.v[i].span)))
			return NULL;
		lw_settle(x);
		vec_push(&L->c->arena, &e->u.call.args, x);
	}
	return ir_printf_check(L->c, e) ? e : NULL;
}

static Expr *
lower_builtin(Lower *L, Builtin id, Ast *call)
{
	const BuiltinInfo *bi = builtin_info(id);
	if (id == BI_PRINTF)
		return lower_printf(L, call);
	Args a;
	if (!lw_split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {NULL};
	if (!lw_check_keywords(L, &a, kws, bi->spelling) ||
	    !lw_check_count(L, &a, (size_t)bi->nargs, (size_t)bi->nargs,
			 call->span, bi->spelling))
		return NULL;
	Expr *v[4] = {0};
	size_t n = a.pos.n;
	for (size_t i = 0; i < n; i++) {
		v[i] = lw_arg_expr(L, &a.pos.v[i]);
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
	case BR_FARG:
		for (size_t i = 0; i < n; i++)
			if (!lw_need_scalar(L, v[i], a.pos.v[i].span))
				return NULL;
		if (!unify_args(L, v, n, call->span))
			return NULL;
		rt = v[0]->dtype;
		break;
	case BR_FLOAT32: rt = DT_FLOAT32; break;
	}
	if (bi->args == BA_FLOAT) {
		for (size_t i = 0; i < n; i++) {
			if (!lw_need_scalar(L, v[i], a.pos.v[i].span))
				return NULL;
			lw_settle(v[i]);
			if (dtype_kind(v[i]->dtype) != DK_FLOAT)
				return diag_error(L->c, PT_E_TYPE_MISMATCH,
						  a.pos.v[i].span,
						  "%s needs a float argument, "
						  "found %s",
						  bi->spelling,
						  dtype_name(v[i]->dtype)),
				       NULL;
		}
	} else if (bi->args != BA_ANY) {
		DType at = bi->args == BA_F32 ? DT_FLOAT32 : DT_UINT32;
		for (size_t i = 0; i < n; i++)
			if (!(v[i] = lw_coerce(L, lw_need_scalar(L, v[i],
							a.pos.v[i].span),
					       at, a.pos.v[i].span)))
				return NULL;
	}
	if (id == BI_TRAP_WHEN_ASSERT_FAILED &&
	    !lw_need_bool(L, v[0], a.pos.v[0].span))
		return NULL;
	if (id == BI_THREAD_IDX || id == BI_BLOCK_IDX || id == BI_CLUSTER_CTA_ID)
		if (!check_thread_axis(L, v[0], a.pos.v[0].span))
			return NULL;
	if (bi->result == BR_FARG && dtype_kind(rt) != DK_FLOAT)
		return diag_error(L->c, PT_E_TYPE_MISMATCH, call->span,
				  "%s needs a float argument, found %s",
				  bi->spelling, rt == DT_NONE ? "an int literal"
							      : dtype_name(rt)),
		       NULL;
	if (id == BI_CEILDIV && (!lw_is_intlike(rt) || v[0]->kind == EX_FLOAT))
		return diag_error(L->c, PT_E_TYPE_MISMATCH, call->span,
				  "T.ceildiv needs integers"), NULL;
	if (bi->result == BR_ARG || bi->result == BR_FARG) {
		Expr *f = fold_builtin(L, id, v, n, call->span);
		if (f)
			return f;
		for (size_t i = 0; i < n; i++)
			lw_settle(v[i]);
		rt = v[0]->dtype;
	}
	Expr *e = ir_new_expr(L->c, EX_BUILTIN, ty, rt, call->span);
	e->u.call.id = id;
	for (size_t i = 0; i < n; i++) {
		lw_settle(v[i]);
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
	if (lw_is_unsigned(t))
		return v >= 0 && (bits == 64 || v <= (int64_t)((UINT64_C(1) << bits) - 1));
	return bits == 64 || (v >= -(INT64_C(1) << (bits - 1)) &&
			      v < (INT64_C(1) << (bits - 1)));
}

/* T.float32("inf"), "-inf", "nan": TIRx's spelling of the non-finite
 * values, which no Python literal can write. */
static Expr *
float_of_string(Lower *L, const char *s, DType t, Span sp)
{
	static const struct {
		const char *text;
		double v;
	} names[] = {
		{"inf", INFINITY}, {"+inf", INFINITY}, {"-inf", -INFINITY},
		{"nan", NAN},
	};
	for (size_t i = 0; i < countof(names); i++)
		if (!strcmp(s, names[i].text))
			return ir_float(L->c, names[i].v, t, sp);
	diag_error(L->c, PT_E_FLOAT_STRING, sp,
		   "T.%s(\"%s\"): the only float strings are \"inf\", "
		   "\"-inf\" and \"nan\" (write other values as numbers)",
		   dtype_name(t), s);
	return NULL;
}

/* T.infinity(ty=...), T.max_value(ty=...), T.min_value(ty=...): TIRx's
 * dtype limits, folded to a constant of that dtype. */
static Expr *
lower_limit(Lower *L, Ast *call, int which)
{
	static const char *const names[] = {"T.infinity", "T.max_value",
					    "T.min_value"};
	Args a;
	if (!lw_split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {"ty", "dtype", NULL};
	if (!lw_check_keywords(L, &a, kws, names[which]))
		return NULL;
	Ast *ty = lw_kwarg(&a, "ty") ? lw_kwarg(&a, "ty") : lw_kwarg(&a, "dtype");
	if (!lw_check_count(L, &a, ty ? 0 : 1, ty ? 0 : 1, call->span,
			    names[which]))
		return NULL;
	DType t;
	if (ty ? !lw_ast_dtype(L, ty, &t) : !lw_arg_dtype(L, &a.pos.v[0], &t))
		return NULL;
	double fmax = lw_float_max(t);
	if (fmax > 0 && which == 0)
		return ir_float(L->c, INFINITY, t, call->span);
	if (fmax > 0)
		return ir_float(L->c, which == 1 ? fmax : -fmax, t, call->span);
	if (which == 0 || !lw_is_intlike(t) || t == DT_NONE)
		return diag_error(L->c, PT_E_TYPE_MISMATCH, call->span,
				  "%s needs a float dtype%s", names[which],
				  which ? " or an integer one" : ""),
		       NULL;
	int bits = dtype_bits(t);
	bool u = lw_is_unsigned(t);
	int64_t hi = u ? (bits == 64 ? -1 : (int64_t)((UINT64_C(1) << bits) - 1))
		       : (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
	int64_t lo = u ? 0 : -hi - 1;
	return ir_int(L->c, which == 1 ? hi : lo, t, call->span);
}

static Expr *
lower_infinity(Lower *L, Ast *call)
{
	return lower_limit(L, call, 0);
}

static Expr *
lower_max_value(Lower *L, Ast *call)
{
	return lower_limit(L, call, 1);
}

static Expr *
lower_min_value(Lower *L, Ast *call)
{
	return lower_limit(L, call, 2);
}

static Expr *
lower_typed(Lower *L, DType t, Ast *call)
{
	Args a;
	if (!lw_split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {NULL};
	if (!lw_check_keywords(L, &a, kws, dtype_name(t)) ||
	    !lw_check_count(L, &a, 1, 1, call->span, dtype_name(t)))
		return NULL;
	Expr *x = lw_arg_expr(L, &a.pos.v[0]);
	/* a literal above INT64_MAX (a uint64 constant) fits only 64-bit
	 * unsigned dtypes */
	const Ast *lit = a.pos.v[0].ast;
	if (x && lit && lit->kind == A_INT && lit->ival > (uint64_t)INT64_MAX &&
	    !(lw_is_unsigned(t) && dtype_bits(t) == 64)) {
		diag_error(L->c, PT_E_LITERAL_RANGE, call->span,
			   "%llu is out of range for %s",
			   (unsigned long long)lit->ival, dtype_name(t));
		return NULL;
	}

	if (x && x->kind == EX_STR && dtype_kind(t) == DK_FLOAT)
		return float_of_string(L, x->u.str, t, call->span);
	if (x && !lw_float_fits(L, x, t, call->span))
		return NULL;
	if (x && x->kind == EX_INT && x->dtype == DT_NONE && t != DT_BOOL &&
	    dtype_kind(t) != DK_FLOAT && !literal_fits(x->u.ival, t)) {
		diag_error(L->c, PT_E_LITERAL_RANGE, call->span,
			   "%lld is out of range for %s", (long long)x->u.ival,
			   dtype_name(t));
		return NULL;
	}
	return lw_make_cast(L, x, t, call->span);
}

static Expr *
lower_cast(Lower *L, Ast *call)
{
	Args a;
	if (!lw_split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {"ty", "dtype", NULL};
	if (!lw_check_keywords(L, &a, kws, "T.cast"))
		return NULL;
	Ast *ty = lw_kwarg(&a, "ty") ? lw_kwarg(&a, "ty") : lw_kwarg(&a, "dtype");
	if (!lw_check_count(L, &a, ty ? 1 : 2, ty ? 1 : 2, call->span, "T.cast"))
		return NULL;
	DType t;
	if (ty ? !lw_ast_dtype(L, ty, &t) : !lw_arg_dtype(L, &a.pos.v[1], &t))
		return NULL;
	return lw_make_cast(L, lw_arg_expr(L, &a.pos.v[0]), t, call->span);
}

/* TIRx's T.Cast(dtype, x): T.cast with the dtype first. */
static Expr *
lower_cast_dtype_first(Lower *L, Ast *call)
{
	Args a;
	DType t;
	if (!lw_split_args(L, call, &a) ||
	    !lw_check_keywords(L, &a, (const char *const[]){NULL}, "T.Cast") ||
	    !lw_check_count(L, &a, 2, 2, call->span, "T.Cast") ||
	    !lw_arg_dtype(L, &a.pos.v[0], &t))
		return NULL;
	return lw_make_cast(L, lw_arg_expr(L, &a.pos.v[1]), t, call->span);
}

/* TIRx's operator functions: T.bitwise_and(a, b) is a & b, and so on. */
static const struct {
	const char *path;
	BinOp op;
} op_calls[] = {
	{"bitwise_and", BIN_BAND}, {"bitwise_or", BIN_BOR},
	{"bitwise_xor", BIN_BXOR}, {"shift_left", BIN_SHL},
	{"shift_right", BIN_SHR},
};

static Expr *
lower_op_call(Lower *L, Ast *call, BinOp op, const char *full)
{
	Args a;
	if (!lw_split_args(L, call, &a) ||
	    !lw_check_keywords(L, &a, (const char *const[]){NULL}, full) ||
	    !lw_check_count(L, &a, 2, 2, call->span, full))
		return NULL;
	Expr *x = lw_arg_expr(L, &a.pos.v[0]);
	Expr *y = x ? lw_arg_expr(L, &a.pos.v[1]) : NULL;
	return y ? lw_make_binary(L, op, x, y, call->span) : NULL;
}

/* The ty= of T.reinterpret(x, ty=...): a dtype, or TIRx's "handle" (a
 * generic address, which this language holds as a uint64, like
 * Tensor.data). */
static bool
reinterpret_ty(Lower *L, Ast *ty, DType *t)
{
	if (ty->kind == A_STR && !strcmp(ty->str, "handle")) {
		*t = DT_UINT64;
		return true;
	}
	return lw_ast_dtype(L, ty, t);
}

/* T.reinterpret(dtype, x), or TIRx's newer T.reinterpret(x, ty=dtype). */
static Expr *
lower_reinterpret(Lower *L, Ast *call)
{
	Args a;
	if (!lw_split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {"ty", NULL};
	Ast *ty = lw_kwarg(&a, "ty");
	size_t nx = ty ? 1 : 2;
	if (!lw_check_keywords(L, &a, kws, "T.reinterpret") ||
	    !lw_check_count(L, &a, nx, nx, call->span, "T.reinterpret"))
		return NULL;
	DType t;
	if (ty ? !reinterpret_ty(L, ty, &t) : !lw_arg_dtype(L, &a.pos.v[0], &t))
		return NULL;
	Arg *xa = &a.pos.v[nx - 1];
	Expr *x = lw_need_scalar(L, lw_arg_expr(L, xa), xa->span);
	if (!x)
		return NULL;
	lw_settle(x);
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
	if (!lw_split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {NULL};
	if (!lw_check_keywords(L, &a, kws, "T.if_then_else") ||
	    !lw_check_count(L, &a, 3, 3, call->span, "T.if_then_else"))
		return NULL;
	Expr *c = lw_need_bool(L, lw_arg_expr(L, &a.pos.v[0]), a.pos.v[0].span);
	Expr *x = lw_need_scalar(L, c ? lw_arg_expr(L, &a.pos.v[1]) : NULL,
			      a.pos.v[1].span);
	Expr *y = lw_need_scalar(L, x ? lw_arg_expr(L, &a.pos.v[2]) : NULL,
			      a.pos.v[2].span);
	if (!y || !lw_unify(L, &x, &y, call->span))
		return NULL;
	if (c->kind == EX_BOOL)
		return c->u.ival ? x : y;
	lw_settle(x);
	lw_settle(y);
	Expr *e = ir_new_expr(L->c, EX_SELECT, ET_SCALAR, x->dtype, call->span);
	e->u.op.a = c;
	e->u.op.b = x;
	e->u.op.c = y;
	return e;
}

/* T.constexpr(e): e, which must fold to a constant (TIRx's marker of a
 * host-side value; `if T.constexpr(c):` keeps one branch). */
static Expr *
lower_constexpr(Lower *L, Ast *call)
{
	Args a;
	if (!lw_split_args(L, call, &a) ||
	    !lw_check_keywords(L, &a, (const char *const[]){NULL},
			       "T.constexpr") ||
	    !lw_check_count(L, &a, 1, 1, call->span, "T.constexpr"))
		return NULL;
	Expr *e = lw_arg_expr(L, &a.pos.v[0]);
	if (e && !lw_is_const_value(e))
		return diag_error(L->c, PT_E_CONSTEXPR, a.pos.v[0].span,
				  "T.constexpr needs a value known when the "
				  "script is compiled (module constants, "
				  "literals, and what folds from them)"),
		       NULL;
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
		"thread_binding",
		"shared_scalar", "ptr_byte_offset", "tvm_access_ptr", NULL,
	};
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(names[i], p))
			return true;
	return false;
}

/* T.* calls with a lowering of their own (besides T.ptx.*, typed
 * literals T.<dtype>(...) and the builtins of builtins.def). */
static const struct {
	const char *path;
	Expr *(*lower)(Lower *L, Ast *call);
} path_calls[] = {
	{"cast", lower_cast},
	{"Cast", lower_cast_dtype_first},
	{"reinterpret", lower_reinterpret},
	{"if_then_else", lower_select},
	{"constexpr", lower_constexpr},
	{"infinity", lower_infinity},
	{"max_value", lower_max_value},
	{"min_value", lower_min_value},
	{"cuda.uint_as_float", lw_tirx_uint_as_float},
	{"cuda.float_as_uint", lw_tirx_float_as_uint},
	{"cuda.clock64", lw_tirx_clock64},
	{"cuda.ballot_sync", lw_tirx_ballot_sync},
	{"cuda.atomic_add", lw_tirx_atomic_add},
	{"cuda.wait_until", lw_tirx_wait_until},
	{"cuda.atomic_cas", lw_tirx_atomic_cas},
	{"cuda.thread_fence", lw_tirx_thread_fence},
	{"cuda.nano_sleep", lw_tirx_nano_sleep},
	{"cuda.make_float2", lw_tirx_make_float2},
	{"cuda.tile.apply", lower_apply},
	{"cuda.tile.ewise", lower_ewise},
};

/* Names that are builtins, but not calls valid in an expression: why,
 * and the code that says so. */
static const struct {
	const char *path;
	int code;
	const char *why;
} misplaced[] = {
	{"device_entry", PT_E_DEVICE_ENTRY,
	 "must be the first statement of a kernel"},
	{"S", PT_E_BAD_LAYOUT, "is only valid where a layout is expected"},
	{"R", PT_E_BAD_LAYOUT, "is only valid where a layout is expected"},
	{"evaluate", PT_E_UNSUPPORTED, "is only valid as a statement"},
	{"serial", PT_E_UNSUPPORTED, "is only valid in a for statement"},
	{"unroll", PT_E_UNSUPPORTED, "is only valid in a for statement"},
	{"vectorized", PT_E_UNSUPPORTED, "is only valid in a for statement"},
	{"local_scalar", PT_E_UNSUPPORTED,
	 "must be assigned to a name (x = T.local_scalar(dtype))"},
	{"let", PT_E_UNSUPPORTED,
	 "is only valid as an annotation (x: T.let = value)"},
	{"dynamic", PT_E_UNSUPPORTED,
	 "is only valid at module level (n = T.dynamic(\"n\"))"},
};

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
	for (size_t i = 0; i < countof(path_calls); i++)
		if (!strcmp(p, path_calls[i].path))
			return path_calls[i].lower(L, call);
	for (size_t i = 0; i < countof(op_calls); i++)
		if (!strcmp(p, op_calls[i].path))
			return lower_op_call(L, call, op_calls[i].op, full);
	int code = PT_E_UNKNOWN_BUILTIN;
	const char *why = "is not a builtin";
	if (lw_is_alloc_path(p)) {
		code = PT_E_UNSUPPORTED;
		why = "must be assigned to a name (x = ...)";
	} else if (lw_is_layout_path(p)) {
		code = PT_E_BAD_LAYOUT;
		why = "is only valid where a layout is expected";
	} else if (is_known_unsupported(p)) {
		code = PT_E_UNSUPPORTED;
		why = "is not supported by this language";
	}
	for (size_t i = 0; i < countof(misplaced); i++)
		if (!strcmp(p, misplaced[i].path)) {
			code = misplaced[i].code;
			why = misplaced[i].why;
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
	if (!lw_split_args(L, call, &a) ||
	    !lw_check_keywords(L, &a, (const char *const[]){NULL}, f->name))
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
		args[i] = lw_coerce(L, lw_need_scalar(L, lw_arg_expr(L, &a.pos.v[i]),
						a.pos.v[i].span),
				 f->params.v[i].var->dtype, a.pos.v[i].span);
		if (!args[i])
			return NULL;
	}
	Expr *x = ir_inline_call(L->c, f, args, a.pos.n);
	IrTree r;
	if (!x)
		diag_error(L->c, PT_E_UNSUPPORTED, call->a->span,
			   "scalar function '%s' is not complete here: a "
			   "function may call only scalar functions defined "
			   "above it (no recursion)", f->name);
	/* nested calls share their arguments; written out as a tree
	 * (codegen, print) they could double per level, and a chain of
	 * bindings or calls nests one level each */
	else if ((r = ir_tree_measure(x, IR_MAX_DEPTH, INLINE_MAX_NODES)) ==
		 IR_TREE_BIG)
		return diag_error(L->c, PT_E_UNSUPPORTED, call->a->span,
				  "calling '%s' here makes an expression of "
				  "more than %d nodes", f->name,
				  INLINE_MAX_NODES),
		       NULL;
	else if (r == IR_TREE_DEEP)
		return diag_error(L->c, PT_E_DEPTH_BUDGET, call->a->span,
				  "calling '%s' here makes an expression "
				  "nested deeper than %d", f->name,
				  IR_MAX_DEPTH),
		       NULL;
	return x;
}

Expr *
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
	const char *p = lw_ast_path(L, callee);
	if (p && *p)
		return lower_path_call(L, call, p);
	if (callee->kind == A_ATTR && !p)
		return lower_method(L, call);
	if (callee->kind == A_NAME) {
		Sym *sym = lw_lookup(L, callee->name);
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
