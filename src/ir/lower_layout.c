/* lower_layout.c - AST -> IR: TileLayout / ComposeLayout expressions.  Part
 * of the lowering pass; lower.c describes the language it accepts, lower.h
 * what the parts share.
 */
#include "ir/lower.h"

/* ---- layouts ---- */

static bool
ast_axis(Lower *L, Ast *a, Axis *out)
{
	const char *p = lw_ast_path(L, a);
	const char *name = NULL;
	if (p && !strncmp(p, "Axis.", 5))
		name = p + 5;
	else if (p && !strncmp(p, "cuda.Axis.", 10)) /* TIRx's spelling */
		name = p + 10;
	else if (a->kind == A_STR)
		name = a->str;
	if (!name) {
		if (a->kind == A_NAME && !lw_lookup(L, a->name))
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
		return lw_const_int(L, a->a, v) && ast_axis(L, a->b, ax);
	}
	*ax = AX_M;
	return lw_const_int(L, a, v);
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
		if (!lw_const_int(L, ext[i], &it.extent))
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
		const char *p = t->kind == A_SUBSCRIPT ? lw_ast_path(L, t->a) : NULL;
		if (lw_path_is(p, "S") || lw_path_is(p, "R")) {
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
	if (!lw_split_args(L, call, &a))
		return false;
	static const char *const kws[] = {NULL};
	if (!lw_check_keywords(L, &a, kws, "T.ComposeLayout") ||
	    !lw_check_count(L, &a, 4, 4, call->span, "T.ComposeLayout"))
		return false;
	int64_t v[3];
	for (int i = 0; i < 3; i++) {
		if (!a.pos.v[i].ast || !lw_const_int(L, a.pos.v[i].ast, &v[i]))
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

/* ---- named fragment layouts (layout/fragments.c) ---- */

/* A constant tuple (or one int) of at most max positive ints. */
static bool
int_tuple(Lower *L, Ast *a, int64_t *v, int *n, int max, const char *what)
{
	*n = 0;
	if (!a)
		return true;
	Expr *e = lower_expr(L, a);
	if (!e)
		return false;
	if (e->kind == EX_INT) {
		v[(*n)++] = e->u.ival;
		return true;
	}
	if (e->kind != EX_TUPLE || e->u.tuple.n > (size_t)max)
		return diag_error(L->c, PT_E_FRAGMENT, a->span,
				  "%s= is a constant int or a tuple of at most "
				  "%d ints", what, max);
	for (size_t i = 0; i < e->u.tuple.n; i++) {
		if (e->u.tuple.v[i]->kind != EX_INT)
			return diag_error(L->c, PT_E_FRAGMENT, a->span,
					  "%s= holds constant ints", what);
		v[(*n)++] = e->u.tuple.v[i]->u.ival;
	}
	return true;
}

static bool
frag_dtype(Lower *L, Arg *arg, Ast *kw, FragReq *r)
{
	DType t;
	if (kw ? !lw_ast_dtype(L, kw, &t) : !lw_arg_dtype(L, arg, &t))
		return false;
	r->dtype = dtype_name(t);
	r->bits = dtype_bits(t);
	return true;
}

/* T.cuda.mma_sync_layout(operand, shape, dtype, repeat=, warps=),
 * T.cuda.wgmma_layout(operand, shape, dtype, repeat=),
 * T.cuda.ldmatrix_layout(num, trans=False, dtype="uint32", repeat=,
 * warps=) (stmatrix_layout: the same registers) */
/* T.cuda.tmem_datapath_layout(datapath, rows, cols, sub_slab=0): TIRx's
 * tmem_datapath_layout */
static bool
tmem_layout(Lower *L, Ast *call, Args *a, Layout **out)
{
	const char *fn = "T.cuda.tmem_datapath_layout";
	static const char *const kws[] = {"sub_slab", NULL};
	if (!lw_check_keywords(L, a, kws, fn) ||
	    !lw_check_count(L, a, 3, 3, call->span, fn))
		return false;
	FragReq r = {0};
	r.kind = FRAG_TMEM;
	const char *d = a->pos.v[0].ast
				? lw_const_str(L, a->pos.v[0].ast, "the datapath")
				: NULL;
	int64_t sub = 0;
	Ast *sk = lw_kwarg(a, "sub_slab");
	if (!d || !a->pos.v[1].ast || !a->pos.v[2].ast ||
	    !lw_const_int(L, a->pos.v[1].ast, &r.rows) ||
	    !lw_const_int(L, a->pos.v[2].ast, &r.cols) ||
	    (sk && !lw_const_int(L, sk, &sub)))
		return false;
	if (sub != 0 && sub != 1)
		return diag_error(L->c, PT_E_FRAGMENT, sk->span,
				  "sub_slab= is 0 or 1");
	r.datapath = d[0] && !d[1] ? d[0] : '?';
	r.sub_slab = (int)sub;
	const char *why = frag_layout(&L->c->arena, &r, out);
	if (why)
		return diag_error(L->c, PT_E_FRAGMENT, call->span, "%s: %s",
				  fn, why);
	return true;
}

static bool
fragment_layout(Lower *L, Ast *call, const char *p, Layout **out)
{
	Args a;
	if (!lw_split_args(L, call, &a))
		return false;
	if (!strcmp(p, "cuda.tmem_datapath_layout"))
		return tmem_layout(L, call, &a, out);
	FragReq r = {0};
	bool ld = !strcmp(p, "cuda.ldmatrix_layout") ||
		  !strcmp(p, "cuda.stmatrix_layout");
	const char *fn = arena_printf(&L->c->arena, "T.%s", p);
	static const char *const kw_mma[] = {"repeat", "order", "warps", NULL};
	static const char *const kw_ld[] = {"trans", "dtype", "repeat",
					    "order", "warps", NULL};
	if (!lw_check_keywords(L, &a, ld ? kw_ld : kw_mma, fn) ||
	    !lw_check_count(L, &a, ld ? 1 : 3, ld ? 1 : 3, call->span, fn))
		return false;
	for (size_t i = 0; i < a.pos.n; i++)
		if (!a.pos.v[i].ast)
			return diag_error(L->c, PT_E_FRAGMENT, a.pos.v[i].span,
					  "%s takes its arguments written out",
					  fn);
	if (ld) {
		int64_t num;
		r.kind = FRAG_LDMATRIX;
		if (!lw_const_int(L, a.pos.v[0].ast, &num))
			return false;
		r.num = num >= 0 && num <= 64 ? (int)num : 0;
		Ast *t = lw_kwarg(&a, "trans");
		Expr *tv = t ? lower_expr(L, t) : NULL;
		if (t && (!tv || tv->kind != EX_BOOL))
			return diag_error(L->c, PT_E_FRAGMENT, t->span,
					  "trans= is True or False");
		r.trans = tv && tv->u.ival;
		Ast *d = lw_kwarg(&a, "dtype");
		r.bits = 32;
		if (d && !frag_dtype(L, NULL, d, &r))
			return false;
	} else {
		r.kind = strcmp(p, "cuda.wgmma_layout") ? FRAG_MMA_SYNC
							: FRAG_WGMMA;
		const char *op = lw_const_str(L, a.pos.v[0].ast, "the operand");
		r.shape = lw_const_str(L, a.pos.v[1].ast, "the shape");
		if (!op || !r.shape || !frag_dtype(L, &a.pos.v[2], NULL, &r))
			return false;
		r.operand = op[0] && !op[1] ? op[0] : '?';
	}
	if (!int_tuple(L, lw_kwarg(&a, "repeat"), r.repeat, &r.nrepeat, 4,
		       "repeat") ||
	    !int_tuple(L, lw_kwarg(&a, "order"), r.order, &r.norder, 4,
		       "order") ||
	    !int_tuple(L, lw_kwarg(&a, "warps"), r.warps, &r.nwarps, 3,
		       "warps"))
		return false;
	const char *why = frag_layout(&L->c->arena, &r, out);
	if (why)
		return diag_error(L->c, PT_E_FRAGMENT, call->span, "%s: %s",
				  fn, why);
	return true;
}

/* A layout argument: "default" (NULL), a TileLayout/ComposeLayout call,
 * a named fragment layout, or a name bound to a layout. */
bool
lower_layout(Lower *L, Ast *a, Layout **out)
{
	*out = NULL;
	if (a->kind == A_STR && !strcmp(a->str, "default"))
		return true;
	if (a->kind == A_NAME) {
		Sym *s = lw_lookup(L, a->name);
		if (s && s->kind == SYM_LAYOUT) {
			*out = s->layout;
			return true;
		}
		if (s && s->kind == SYM_ERROR)
			return false;
	}
	const char *p = lw_call_path(L, a);
	if (lw_path_is(p, "TileLayout")) {
		if (a->list.n != 1 || a->list.v[0]->kind == A_KWARG ||
		    a->list.v[0]->kind == A_STAR)
			return diag_error(L->c, PT_E_ARG_COUNT, a->span,
					  "TileLayout takes one layout spec");
		return tile_layout(L, a->list.v[0], out);
	}
	if (lw_path_is(p, "ComposeLayout"))
		return compose_layout(L, a, out);
	if (p && lw_is_layout_path(p))
		return fragment_layout(L, a, p, out);
	return diag_error(L->c, PT_E_BAD_LAYOUT, a->span,
			  "expected \"default\", T.TileLayout(...) or "
			  "T.ComposeLayout(...)");
}
