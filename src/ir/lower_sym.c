/* lower_sym.c - AST -> IR: symbols (scopes, lookup, binding) and the T.*
 * builtin paths.  Part of the lowering pass; lower.c describes the language
 * it accepts, lower.h what the parts share.
 */
#include "ir/lower.h"

/* ---- symbols ---- */

static size_t
index_slot(const SymIndex *ix, const char *name)
{
	size_t mask = ix->cap - 1;
	size_t i = (size_t)hash_bytes(name, strlen(name)) & mask;
	while (ix->key[i] && strcmp(ix->key[i], name) != 0)
		i = (i + 1) & mask;
	return i;
}

static void
index_grow(Lower *L)
{
	SymIndex *ix = &L->index, big = {0};
	big.cap = ix->cap ? ix->cap * 2 : 64;
	big.key = NEWN(&L->c->arena, const char *, big.cap);
	big.top = NEWN(&L->c->arena, size_t, big.cap);
	for (size_t i = 0; i < ix->cap; i++)
		if (ix->key[i]) {
			size_t j = index_slot(&big, ix->key[i]);
			big.key[j] = ix->key[i];
			big.top[j] = ix->top[i];
		}
	big.n = ix->n;
	*ix = big;
}

Sym *
lw_lookup(Lower *L, const char *name)
{
	if (!L->index.cap)
		return NULL;
	size_t i = index_slot(&L->index, name);
	return L->index.key[i] && L->index.top[i]
		       ? &L->syms.v[L->index.top[i] - 1]
		       : NULL;
}

/* The symbol `name` when defined in the current function: the innermost
 * binding, when it is the function's. */
Sym *
lw_lookup_local(Lower *L, const char *name)
{
	Sym *s = lw_lookup(L, name);
	return s && (size_t)(s - L->syms.v) >= L->func_base ? s : NULL;
}

Sym *
lw_bind(Lower *L, const char *name, SymKind k)
{
	if (2 * (L->index.n + 1) > L->index.cap)
		index_grow(L);
	size_t i = index_slot(&L->index, name);
	if (!L->index.key[i]) {
		L->index.key[i] = name;
		L->index.n++;
	}
	Sym s = {0};
	s.name = name;
	s.kind = k;
	s.shadowed = L->index.top[i];
	vec_push(&L->c->arena, &L->syms, s);
	L->index.top[i] = L->syms.n;
	return &L->syms.v[L->syms.n - 1];
}

/* Drops the bindings from n on (a function's, at its end), uncovering
 * the ones they hid. */
void
lw_unbind_to(Lower *L, size_t n)
{
	while (L->syms.n > n) {
		const Sym *s = &L->syms.v[--L->syms.n];
		L->index.top[index_slot(&L->index, s->name)] = s->shadowed;
	}
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
