/* lower_stmt.c - AST -> IR: buffers and statements.  Part of the lowering
 * pass; lower.c describes the language it accepts, lower.h what the parts
 * share.
 */
#include "ir/lower.h"

/* ---- buffers ---- */

bool
lw_alloc_int_kw(Lower *L, Args *a, const char *name, int64_t *out)
{
	Ast *k = lw_kwarg(a, name);
	return !k || lw_const_int(L, k, out);
}

/* shape and dtype given positionally or as shape=/dtype=. */
bool
lw_shape_and_dtype(Lower *L, Args *a, Ast *call, const char *fn, Buffer *b)
{
	if (a->pos.n > 2)
		return lw_check_count(L, a, 2, 2, call->span, fn);
	Ast *ks = lw_kwarg(a, "shape"), *kd = lw_kwarg(a, "dtype");
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
	lw_set_shape(b, &shape);
	if (kd)
		return lw_ast_dtype(L, kd, &b->dtype);
	return lw_arg_dtype(L, &a->pos.v[1], &b->dtype);
}

bool
lw_scope_of(Lower *L, Ast *k, MemScope *out)
{
	const char *s = lw_const_str(L, k, "scope");
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
	Buffer *b = lw_new_buf(L, name, BK_ALLOC, call->span);
	Args a;
	if (!lw_split_args(L, call, &a))
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
	if (!lw_check_keywords(L, &a,
			    decl ? kw_decl : gen ? kw_buf : shared ? kw_sh : kw_sl,
			    fn) ||
	    !lw_shape_and_dtype(L, &a, call, fn, b))
		return NULL;
	b->scope = shared ? MS_SHARED
		   : !strcmp(p, "alloc_local") ? MS_LOCAL
		   : tmem ? MS_TMEM : MS_GLOBAL;
	Ast *sk = lw_kwarg(&a, "scope");
	if (sk && !lw_scope_of(L, sk, &b->scope))
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
		Ast *addr = lw_kwarg(&a, "allocated_addr");
		if (!addr)
			return diag_error(L->c, PT_E_MISSING_ARG, call->span,
					  "%s needs allocated_addr=", fn),
			       NULL;
		b->allocated_addr = lw_need_int(L, lower_expr(L, addr), addr->span);
		if (!b->allocated_addr)
			return NULL;
	} else if (b->scope == MS_TMEM) {
		return diag_error(L->c, PT_E_UNSUPPORTED, call->span,
				  "tensor memory is declared with "
				  "T.tmem(..., allocated_addr=...)"),
		       NULL;
	}
	Ast *lay = lw_kwarg(&a, "layout");
	if (lay && !lower_layout(L, lay, &b->layout))
		return NULL;
	if (!lw_alloc_int_kw(L, &a, "align", &b->align))
		return NULL;
	return b;
}

/* T.decl_tensor(X.data, ty_args=[T.Tensor(shape, dtype[, layout=])]):
 * apache-tvm-tirx 0.1.0a4's tensor over a data pointer.  The pointer
 * must be a tensor's .data, so the result is a view of that tensor: a
 * dtype view when the dtype differs, reshaped to shape (with layout). */
static Expr *
decl_tensor_view(Lower *L, Ast *call)
{
	Args a;
	if (!lw_split_args(L, call, &a) ||
	    !lw_check_keywords(L, &a, (const char *const[]){"ty_args", NULL},
			       "T.decl_tensor") ||
	    !lw_check_count(L, &a, 1, 1, call->span, "T.decl_tensor"))
		return NULL;
	Ast *data = a.pos.v[0].ast, *ty = lw_kwarg(&a, "ty_args");
	if (!data || data->kind != A_ATTR || strcmp(data->name, "data"))
		return diag_error(L->c, PT_E_DECL_TENSOR, a.pos.v[0].span,
				  "T.decl_tensor's data must be a tensor's "
				  ".data (X.data)"),
		       NULL;
	Ast *t = ty && (ty->kind == A_LIST || ty->kind == A_TUPLE) &&
			 ty->list.n == 1
		 ? ty->list.v[0] : NULL;
	if (!t || t->kind != A_CALL ||
	    !lw_path_is(lw_ast_path(L, t->a), "Tensor"))
		return diag_error(L->c, PT_E_DECL_TENSOR, ty ? ty->span : call->span,
				  "T.decl_tensor takes ty_args=[T.Tensor(shape, "
				  "dtype)]"),
		       NULL;
	Expr *base = lw_need_tensor(L, lower_expr(L, data->a), data->a->span);
	Args ta;
	Buffer tmp = {0};
	if (!base || !lw_split_args(L, t, &ta) ||
	    !lw_check_keywords(L, &ta, (const char *const[]){"shape", "dtype",
							      "layout", NULL},
			       "T.Tensor") ||
	    !lw_shape_and_dtype(L, &ta, t, "T.Tensor", &tmp))
		return NULL;
	if (tmp.dtype != base->dtype) {
		Expr *d = ir_new_expr(L->c, EX_VIEW_DTYPE, ET_TENSOR, tmp.dtype,
				      call->span);
		d->u.view.base = base;
		base = d;
	}
	Expr *e = ir_new_expr(L->c, EX_VIEW_RESHAPE, ET_TENSOR, tmp.dtype,
			      call->span);
	e->u.view.base = base;
	for (int i = 0; i < tmp.ndim; i++)
		vec_push(&L->c->arena, &e->u.view.shape, tmp.shape[i]);
	Ast *lay = lw_kwarg(&ta, "layout");
	if (lay && !lower_layout(L, lay, &e->u.view.layout))
		return NULL;
	return e;
}

