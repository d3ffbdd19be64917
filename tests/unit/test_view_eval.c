/*
 * test_view_eval.c - ViewEval (view.h) against view_phys_lin / view_phys.
 *
 * ViewEval must be a pure speed-up: for random views (tile layouts with
 * replicas and offsets, swizzles, constant and symbolic origins whose
 * symbols have known multiples) the forms it returns, and the symbols
 * it makes on the way, must equal what view_phys_lin returns and makes
 * when called for the same coordinates in the same order.  Two symbol
 * tables built the same way are compared term by term and symbol by
 * symbol (name, interval, multiple, derivation).
 */
#include <string.h>

#include "layout/layout.h"
#include "test.h"
#include "layout/view.h"

static const Span NOSPAN = {0, 0, 0};

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int64_t
rnd_in(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd(s) % (uint64_t)(hi - lo + 1));
}

static Layout *
random_layout(Ctx *c, uint64_t *s, int64_t *n)
{
	LayoutIter it[5];
	int k = (int)rnd_in(s, 1, 5);
	static const Axis ax[] = {AX_M, AX_M, AX_M, AX_LANEID, AX_WARPID};
	*n = 1;
	for (int i = 0; i < k; i++) {
		it[i].extent = rnd_in(s, 1, 8);
		it[i].axis = ax[rnd_in(s, 0, 4)];
		do
			it[i].stride = rnd_in(s, -3, 40);
		while (it[i].stride == 0);
		*n *= it[i].extent;
	}
	LayoutIter rep[] = {{2, 7, AX_WARPID}};
	LayoutOffset off[] = {{(int64_t)rnd_in(s, 0, 40), AX_M}};
	return layout_make(&c->arena, it, k, rep, (int)rnd_in(s, 0, 1), off,
			   1);
}

static int
random_shape(uint64_t *s, int64_t n, int64_t *shape)
{
	int nd = (int)rnd_in(s, 1, 3);
	for (int i = 0; i < nd; i++)
		shape[i] = 1;
	for (int64_t f = 2; n > 1; f++)
		while (n % f == 0) {
			shape[rnd_in(s, 0, nd - 1)] *= f;
			n /= f;
		}
	return nd;
}

static bool
same_lin(Lin a, Lin b)
{
	if (a.c0 != b.c0 || a.n != b.n || a.overflow != b.overflow)
		return false;
	for (int i = 0; i < a.n; i++)
		if (a.t[i].sym != b.t[i].sym || a.t[i].coef != b.t[i].coef)
			return false;
	return true;
}

static bool
same_syms(const SymTab *a, const SymTab *b)
{
	if (a->syms.n != b->syms.n)
		return false;
	for (size_t i = 0; i < a->syms.n; i++) {
		const Sym *x = &a->syms.v[i], *y = &b->syms.v[i];
		if (strcmp(x->name, y->name) != 0 || x->lo != y->lo ||
		    x->hi != y->hi || x->mult != y->mult ||
		    x->quot_of != y->quot_of || x->op != y->op ||
		    x->by != y->by || !same_lin(x->of, y->of))
			return false;
	}
	return true;
}

/* The same symbolic origin in either table: sym 0 "t" (multiple mt)
 * and sym 1 "u" scaled by ku on dim 0, both bounded so the region
 * stays inside. */
static Lin *
origin(SymTab *st, Ctx *c, const int64_t *o, int nd, bool sym, int64_t mt,
       int64_t room)
{
	Lin *l = NEWN(&c->arena, Lin, nd);
	for (int d = 0; d < nd; d++)
		l[d] = lin_const(o[d]);
	int t = sym_new(st, "t", 0, room / 2 / mt * mt, mt);
	int u = sym_new(st, "u", 0, room / 2, 1);
	if (sym)
		l[0] = lin_add(st, lin_sym(st, t), lin_sym(st, u));
	return l;
}

