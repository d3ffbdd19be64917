/*
 * symshape.c - global tensors with runtime sizes (`n = T.dynamic("n")`
 * on any axis) as tile operands.
 *
 * Such a tensor is only addressed through a region with static extents
 * (`A.sub[row, :]`, `A[r, 4*j:4*j+4]`).  Its View keeps placeholder
 * extents on the symbolic axes, so the view machinery (group, repeat,
 * atom split) works unchanged; what depends on the real sizes is done
 * here against the sizes themselves:
 *   bounds: every region start s and extent k on an axis of extent N
 *     must satisfy 0 <= s and s + k <= N, proved under the facts of the
 *     enclosing guards (facts.c); a failure names the inequality in the
 *     script's own names with a counterexample;
 *   addresses: the element offset is sum(coord_d * stride_d), strides
 *     being products of the inner sizes (linear forms in the size
 *     symbols; a product of two symbolic forms is a fresh symbol whose
 *     known multiple is the product of the factors' multiples).
 * Codegen addresses these operands by logical index over the real
 * shape (codegen/mem.c), so no placeholder ever reaches an address.
 *
 * Alignment of a row start depends on the size: a 16-byte vector of
 * float32 at A[r, 4*j] in a (m, n) tensor needs 4*n*r to be a multiple
 * of 16, i.e. n a multiple of 4.  The checker assumes the smallest such
 * multiple, records it on the kernel (metadata "assume") and the
 * runtime refuses a launch whose size breaks it.
 */
#include <string.h>

#include "tile/tile.h"

#define PLACEHOLDER_EXTENT 65536

bool
tile_sym_shape(const Buffer *b)
{
	int64_t v;
	for (int d = 0; d < b->ndim; d++)
		if (!ir_const_int(b->shape[d], &v))
			return true;
	return false;
}

View *
tile_sym_root_view(TileEnv *e, Buffer *b, Span sp)
{
	Ctx *c = e->c;
	if (b->scope != MS_GLOBAL || b->layout) {
		diag_error(c, PT_E_TILE_VIEW, sp,
			   "tensor %s: symbolic extents are supported on "
			   "global tensors with the default layout", b->name);
		return NULL;
	}
	int64_t *shape = NEWN(&c->arena, int64_t, b->ndim + 1);
	for (int d = 0; d < b->ndim; d++)
		if (!ir_const_int(b->shape[d], &shape[d]))
			shape[d] = PLACEHOLDER_EXTENT;
	View *v = view_tensor(c, sp, dtype_bits(b->dtype), shape, b->ndim,
			      NULL, (int)b->scope, 0);
	if (v)
		v->caller_bounds = true;
	return v;
}

static Lin
extent_lin(TileEnv *e, const Buffer *b, int d)
{
	return tile_lin(e, b->shape[d]);
}

/* "row < n", "4*j + 4 <= n", "row >= 0" in the script's names. */
static const char *
inequality(Ctx *c, const char *s, int64_t k, const char *n, bool upper)
{
	if (!upper)
		return arena_printf(&c->arena, "%s >= 0", s);
	if (k == 1)
		return arena_printf(&c->arena, "%s < %s", s, n);
	return arena_printf(&c->arena, "%s + %lld <= %s", s, (long long)k, n);
}

static bool
report_bounds(TileEnv *e, const Expr *region, const Buffer *b, int d,
	      Lin start, Lin goal, int64_t k, bool upper, Span sp)
{
	Ctx *c = e->c;
	const Expr *bx = region->u.region.dims[d].begin;
	const char *s = bx ? ir_expr_text(c, bx) : "0";
	const char *n = ir_expr_text(c, b->shape[d]);
	const char *ineq = inequality(c, s, k, n, upper);
	int64_t *vals = NULL, sv = 0, nv = 0;
	const char *cex = prove_counterexample(&e->st, goal, &vals);
	const char *ce = "no counterexample found under the guards (the "
			 "prover is incomplete here)";
	if (cex && lin_eval(&e->st, start, vals, &sv) &&
	    lin_eval(&e->st, extent_lin(e, b, d), vals, &nv))
		ce = arena_printf(&c->arena,
				  "counterexample: %s gives %s = %lld, %s = "
				  "%lld", cex, s, (long long)sv, n,
				  (long long)nv);
	return diag_error(c, PT_E_PROVE_BOUNDS, sp,
			  "%s may leave %s: cannot prove %s (axis %d of %s "
			  "has extent %s); %s.  Guard the call (`if %s:` or "
			  "pred=%s)", ir_expr_text(c, region), b->name, ineq,
			  d, b->name, n, ce, ineq, ineq);
}

bool
tile_sym_bounds(TileEnv *e, const Expr *region, const Buffer *b,
		const Lin *start, const int64_t *ext, Span sp)
{
	SymTab *st = &e->st;
	for (int d = 0; d < b->ndim; d++) {
		Lin lo = start[d];
		Lin hi = lin_sub(st, extent_lin(e, b, d),
				 lin_add_const(st, start[d], ext[d]));
		if (!prove_nonneg(st, lo))
			return report_bounds(e, region, b, d, start[d], lo,
					     ext[d], false, sp);
		if (!prove_nonneg(st, hi))
			return report_bounds(e, region, b, d, start[d], hi,
					     ext[d], true, sp);
	}
	return true;
}