static Buffer *
view_buffer(Lower *L, const char *name, Expr *view, Span sp)
{
	Buffer *b = lw_new_buf(L, name, BK_VIEW, sp);
	b->dtype = view->dtype;
	b->ndim = lw_tensor_rank(view);
	b->shape = lw_tensor_shape(L, view);
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

void
lw_poison(Lower *L, const char *name)
{
	if (!lw_lookup_local(L, name))
		lw_bind(L, name, SYM_ERROR);
}

static Stmt *
def_buffer(Lower *L, Buffer *b, Span sp)
{
	lw_bind(L, b->name, SYM_BUF)->buf = b;
	Stmt *s = ir_new_stmt(L->c, ST_BUF_DEF, sp);
	s->u.buf = b;
	return s;
}

static Stmt *
declare_var(Lower *L, const char *name, DType t, Expr *init, Span sp)
{
	Var *v = lw_new_var(L, name, t, VK_LOCAL, sp);
	lw_bind(L, name, SYM_VAR)->var = v;
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
	Expr *e = lw_coerce(L, lw_need_scalar(L, lower_expr(L, value), value->span),
			 s->var->dtype, value->span);
	if (!e)
		return NULL;
	Stmt *st = ir_new_stmt(L->c, ST_ASSIGN, sp);
	st->u.var.var = s->var;
	st->u.var.value = e;
	return st;
}

static bool
has_kwarg(const Ast *call, const char *name)
{
	for (size_t i = 0; i < call->list.n; i++)
		if (call->list.v[i]->kind == A_KWARG &&
		    !strcmp(call->list.v[i]->name, name))
			return true;
	return false;
}

/* name = T.local_scalar(dtype): TIRx's scalar local, declared without a
 * value (like `name: T.dtype`). */
static Stmt *
local_scalar(Lower *L, const char *name, Ast *call, Span sp)
{
	Args a;
	DType t;
	if (!lw_split_args(L, call, &a) ||
	    !lw_check_keywords(L, &a, (const char *const[]){NULL},
			       "T.local_scalar") ||
	    !lw_check_count(L, &a, 1, 1, call->span, "T.local_scalar") ||
	    !lw_arg_dtype(L, &a.pos.v[0], &t))
		return lw_poison(L, name), NULL;
	return declare_var(L, name, t, NULL, sp);
}

/* name = value */
static Stmt *
assign_name(Lower *L, Ast *target, Ast *value, Span sp)
{
	const char *name = target->name;
	const char *p = lw_call_path(L, value);
	Sym *old = lw_lookup_local(L, name);
	if (old && old->kind == SYM_VAR && old->var->kind == VK_LOCAL &&
	    lw_is_ptx_call(L, value))
		return lw_ptx_into(L, value, name, old->var, DT_NONE, NULL);
	if (old && old->kind == SYM_VAR && !lw_is_alloc_path(p))
		return assign_existing(L, old, value, sp);
	if (old && old->kind != SYM_CONST && old->kind != SYM_LAYOUT) {
		if (old->kind == SYM_ERROR)
			return NULL;
		diag_error(L->c, PT_E_REDEFINED, target->span,
			   "'%s' is already defined", name);
		return NULL;
	}
	if (lw_path_is(p, "local_scalar"))
		return local_scalar(L, name, value, sp);
	if (lw_path_is(p, "decl_tensor") && has_kwarg(value, "ty_args")) {
		Expr *v = decl_tensor_view(L, value);
		if (!v)
			return lw_poison(L, name), NULL;
		return def_buffer(L, view_buffer(L, name, v, sp), sp);
	}
	if (lw_is_alloc_path(p)) {
		Buffer *b = lower_alloc(L, name, value, p);
		if (!b)
			return lw_poison(L, name), NULL;
		return def_buffer(L, b, sp);
	}
	if (lw_is_ptx_call(L, value)) {
		Stmt *st = lw_ptx_into(L, value, name, NULL, DT_NONE, NULL);
		return st ? st : (lw_poison(L, name), NULL);
	}
	if (lw_is_layout_path(p)) {
		Layout *lay;
		if (!lower_layout(L, value, &lay))
			return lw_poison(L, name), NULL;
		lw_bind(L, name, SYM_LAYOUT)->layout = lay;
		return NULL;
	}
	Expr *e = lower_expr(L, value);
	if (!e)
		return lw_poison(L, name), NULL;
	if (e->type == ET_TENSOR)
		return def_buffer(L, view_buffer(L, name, e, sp), sp);
	if ((e->type == ET_TUPLE || e->type == ET_STR) && lw_is_const_value(e)) {
		lw_bind(L, name, SYM_CONST)->cval = e;
		return NULL;
	}
	if (e->type != ET_SCALAR) {
		diag_error(L->c, PT_E_NOT_SCALAR, value->span,
			   "this value cannot be bound to a name");
		return lw_poison(L, name), NULL;
	}
	lw_settle(e);
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
	Expr *base = lw_need_tensor(L, lower_expr(L, obj), obj->span);
	if (!base)
		return NULL;
	Expr *ld = lw_make_subscript(L, base, &target->list, false, target->span);
	if (!ld)
		return NULL;
	if (ld->kind != EX_LOAD) {
		diag_error(L->c, PT_E_BAD_INDEX, target->span,
			   "cannot assign to a slice; store elements one by "
			   "one or use a tile call");
		return NULL;
	}
	value = lw_coerce(L, lw_need_scalar(L, value, sp), base->dtype, sp);
	if (!value)
		return NULL;
	Stmt *s = ir_new_stmt(L->c, ST_STORE, sp);
	s->u.store.base = base;
	s->u.store.indices = ld->u.access.indices;
	s->u.store.value = value;
	return s;
}

/* One name of an unpacking bound to an already lowered value: a
 * constant binds, a tensor names a view, a scalar declares (or assigns
 * an existing local). */
static Stmt *
bind_unpacked(Lower *L, Ast *t, Expr *v, Span sp)
{
	if (t->kind != A_NAME)
		return diag_error(L->c, PT_E_UNPACK, t->span,
				  "an unpacking target must be a name"),
		       NULL;
	Sym *old = lw_lookup_local(L, t->name);
	if (old && old->kind == SYM_ERROR)
		return NULL;
	if (old && old->kind == SYM_VAR) {
		if (old->var->kind != VK_LOCAL)
			return diag_error(L->c, PT_E_NOT_ASSIGNABLE, t->span,
					  "cannot assign to '%s'", t->name),
			       NULL;
		Expr *e = lw_coerce(L, lw_need_scalar(L, v, sp), old->var->dtype,
				    sp);
		if (!e)
			return NULL;
		Stmt *st = ir_new_stmt(L->c, ST_ASSIGN, sp);
		st->u.var.var = old->var;
		st->u.var.value = e;
		return st;
	}
	if (old && old->kind != SYM_CONST && old->kind != SYM_LAYOUT)
		return diag_error(L->c, PT_E_REDEFINED, t->span,
				  "'%s' is already defined", t->name),
		       NULL;
	if (v->type == ET_TENSOR)
		return def_buffer(L, view_buffer(L, t->name, v, sp), sp);
	if ((v->type == ET_TUPLE || v->type == ET_STR) && lw_is_const_value(v)) {
		lw_bind(L, t->name, SYM_CONST)->cval = v;
		return NULL;
	}
	if (!lw_need_scalar(L, v, sp))
		return NULL;
	lw_settle(v);
	return declare_var(L, t->name, v->dtype, v, sp);
}

/* a, b = x, y (or a tuple constant): every value is computed before any
 * name is bound, as in Python; a scalar that an existing local would
 * receive goes through a hidden local first (so a, b = b, a swaps). */
static Stmt *
lower_unpack(Lower *L, Ast *s)
{
	Ast *t = s->a;
	Expr *v = lower_expr(L, s->b);
	if (!v)
		goto poison;
	if (v->type != ET_TUPLE || v->u.tuple.n != t->list.n) {
		diag_error(L->c, PT_E_UNPACK, s->b->span,
			   "cannot unpack %s into %zu names",
			   v->type == ET_TUPLE ? "a tuple of another length"
					       : "a value that is not a tuple",
			   t->list.n);
		goto poison;
	}
	/* fresh names cannot be read by the values (they are unbound
	 * there), so only an existing local needs the hidden copies */
	bool rebinds = false;
	for (size_t i = 0; i < t->list.n; i++) {
		Ast *n = t->list.v[i];
		Sym *o = n->kind == A_NAME ? lw_lookup_local(L, n->name) : NULL;
		rebinds |= o && o->kind == SYM_VAR;
	}
	Expr **vals = NEWN(&L->c->arena, Expr *, t->list.n);
	for (size_t i = 0; i < t->list.n; i++) {
		Expr *x = v->u.tuple.v[i];
		vals[i] = x;
		if (!rebinds || !L->cur || x->type != ET_SCALAR ||
		    lw_is_const_value(x))
			continue;
		lw_settle(x);
		const char *tmp = arena_printf(&L->c->arena, "_unpack%d",
					       L->next_tmp++);
		Stmt *d = declare_var(L, tmp, x->dtype, x, s->span);
		vec_push(&L->c->arena, L->cur, d);
		Expr *r = ir_new_expr(L->c, EX_VAR, ET_SCALAR, x->dtype, x->span);
		r->u.var = d->u.var.var;
		vals[i] = r;
	}
	for (size_t i = 0; i < t->list.n; i++)
		emit(L, L->cur, bind_unpacked(L, t->list.v[i], vals[i], s->span));
	return NULL;
poison:
	for (size_t i = 0; i < t->list.n; i++)
		if (t->list.v[i]->kind == A_NAME)
			lw_poison(L, t->list.v[i]->name);
	return NULL;
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
	if (t->kind == A_TUPLE || t->kind == A_LIST)
		return lower_unpack(L, s);
	diag_error(L->c, PT_E_UNSUPPORTED, t->span,
		   "cannot assign to this target");
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
	/* x: T.let = value is TIRx's immutable binding: here a binding
	 * (x = value) of a name not defined before */
	if (lw_path_is(lw_ast_path(L, s->b), "let")) {
		Sym *old = lw_lookup_local(L, t->name);
		if (!s->c || (old && old->kind != SYM_ERROR))
			return diag_error(L->c, s->c ? PT_E_REDEFINED
						     : PT_E_MISSING_ARG,
					  t->span, s->c ? "'%s' is already defined"
							: "T.let needs a value",
					  t->name),
			       NULL;
		return assign_name(L, t, s->c, s->span);
	}
	DType dt;
	if (!lw_ast_dtype(L, s->b, &dt))
		return lw_poison(L, t->name), NULL;
	Sym *old = lw_lookup_local(L, t->name);
	if (old && old->kind != SYM_ERROR) {
		diag_error(L->c, PT_E_REDEFINED, t->span,
			   "'%s' is already defined", t->name);
		return NULL;
	}
	Expr *init = NULL;
	if (s->c && lw_is_ptx_call(L, s->c)) {
		Stmt *st = lw_ptx_into(L, s->c, t->name, NULL, dt, NULL);
		return st ? st : (lw_poison(L, t->name), NULL);
	}
	if (s->c) {
		init = lower_expr(L, s->c);
		init = lw_coerce(L, lw_need_scalar(L, init, s->c->span), dt,
			      s->c->span);
		if (!init)
			return lw_poison(L, t->name), NULL;
	}
	return declare_var(L, t->name, dt, init, s->span);
}

static Stmt *
lower_augassign(Lower *L, Ast *s)
{
	BinOp op;
	if (!lw_binop_of(s->op, &op) || op >= BIN_LT) {
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
	Expr *e = v ? lw_make_binary(L, op, cur, v, s->span) : NULL;
	if (!e)
		return NULL;
	if (t->kind == A_SUBSCRIPT)
		return lower_store(L, t, e, s->span);
	Sym *sym = lw_lookup(L, t->name);
	if (sym->kind != SYM_VAR || sym->var->kind != VK_LOCAL) {
		diag_error(L->c, PT_E_NOT_ASSIGNABLE, t->span,
			   "cannot assign to '%s'", t->name);
		return NULL;
	}
	e = lw_coerce(L, e, sym->var->dtype, s->span);
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
	if (lw_path_is(lw_call_path(L, a), "evaluate")) {
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
	/* a TIRx helper that issued its instruction already and returned
	 * the value (T.cuda.atomic_add as a statement): nothing is left */
	if (e->kind == EX_VAR)
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
	/* if T.constexpr(c): only the branch c picks exists (TIRx drops
	 * the other at parse time, so it may hold what would not compile) */
	if (s->a->kind == A_CALL &&
	    lw_path_is(lw_ast_path(L, s->a->a), "constexpr")) {
		Expr *k = lw_need_bool(L, lower_expr(L, s->a), s->a->span);
		if (!k)
			return NULL;
		lower_block(L, k->u.ival ? &s->body : &s->orelse, L->cur);
		return NULL;
	}
	Expr *c = lw_need_bool(L, lower_expr(L, s->a), s->a->span);
	Stmt *st = ir_new_stmt(L->c, ST_IF, s->span);
	st->u.cond.cond = c;
	lower_block(L, &s->body, &st->u.cond.then);
	lower_block(L, &s->orelse, &st->u.cond.els);
	return c ? st : NULL;
}

static Stmt *
lower_while(Lower *L, Ast *s)
{
	/* the condition runs every iteration: nothing may be put before it */
	Block *cur = L->cur;
	L->cur = NULL;
	Expr *c = lw_need_bool(L, lower_expr(L, s->a), s->a->span);
	L->cur = cur;
	Stmt *st = ir_new_stmt(L->c, ST_WHILE, s->span);
	st->u.whil.cond = c;
	L->loops++;
	lower_block(L, &s->body, &st->u.whil.body);
	L->loops--;
	return c ? st : NULL;
}

/* T.serial(..., dtype="uint32"): the loop variable's integer dtype; the
 * bounds and step are coerced to it (literals must fit it). */
static bool
loop_dtype(Lower *L, Ast *dt, Expr **b, Expr **e, Expr **s)
{
	DType t;
	if (!dt)
		return true;
	if (!lw_ast_dtype(L, dt, &t))
		return false;
	if (!lw_is_intlike(t) || t == DT_BOOL || dtype_bits(t) < 8)
		return diag_error(L->c, PT_E_TYPE_MISMATCH, dt->span,
				  "a loop variable is an integer, not %s",
				  dtype_name(t));
	return (*b = lw_coerce(L, *b, t, dt->span)) &&
	       (*e = lw_coerce(L, *e, t, dt->span)) &&
	       (*s = lw_coerce(L, *s, t, dt->span));
}

static bool
loop_range(Lower *L, Ast *it, Stmt *st)
{
	const char *p = lw_ast_path(L, it->a);
	bool is_range = it->a->kind == A_NAME && !strcmp(it->a->name, "range") &&
			!lw_lookup(L, "range");
	bool serial = lw_path_is(p, "serial");
	/* T.vectorized: the same iterations; ptxtile unrolls it (the
	 * vector instructions are the tile calls' business) */
	if (lw_path_is(p, "unroll") || lw_path_is(p, "vectorized"))
		st->u.loop.kind = FOR_UNROLL;
	else if (!is_range && !serial)
		return diag_error(L->c, PT_E_UNSUPPORTED, it->span,
				  "a for loop iterates over range(), "
				  "T.serial(), T.unroll() or T.vectorized()");
	Args a;
	if (!lw_split_args(L, it, &a))
		return false;
	static const char *const kw_none[] = {NULL};
	static const char *const kw_step[] = {"step", NULL};
	static const char *const kw_serial[] = {"step", "unroll", "dtype",
						NULL};
	const char *const *kws = is_range ? kw_none : serial ? kw_serial : kw_step;
	Ast *step = lw_kwarg(&a, "step");
	if (!lw_check_keywords(L, &a, kws, is_range ? "range" : p) ||
	    !lw_check_count(L, &a, 1, step ? 2 : 3, it->span,
			    is_range ? "range" : p))
		return false;
	if (step && a.pos.n < 2) /* T.serial(8, step=2) has no stop */
		return diag_error(L->c, PT_E_ARG_COUNT, step->span,
				  "step= needs a start and a stop");
	if (step) {
		Arg sa = {step, NULL, step->span};
		vec_push(&L->c->arena, &a.pos, sa);
	}
	/* T.serial(..., unroll=True): unrolled; False or an unroll factor
	 * (a hint ptxas may follow on its own) leave it a loop */
	Ast *un = lw_kwarg(&a, "unroll");
	if (un) {
		Expr *u = lower_expr(L, un);
		if (!u || (u->kind != EX_BOOL && u->kind != EX_INT))
			return u ? diag_error(L->c, PT_E_NOT_CONST, un->span,
					      "unroll= is True, False or a "
					      "constant factor")
				 : false;
		if (u->kind == EX_BOOL && u->u.ival)
			st->u.loop.kind = FOR_UNROLL;
	}
	Expr *v[3] = {0};
	for (size_t i = 0; i < a.pos.n; i++) {
		v[i] = lw_need_scalar(L, lw_arg_expr(L, &a.pos.v[i]), a.pos.v[i].span);
		if (!v[i])
			return false;
	}
	Expr *b = a.pos.n > 1 ? v[0] : ir_int(L->c, 0, DT_NONE, it->span);
	Expr *e = a.pos.n > 1 ? v[1] : v[0];
	Expr *s = a.pos.n > 2 ? v[2] : ir_int(L->c, 1, DT_NONE, it->span);
	if (!loop_dtype(L, lw_kwarg(&a, "dtype"), &b, &e, &s) ||
	    !lw_unify(L, &b, &e, it->span) || !lw_unify(L, &b, &s, it->span) ||
	    !lw_unify(L, &e, &s, it->span))
		return false;
	lw_settle(b), lw_settle(e), lw_settle(s);
	if (!lw_need_int(L, b, it->span) || !lw_need_int(L, e, it->span) ||
	    !lw_need_int(L, s, it->span))
		return false;
	st->u.loop.begin = b;
	st->u.loop.end = e;
	st->u.loop.step = s;
	return true;
}

/* Binds the target of a loop over a sequence to one element: a name,
 * or a tuple of names unpacking an element tuple of that length. */
static bool
bind_seq_target(Lower *L, Ast *t, Expr *v)
{
	if (t->kind == A_TUPLE) {
		if (v->type != ET_TUPLE || v->u.tuple.n != t->list.n)
			return diag_error(L->c, PT_E_UNSUPPORTED, t->span,
					  "cannot unpack %s into %zu names",
					  v->type == ET_TUPLE ? "a tuple of "
								"another length"
							      : "a scalar",
					  t->list.n);
		for (size_t i = 0; i < t->list.n; i++)
			if (!bind_seq_target(L, t->list.v[i], v->u.tuple.v[i]))
				return false;
		return true;
	}
	if (t->kind != A_NAME)
		return diag_error(L->c, PT_E_UNSUPPORTED, t->span,
				  "the loop target must be names");
	Sym *old = lw_lookup_local(L, t->name);
	if (old && old->kind != SYM_CONST && old->kind != SYM_ERROR)
		return diag_error(L->c, PT_E_REDEFINED, t->span,
				  "'%s' is already defined (a loop over a "
				  "constant sequence binds a constant)",
				  t->name);
	lw_bind(L, t->name, SYM_CONST)->cval = v;
	return true;
}

/* for s in (16, 8, 4, 2, 1): the body once per element, in order, with
 * the target a constant (so 16 >> i and the like fold). */
static Stmt *
lower_for_seq(Lower *L, Ast *s, Expr *seq)
{
	if (!lw_is_const_value(seq)) {
		diag_error(L->c, PT_E_UNSUPPORTED, s->b->span,
			   "a for loop over a sequence needs a constant tuple "
			   "or list");
		return NULL;
	}
	int saved = L->seq_loop;
	L->loops++;
	L->seq_loop = L->loops;
	/* an error in one copy of the body would repeat in the next */
	size_t errors = L->c->nerrors;
	for (size_t i = 0; i < seq->u.tuple.n && L->c->nerrors == errors; i++) {
		if (!bind_seq_target(L, s->a, seq->u.tuple.v[i]))
			break;
		lower_block(L, &s->body, L->cur);
	}
	L->seq_loop = saved;
	L->loops--;
	return NULL;
}

static bool
is_sequence(Lower *L, Ast *a)
{
	if (a->kind == A_TUPLE || a->kind == A_LIST)
		return true;
	if (a->kind != A_NAME)
		return false;
	Sym *sym = lw_lookup(L, a->name);
	return sym && sym->kind == SYM_CONST && sym->cval->type == ET_TUPLE;
}

/* for i, j in T.grid(a, b): one serial loop per extent, outermost
 * first (TIRx's nest), the body in the innermost. */
static Stmt *
lower_for_grid(Lower *L, Ast *s)
{
	Args a;
	if (!lw_split_args(L, s->b, &a) ||
	    !lw_check_keywords(L, &a, (const char *const[]){NULL}, "T.grid"))
		return NULL;
	size_t n = s->a->kind == A_TUPLE ? s->a->list.n : 1;
	if (a.pos.n == 0 || a.pos.n != n)
		return diag_error(L->c, PT_E_UNPACK, s->a->span,
				  "T.grid with %zu extents needs as many loop "
				  "names, %zu given", a.pos.n, n),
		       NULL;
	Stmt *outer = NULL;
	Block *body = NULL;
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		Ast *t = s->a->kind == A_TUPLE ? s->a->list.v[i] : s->a;
		if (t->kind != A_NAME)
			return diag_error(L->c, PT_E_UNPACK, t->span,
					  "a T.grid loop target must be "
					  "names"),
			       NULL;
		Expr *e = lw_need_scalar(L, lw_arg_expr(L, &a.pos.v[i]),
					 a.pos.v[i].span);
		Expr *b = ir_int(L->c, 0, DT_NONE, s->b->span);
		Expr *st1 = ir_int(L->c, 1, DT_NONE, s->b->span);
		if (!e || !lw_unify(L, &b, &e, a.pos.v[i].span) ||
		    !lw_unify(L, &b, &st1, a.pos.v[i].span)) {
			ok = false;
			e = b = st1 = ir_int(L->c, 0, DT_INT32, s->b->span);
		}
		lw_settle(b), lw_settle(e), lw_settle(st1);
		if (ok && !lw_need_int(L, e, a.pos.v[i].span))
			ok = false;
		Stmt *st = ir_new_stmt(L->c, ST_FOR, s->span);
		st->u.loop.begin = b;
		st->u.loop.end = e;
		st->u.loop.step = st1;
		Var *v = lw_new_var(L, t->name, b->dtype, VK_LOOP, t->span);
		st->u.loop.var = v;
		lw_bind(L, v->name, ok ? SYM_VAR : SYM_ERROR)->var = v;
		if (body)
			vec_push(&L->c->arena, body, st);
		else
			outer = st;
		body = &st->u.loop.body;
	}
	L->loops++;
	lower_block(L, &s->body, body);
	L->loops--;
	return ok ? outer : NULL;
}

static Stmt *
lower_for(Lower *L, Ast *s)
{
	if (s->b->kind == A_CALL && lw_path_is(lw_ast_path(L, s->b->a), "grid"))
		return lower_for_grid(L, s);
	if (is_sequence(L, s->b)) {
		Expr *seq = L->cur ? lower_expr(L, s->b) : NULL;
		return seq ? lower_for_seq(L, s, seq) : NULL;
	}
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
	Var *v = lw_new_var(L, s->a->name, ok ? st->u.loop.begin->dtype : DT_INT32,
			 VK_LOOP, s->a->span);
	st->u.loop.var = v;
	lw_bind(L, v->name, ok ? SYM_VAR : SYM_ERROR)->var = v;
	L->loops++;
	lower_block(L, &s->body, &st->u.loop.body);
	L->loops--;
	return ok ? st : NULL;
}

static Stmt *
lower_return(Lower *L, Ast *s)
{
	if (L->fn->is_kernel) {
		/* TIRx's early exit: `return` or `return 0`, a PTX ret */
		Expr *z = s->a ? lower_expr(L, s->a) : NULL;
		if (s->a && !z)
			return NULL;
		if (z && (z->kind != EX_INT || z->u.ival != 0)) {
			diag_error(L->c, PT_E_BAD_RETURN, s->a->span,
				   "a kernel returns nothing: write return "
				   "(or TIRx's return 0)");
			return NULL;
		}
		return ir_new_stmt(L->c, ST_RETURN, s->span);
	}
	if (!s->a) {
		diag_error(L->c, PT_E_SCALAR_FN, s->span,
			   "a scalar function returns a value");
		return NULL;
	}
	Expr *e = lw_need_scalar(L, lower_expr(L, s->a), s->a->span);
	if (!e)
		return NULL;
	if (L->fn->ret == DT_NONE) {
		lw_settle(e);
		L->fn->ret = e->dtype;
	}
	e = lw_coerce(L, e, L->fn->ret, s->a->span);
	if (!e)
		return NULL;
	Stmt *st = ir_new_stmt(L->c, ST_RETURN, s->span);
	st->u.value = e;
	return st;
}

/* text with every '%' doubled, for a printf format */
static void
put_literal(StrBuf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		if (s[i] == '%')
			sb_putc(b, '%');
		sb_putc(b, s[i]);
	}
}

/* assert cond[, "message"]: a thread whose cond is false prints
 * "FILE:LINE: assertion failed: COND[: message]" (the source text of
 * cond) with T.cuda.printf and traps with
 * T.cuda.trap_when_assert_failed(False); the IR is that if statement, so
 * print and JSON show it as such. */
static Stmt *
lower_assert(Lower *L, Ast *s)
{
	Expr *c = lw_need_bool(L, lower_expr(L, s->a), s->a->span);
	const char *msg = s->b ? lw_const_str(L, s->b, "an assert message") : "";
	if (!c || !msg)
		return NULL;
	Ctx *cx = L->c;
	int line, col;
	ctx_line_col(cx, s->span.file, s->span.lo, &line, &col);
	const SourceFile *f = s->span.file && s->span.file <= cx->files.n
				      ? &cx->files.v[s->span.file - 1]
				      : NULL;
	StrBuf b;
	sb_init(&b, &cx->arena);
	put_literal(&b, f ? f->name : "<script>", SIZE_MAX);
	sb_printf(&b, ":%d: assertion failed: ", line);
	if (f && s->a->span.hi <= f->len)
		put_literal(&b, f->text + s->a->span.lo,
			    s->a->span.hi - s->a->span.lo);
	if (*msg) {
		sb_puts(&b, ": ");
		put_literal(&b, msg, SIZE_MAX);
	}
	sb_putc(&b, '\n');
	Expr *fmt = ir_new_expr(cx, EX_STR, ET_STR, DT_NONE, s->span);
	fmt->u.str = sb_cstr(&b);
	Expr *pf = ir_new_expr(cx, EX_BUILTIN, ET_VOID, DT_NONE, s->span);
	pf->u.call.id = BI_PRINTF;
	vec_push(&cx->arena, &pf->u.call.args, fmt);
	Expr *trap = ir_new_expr(cx, EX_BUILTIN, ET_VOID, DT_NONE, s->span);
	trap->u.call.id = BI_TRAP_WHEN_ASSERT_FAILED;
	vec_push(&cx->arena, &trap->u.call.args, ir_bool(cx, false, s->span));
	Stmt *st = ir_new_stmt(cx, ST_IF, s->span);
	st->u.cond.cond = lw_make_unary(L, UN_LNOT, c, s->a->span);
	Stmt *p = ir_new_stmt(cx, ST_EVAL, s->span);
	p->u.value = pf;
	Stmt *t = ir_new_stmt(cx, ST_EVAL, s->span);
	t->u.value = trap;
	vec_push(&cx->arena, &st->u.cond.then, p);
	vec_push(&cx->arena, &st->u.cond.then, t);
	return st->u.cond.cond ? st : NULL;
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
		if (L->seq_loop == L->loops) {
			diag_error(L->c, PT_E_SEQ_LOOP_JUMP, s->span,
				   "'%s' in a loop over a constant sequence, "
				   "whose body is repeated per element: use "
				   "range() or if/else", s->kind == S_BREAK
							       ? "break"
							       : "continue");
			return NULL;
		}
		return ir_new_stmt(L->c, s->kind == S_BREAK ? ST_BREAK
							    : ST_CONTINUE,
				   s->span);
	case S_RETURN: return lower_return(L, s);
	case S_ASSERT: return lower_assert(L, s);
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

void
lower_block(Lower *L, AstVec *in, Block *out)
{
	Block *cur = L->cur;
	L->cur = out;
	for (size_t i = 0; i < in->n; i++)
		emit(L, out, lower_stmt(L, in->v[i]));
	L->cur = cur;
}
