/* lower_sym.c - AST -> IR: symbols (scopes, lookup, binding) and the T.*
 * builtin paths.  Part of the lowering pass; lower.c describes the language
 * it accepts, lower.h what the parts share.
 */
#include "ir/lower.h"

/* ---- symbols ---- */

Sym *
lw_lookup(Lower *L, const char *name)
{
	for (size_t i = L->syms.n; i-- > 0;)
		if (!strcmp(L->syms.v[i].name, name))
			return &L->syms.v[i];
	return NULL;
}

/* The symbol `name` when defined in the current function. */
Sym *
lw_lookup_local(Lower *L, const char *name)
{
	for (size_t i = L->syms.n; i-- > L->func_base;)
		if (!strcmp(L->syms.v[i].name, name))
			return &L->syms.v[i];
	return NULL;
}

Sym *
lw_bind(Lower *L, const char *name, SymKind k)
{
	Sym s = {0};
	s.name = name;
	s.kind = k;
	vec_push(&L->c->arena, &L->syms, s);
	return &L->syms.v[L->syms.n - 1];
}

Var *
lw_new_var(Lower *L, const char *name, DType t, VarKind k, Span sp)
{
	Var *v = NEW(&L->c->arena, Var);
	v->name = name;
	v->dtype = t;
	v->kind = k;
	v->span = sp;
	v->id = L->next_id++;
	return v;
}

Buffer *
lw_new_buf(Lower *L, const char *name, BufKind k, Span sp)
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
const char *
lw_ast_path(Lower *L, const Ast *a)
{
	if (a->kind == A_NAME) {
		Sym *s = lw_lookup(L, a->name);
		if (s && s->kind == SYM_NS)
			return "";
		if (s && s->kind == SYM_BUILTIN)
			return s->path;
		return NULL;
	}
	if (a->kind != A_ATTR)
		return NULL;
	const char *p = lw_ast_path(L, a->a);
	if (!p)
		return NULL;
	if (!*p)
		return a->name;
	return arena_printf(&L->c->arena, "%s.%s", p, a->name);
}

bool
lw_path_is(const char *p, const char *want)
{
	return p && !strcmp(p, want);
}

const char *
lw_call_path(Lower *L, const Ast *a)
{
	return a && a->kind == A_CALL ? lw_ast_path(L, a->a) : NULL;
}

bool
lw_is_alloc_path(const char *p)
{
	return lw_path_is(p, "alloc_shared") || lw_path_is(p, "alloc_local") ||
	       lw_path_is(p, "alloc_buffer") || lw_path_is(p, "decl_buffer") ||
	       lw_path_is(p, "tmem") || lw_path_is(p, "decl_tensor");
}

bool
lw_is_layout_path(const char *p)
{
	return lw_path_is(p, "TileLayout") || lw_path_is(p, "ComposeLayout") ||
	       lw_path_is(p, "cuda.mma_sync_layout") ||
	       lw_path_is(p, "cuda.ldmatrix_layout") ||
	       lw_path_is(p, "cuda.stmatrix_layout") ||
	       lw_path_is(p, "cuda.wgmma_layout") ||
	       lw_path_is(p, "cuda.tmem_datapath_layout");
}