/* ---- addresses ---- */

static int64_t
gcd64(int64_t a, int64_t b)
{
	a = a < 0 ? -a : a;
	b = b < 0 ? -b : b;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* The largest known multiple of every value of l's symbolic part. */
static int64_t
lin_mult(const SymTab *st, Lin l)
{
	int64_t g = 0, t;
	for (int i = 0; i < l.n; i++) {
		if (__builtin_mul_overflow(l.t[i].coef,
					   sym_get(st, l.t[i].sym)->mult, &t))
			t = l.t[i].coef;
		g = gcd64(g, t);
	}
	return g > 0 && g < ((int64_t)1 << 30) ? g : 1;
}

/* a * b for symbolic a and b without constant parts: one fresh symbol
 * per pair (reused, so equal products cancel), with the product of
 * the factors' multiples. */
static Lin
sym_product(TileEnv *e, Lin a, Lin b)
{
	SymTab *st = &e->st;
	int64_t mult = lin_mult(st, a) * lin_mult(st, b);
	const char *sa = lin_str(st, a), *sb = lin_str(st, b);
	const char *key = arena_printf(&e->c->arena, "m:%s|%s|%lld", sa, sb,
				       (long long)mult);
	for (size_t i = 0; i < e->products.n; i++)
		if (strcmp(e->products.v[i].key, key) == 0)
			return lin_sym(st, e->products.v[i].sym);
	Lin r = lin_mul(st, a, b);
	int64_t lo, hi;
	if (r.overflow || !lin_bounds(st, r, &lo, &hi))
		return r;
	int s = sym_new(st, arena_printf(&e->c->arena, "(%s)*(%s)", sa, sb),
			lo, hi, mult);
	TileProduct p = {key, s};
	vec_push(&e->c->arena, &e->products, p);
	return lin_sym(st, s);
}

static Lin
mul_lin(TileEnv *e, Lin a, Lin b)
{
	SymTab *st = &e->st;
	if (lin_is_const(a) || lin_is_const(b))
		return lin_mul(st, a, b);
	int64_t ac = a.c0, bc = b.c0;
	a.c0 = 0;
	b.c0 = 0;
	Lin r = sym_product(e, a, b);
	r = lin_add(st, r, lin_scale(st, b, ac));
	r = lin_add(st, r, lin_scale(st, a, bc));
	int64_t k;
	if (__builtin_mul_overflow(ac, bc, &k)) {
		r.overflow = true;
		return r;
	}
	return lin_add_const(st, r, k);
}

/* The Var of a symbol standing for a symbolic size, or NULL. */
static const Var *
dyn_var(const TileEnv *e, int sym)
{
	const Expr *x = (size_t)sym < e->sym_expr.n ? e->sym_expr.v[sym]
						    : NULL;
	return x && x->kind == EX_VAR && x->u.var->kind == VK_DYN ? x->u.var
								 : NULL;
}

static void
record_assume(TileEnv *e, const Var *v, int64_t k)
{
	Func *f = e->f;
	for (size_t i = 0; i < f->assume.n; i++) {
		SizeAssume *a = &f->assume.v[i];
		if (a->var == v) {
			a->multiple_of = a->multiple_of / gcd64(a->multiple_of,
								k) * k;
			return;
		}
	}
	SizeAssume a = {v, k};
	vec_push(&e->c->arena, &f->assume, a);
}

/* A stride c*n (n a symbolic size) of an axis whose coordinate is not
 * always 0: assume n is a multiple of what the atom's alignment needs
 * (need bytes, elem_bytes per element). */
static void
assume_stride(TileEnv *e, Lin stride, int elem_bytes, int64_t need)
{
	if (stride.n != 1 || need <= elem_bytes || need > 4096)
		return;
	const Var *v = dyn_var(e, stride.t[0].sym);
	Sym *s = &e->st.syms.v[stride.t[0].sym];
	int64_t have;
	if (!v || __builtin_mul_overflow(stride.t[0].coef, s->mult, &have) ||
	    __builtin_mul_overflow(have, elem_bytes, &have))
		return;
	int64_t k = need / gcd64(need, have);
	if (k <= 1)
		return;
	s->mult *= k;
	record_assume(e, v, s->mult);
}

Lin
tile_sym_m(TileEnv *e, const TileOperand *op, const View *v,
	   const int64_t *coord, int64_t need)
{
	SymTab *st = &e->st;
	const Buffer *b = op->root;
	int n = b->ndim;
	Lin *sc = NEWN(&e->c->arena, Lin, n + 1);
	view_space_coord(st, v, coord, sc);
	int eb = (dtype_bits(b->dtype) + 7) / 8;
	Lin stride = lin_const(1), m = lin_const(0);
	for (int d = n - 1; d >= 0; d--) {
		if (!lin_is_const(sc[d]) || sc[d].c0 != 0)
			assume_stride(e, stride, eb, need);
		m = lin_add(st, m, mul_lin(e, sc[d], stride));
		if (d > 0)
			stride = mul_lin(e, stride, extent_lin(e, b, d));
	}
	return m;
}
