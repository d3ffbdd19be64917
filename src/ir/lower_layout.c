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

/* A layout argument: "default" (NULL), a TileLayout/ComposeLayout call,
 * or a name bound to a layout. */
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
	return diag_error(L->c, PT_E_BAD_LAYOUT, a->span,
			  "expected \"default\", T.TileLayout(...) or "
			  "T.ComposeLayout(...)");
}
