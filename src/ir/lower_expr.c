/* lower_expr.c - AST -> IR: tensors, shapes, tensor methods and expressions.
 * Part of the lowering pass; lower.c describes the language it accepts,
 * lower.h what the parts share.
 */
#include "ir/lower.h"

/* ---- tensors ---- */

int
lw_tensor_rank(const Expr *e)
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
		return lw_tensor_rank(e->u.view.base);
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
		return ir_int(L->c, lw_wrap_int((int64_t)((uint64_t)y - (uint64_t)x),
					     end->dtype), end->dtype, sp);
	Expr *e = ir_new_expr(L->c, EX_BINARY, ET_SCALAR, end->dtype, sp);
	e->u.op.op = BIN_SUB;
	e->u.op.a = end;
	e->u.op.b = begin;
	return e;
}

/* Shape of a tensor expression (rank lw_tensor_rank(e)). */
Expr **
lw_tensor_shape(Lower *L, const Expr *e)
{
	int n = lw_tensor_rank(e);
	Expr **s = NEWN(&L->c->arena, Expr *, n > 0 ? n : 1);
	switch (e->kind) {
	case EX_BUF:
		for (int i = 0; i < n; i++)
			s[i] = e->u.buf->shape[i];
		break;
	case EX_REGION: {
		Expr **base = lw_tensor_shape(L, e->u.region.base);
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
		Expr **base = lw_tensor_shape(L, e->u.view.base);
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

Expr *
lw_need_tensor(Lower *L, Expr *e, Span sp)
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
	return lw_need_int(L, lower_expr(L, a), a->span);
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
Expr *
lw_make_subscript(Lower *L, Expr *base, AstVec *items, bool sub, Span sp)
{
	if (!lw_need_tensor(L, base, sp))
		return NULL;
	int rank = lw_tensor_rank(base);
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
	const char *p = lw_ast_path(L, obj);
	if (lw_path_is(p, "ptx")) {
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
	return lw_make_subscript(L, base, &a->list, sub, a->span);
}

/* ---- shapes ---- */

/* A shape written as an int, an expression or a tuple/list of them. */
bool
lower_shape(Lower *L, Arg *arg, ExprVec *out)
{
	Expr *e = lw_arg_expr(L, arg);
	if (!e)
		return false;
	if (e->kind != EX_TUPLE) {
		if (!lw_need_int(L, e, arg->span))
			return false;
		vec_push(&L->c->arena, out, e);
		return true;
	}
	for (size_t i = 0; i < e->u.tuple.n; i++) {
		Expr *d = lw_need_int(L, e->u.tuple.v[i], arg->span);
		if (!d)
			return false;
		vec_push(&L->c->arena, out, d);
	}
	return true;
}

void
lw_set_shape(Buffer *b, ExprVec *shape)
{
	b->ndim = (int)shape->n;
	b->shape = shape->v;
}

/* ---- tensor methods ---- */

static Expr *
lower_view(Lower *L, Expr *base, Ast *call)
{
	Args a;
	if (!lw_split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {"layout", NULL};
	if (!lw_check_keywords(L, &a, kws, "view"))
		return NULL;
	if (a.pos.n == 1 && !lw_kwarg(&a, "layout")) {
		Arg *x = &a.pos.v[0];
		Sym *s = x->ast && x->ast->kind == A_NAME
				 ? lw_lookup(L, x->ast->name) : NULL;
		bool is_dtype = (x->ast && (x->ast->kind == A_STR ||
					    (lw_ast_path(L, x->ast) &&
					     *lw_ast_path(L, x->ast)))) ||
				(x->val && x->val->kind == EX_STR) ||
				(s && s->kind == SYM_CONST &&
				 s->cval->kind == EX_STR);
		if (is_dtype) {
			DType t;
			if (!lw_arg_dtype(L, x, &t))
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
	Ast *lay = lw_kwarg(&a, "layout");
	if (lay && !lower_layout(L, lay, &e->u.view.layout))
		return NULL;
	return e;
}

static Expr *
lower_ptr_to(Lower *L, Expr *base, Ast *call)
{
	Args a;
	if (!lw_split_args(L, call, &a))
		return NULL;
	static const char *const kws[] = {NULL};
	if (!lw_check_keywords(L, &a, kws, "ptr_to") ||
	    !lw_check_count(L, &a, 1, 1, call->span, "ptr_to"))
		return NULL;
	Expr *idx = lw_arg_expr(L, &a.pos.v[0]);
	if (!idx)
		return NULL;
	if (idx->kind != EX_TUPLE) {
		diag_error(L->c, PT_E_TYPE_MISMATCH, a.pos.v[0].span,
			   "ptr_to takes a list of indices");
		return NULL;
	}
	if ((int)idx->u.tuple.n != lw_tensor_rank(base)) {
		diag_error(L->c, PT_E_RANK, a.pos.v[0].span,
			   "tensor of rank %d given %zu indices",
			   lw_tensor_rank(base), idx->u.tuple.n);
		return NULL;
	}
	Expr *e = ir_new_expr(L->c, EX_PTR_TO, ET_SCALAR, DT_UINT64,
			      call->span);
	e->u.access.base = base;
	for (size_t i = 0; i < idx->u.tuple.n; i++) {
		Expr *x = lw_need_int(L, idx->u.tuple.v[i], a.pos.v[0].span);
		if (!x)
			return NULL;
		vec_push(&L->c->arena, &e->u.access.indices, x);
	}
	return e;
}

/* A.data: TIRx's pointer to a tensor's first element, which is
 * A.ptr_to([0, ...]) (a uint64 address). */
static Expr *
lower_data(Lower *L, Ast *a)
{
	Expr *base = lw_need_tensor(L, lower_expr(L, a->a), a->a->span);
	if (!base)
		return NULL;
	Expr *e = ir_new_expr(L->c, EX_PTR_TO, ET_SCALAR, DT_UINT64, a->span);
	e->u.access.base = base;
	for (int i = 0; i < lw_tensor_rank(base); i++)
		vec_push(&L->c->arena, &e->u.access.indices,
			 ir_int(L->c, 0, DT_INT32, a->span));
	return e;
}

Expr *
lower_method(Lower *L, Ast *call)
{
	Ast *callee = call->a;
	const char *m = callee->name;
	if (strcmp(m, "view") && strcmp(m, "ptr_to")) {
		diag_error(L->c, PT_E_UNSUPPORTED, callee->span,
			   "method '%s' is not supported", m);
		return NULL;
	}
	Expr *base = lw_need_tensor(L, lower_expr(L, callee->a), callee->a->span);
	if (!base)
		return NULL;
	return !strcmp(m, "view") ? lower_view(L, base, call)
				  : lower_ptr_to(L, base, call);
}

/* ---- expressions ---- */

static Expr *
lower_name(Lower *L, Ast *a)
{
	Sym *s = lw_lookup(L, a->name);
	if (!s) {
		diag_error(L->c, PT_E_UNKNOWN_NAME, a->span, "unknown name '%s'",
			   a->name);
		return NULL;
	}
	switch (s->kind) {
	case SYM_CONST:
		return lw_clone_const(L, s->cval, a->span);
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
			if (!lw_expand_star(L, x, &tmp))
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
		Expr *x = lw_arg_expr(L, &tmp.pos.v[i]);
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
	if (!lw_binop_of(a->op, &op)) {
		diag_error(L->c, PT_E_UNSUPPORTED, a->span, "unsupported operator");
		return NULL;
	}
	Expr *x = lower_expr(L, a->a);
	Expr *y = x ? lower_expr(L, a->b) : NULL;
	if (!y)
		return NULL;
	/* constant strings compare at compile time (T.constexpr(TY ==
	 * "s32")); no other operator takes a string */
	if (x->kind == EX_STR && y->kind == EX_STR &&
	    (op == BIN_EQ || op == BIN_NE))
		return ir_bool(L->c, !strcmp(x->u.str, y->u.str) == (op == BIN_EQ),
			       a->span);
	return lw_make_binary(L, op, x, y, a->span);
}

/* -N for a literal N above INT64_MAX is a Python int: -2**63 is the
 * int64 minimum (a weak constant), anything below it does not fit. */
static Expr *
negate_big_literal(Lower *L, Ast *a)
{
	if (a->a->ival == (uint64_t)INT64_MAX + 1)
		return ir_int(L->c, INT64_MIN, DT_NONE, a->span);
	diag_error(L->c, PT_E_INT_OVERFLOW, a->span,
		   "constant -%llu does not fit in 64 bits",
		   (unsigned long long)a->a->ival);
	return NULL;
}

/* One f-string field folded to its text as Python's str() writes it:
 * a constant string, int or bool (floats are refused: their shortest
 * round-trip text is Python's, not C's). */
static bool
fstring_field_text(Lower *L, Ast *a, StrBuf *b)
{
	Expr *e = lower_expr(L, a);
	if (!e)
		return false;
	switch (e->kind) {
	case EX_STR:
		sb_puts(b, e->u.str);
		return true;
	case EX_BOOL:
		sb_puts(b, e->u.ival ? "True" : "False");
		return true;
	case EX_INT:
		if (e->dtype == DT_UINT64 || e->dtype == DT_B64)
			sb_printf(b, "%llu", (unsigned long long)e->u.ival);
		else
			sb_printf(b, "%lld", (long long)e->u.ival);
		return true;
	default:
		return diag_error(L->c, PT_E_FSTRING_CONST, a->span,
				  "an f-string field must be a compile-time "
				  "string, int or bool (the f-string is folded "
				  "when the script is compiled)");
	}
}

/* f"..." folded to one constant string (EX_STR). */
static Expr *
lower_fstring(Lower *L, Ast *a)
{
	StrBuf b;
	sb_init(&b, &L->c->arena);
	for (size_t i = 0; i < a->list.n; i++) {
		Ast *part = a->list.v[i];
		if (part->kind == A_STR)
			sb_puts(&b, part->str);
		else if (!fstring_field_text(L, part, &b))
			return NULL;
	}
	Expr *e = ir_new_expr(L->c, EX_STR, ET_STR, DT_NONE, a->span);
	e->u.str = sb_cstr(&b);
	return e;
}

/* `x if c else y`: a constant c picks one side, the other is not lowered
 * (Python evaluates only one); otherwise T.if_then_else(c, x, y). */
static Expr *
lower_ifexp(Lower *L, Ast *a)
{
	Expr *c = lower_expr(L, a->a);
	if (!c)
		return NULL;
	if (c->kind == EX_BOOL)
		return lower_expr(L, c->u.ival ? a->b : a->c);
	if (!lw_need_bool(L, c, a->a->span))
		return NULL;
	Expr *x = lw_need_scalar(L, lower_expr(L, a->b), a->b->span);
	Expr *y = x ? lw_need_scalar(L, lower_expr(L, a->c), a->c->span) : NULL;
	if (!y || !lw_unify(L, &x, &y, a->span))
		return NULL;
	lw_settle(x);
	lw_settle(y);
	Expr *e = ir_new_expr(L->c, EX_SELECT, ET_SCALAR, x->dtype, a->span);
	e->u.op.a = c;
	e->u.op.b = x;
	e->u.op.c = y;
	return e;
}

Expr *
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
		if (a->op == TK_MINUS && a->a->kind == A_INT &&
		    a->a->ival > (uint64_t)INT64_MAX)
			return negate_big_literal(L, a);
		Expr *x = lower_expr(L, a->a);
		if (!x)
			return NULL;
		if (a->op == TK_PLUS)
			return lw_need_scalar(L, x, a->span);
		return lw_make_unary(L, a->op == TK_MINUS ? UN_NEG : UN_BNOT, x,
				  a->span);
	}
	case A_NOT: {
		Expr *x = lower_expr(L, a->a);
		return x ? lw_make_unary(L, UN_LNOT, x, a->span) : NULL;
	}
	case A_AND:
	case A_OR: {
		Expr *x = lower_expr(L, a->a);
		Expr *y = x ? lower_expr(L, a->b) : NULL;
		if (!lw_need_bool(L, x, a->a->span) || !lw_need_bool(L, y, a->b->span))
			return NULL;
		return lw_make_binary(L, a->kind == A_AND ? BIN_LAND : BIN_LOR, x,
				   y, a->span);
	}
	case A_BINARY:
	case A_COMPARE:
		return lower_binary_ast(L, a);
	case A_CALL:
		if (lw_is_ptx_call(L, a))
			return lw_ptx_value(L, a);
		return lower_call(L, a);
	case A_SUBSCRIPT:
		return lower_subscript(L, a);
	case A_ATTR: {
		const char *p = lw_ast_path(L, a);
		if (!p && !strcmp(a->name, "data"))
			return lower_data(L, a);
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
	case A_FSTRING:
		return lower_fstring(L, a);
	case A_IFEXP:
		return lower_ifexp(L, a);
	case A_LAMBDA:
		diag_error(L->c, PT_E_LAMBDA, a->span,
			   "a lambda is only valid as the predicate= of "
			   "T.cuda.wait_until");
		return NULL;
	default:
		diag_error(L->c, PT_E_UNSUPPORTED, a->span,
			   "this expression is not supported here");
		return NULL;
	}
}