TEST(view_eval_matches_view_phys_lin)
{
	Ctx *c = pt_ctx_new(NULL);
	uint64_t seed = 0x243f6a8885a308d3ull;
	int bad = 0, fast = 0, checked = 0;
	for (int trial = 0; trial < 400; trial++) {
		SymTab sa, sb;
		symtab_init(&sa, &c->arena);
		symtab_init(&sb, &c->arena);
		int64_t n, shape[3], o[3], e[3];
		Layout *l = random_layout(c, &seed, &n);
		int nd = random_shape(&seed, n, shape);
		bool sw = rnd_in(&seed, 0, 2) == 0;
		const Layout *L = sw ? layout_compose(&c->arena, 1, 1, 2, l) : l;
		View *v = view_tensor(c, NOSPAN, 32, shape, nd, L, 0, 0);
		if (!v) {
			bad++;
			break;
		}
		for (int d = 0; d < nd; d++) {
			e[d] = rnd_in(&seed, 1, shape[d]);
			o[d] = rnd_in(&seed, 0, shape[d] - e[d]);
		}
		bool sym = rnd_in(&seed, 0, 2) != 0;
		int64_t mt = rnd_in(&seed, 1, 4);
		int64_t room = shape[0] - e[0];
		if (sym)
			o[0] = 0;
		Lin *la = origin(&sa, c, o, nd, sym, mt, room);
		Lin *lb = origin(&sb, c, o, nd, sym, mt, room);
		View *va = view_slice(c, NOSPAN, &sa, v, la, e, NULL);
		View *vb = view_slice(c, NOSPAN, &sb, v, lb, e, NULL);
		if (!va || !vb) {
			bad++;
			break;
		}
		ViewEval ev;
		view_eval_init(&ev, &sa, va);
		int64_t cnt = e[0] * (nd > 1 ? e[1] : 1) * (nd > 2 ? e[2] : 1);
		for (int64_t f = 0; f < cnt; f++) {
			int64_t x[3], rem = f;
			for (int d = nd - 1; d >= 0; d--) {
				x[d] = rem % e[d];
				rem /= e[d];
			}
			for (int64_t r = 0; r < layout_nreplicas(L); r++) {
				Lin pa[AX_COUNT], pb[AX_COUNT];
				size_t before = sa.syms.n;
				view_eval_phys_lin(&ev, x, r, pa);
				view_phys_lin(&sb, vb, x, r, pb);
				fast += sa.syms.n == before;
				for (int a = 0; a < AX_COUNT; a++)
					bad += !same_lin(pa[a], pb[a]);
				bad += sa.syms.n != sb.syms.n;
				PhysCoord ga, gb;
				bool ka = view_eval_phys(&ev, x, r, &ga);
				bool kb = view_phys(vb, x, r, &gb);
				bad += ka != kb;
				for (int a = 0; ka && kb && a < AX_COUNT; a++)
					bad += ga.v[a] != gb.v[a];
				checked++;
			}
		}
		bad += !same_syms(&sa, &sb);
	}
	CHECK_INT(bad, 0);
	CHECK(checked > 5000);
	CHECK(fast > checked / 2);
	pt_ctx_free(c);
}

/* lin_div_const answers only what divmod gives exactly: for
 * s = 8*u + w (w in [0, 3]) the remainder of s + c mod 8 is w + c mod 8,
 * inside one period exactly when c mod 8 <= 4; then the forms are the
 * ones lin_floordiv / lin_mod make. */
TEST(view_eval_lin_div_const)
{
	Ctx *c = pt_ctx_new(NULL);
	SymTab st;
	symtab_init(&st, &c->arena);
	int u = sym_new(&st, "u", 0, 9, 1);
	int w = sym_new(&st, "w", 0, 3, 1);
	Lin s = lin_add(&st, lin_term(&st, 8, u), lin_sym(&st, w));
	LinDiv d;
	lin_div_prepare(&st, s, 8, &d);
	int64_t q, r;
	for (int64_t k = -8; k < 16; k++) {
		bool ok = lin_div_const(&d, k, &q, &r);
		CHECK_INT(ok, ((k % 8) + 8) % 8 <= 4);
		if (!ok)
			continue;
		Lin sk = lin_add_const(&st, s, k);
		CHECK_STR(lin_str(&st, lin_add_const(&st, d.B, r)),
			  lin_str(&st, lin_mod(&st, sk, 8)));
		CHECK_STR(lin_str(&st, lin_add_const(&st, d.A, q)),
			  lin_str(&st, lin_floordiv(&st, sk, 8)));
	}
	/* coefficients divisible by k: 16*t + 40 = 8*(2*t + 5) */
	int ts = sym_new(&st, "t", 0, 60, 4);
	lin_div_prepare(&st, lin_term(&st, 16, ts), 8, &d);
	CHECK(lin_div_const(&d, 40, &q, &r));
	CHECK_INT(q, 5);
	CHECK_INT(r, 0);
	CHECK_STR(lin_str(&st, d.A), "2*t");
	/* constants near overflow are left to lin_floordiv */
	CHECK(!lin_div_const(&d, INT64_MAX - 3, &q, &r));
	pt_ctx_free(c);
}
