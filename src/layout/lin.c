/*
 * lin.c - canonical linear forms over symbols with intervals (prove.h).
 *
 * Input: constants, symbols and the arithmetic the front end and the
 * tile engine build addresses from.  Output: canonical forms (terms
 * sorted by symbol, merged, zero coefficients dropped).  Forms are
 * values: every operation allocates a fresh term array in the arena.
 * Any int64 overflow sets `overflow`, which sticks.
 */
#include <stdio.h>

#include "layout/prove.h"

void
symtab_init(SymTab *st, Arena *a)
{
	st->arena = a;
	st->syms.v = NULL;
	st->syms.n = st->syms.cap = 0;
	st->facts.v = NULL;
	st->facts.n = st->facts.cap = 0;
}

static int
sym_push(SymTab *st, Sym s)
{
	vec_push(st->arena, &st->syms, s);
	return (int)st->syms.n - 1;
}

int
sym_new(SymTab *st, const char *name, int64_t lo, int64_t hi, int64_t mult)
{
	PT_ASSERT(lo <= hi && mult >= 1);
	Sym s = {arena_strdup(st->arena, name), lo, hi, mult, -1, 0, 0, {0}};
	return sym_push(st, s);
}

const Sym *
sym_get(const SymTab *st, int id)
{
	PT_ASSERT(id >= 0 && (size_t)id < st->syms.n);
	return &st->syms.v[id];
}

Lin
lin_const(int64_t c)
{
	return (Lin){c, NULL, 0, false};
}

Lin
lin_term(SymTab *st, int64_t coef, int id)
{
	if (coef == 0)
		return lin_const(0);
	Lin l = {0, NEW(st->arena, LinTerm), 1, false};
	l.t[0] = (LinTerm){coef, id};
	return l;
}

Lin
lin_sym(SymTab *st, int id)
{
	return lin_term(st, 1, id);
}

static bool
add_ovf(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_add_overflow(a, b, r);
}

static bool
mul_ovf(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_mul_overflow(a, b, r);
}

Lin
lin_add(SymTab *st, Lin a, Lin b)
{
	Lin r = {0, NEWN(st->arena, LinTerm, a.n + b.n + 1), 0,
		 a.overflow || b.overflow};
	r.overflow |= add_ovf(a.c0, b.c0, &r.c0);
	int i = 0, j = 0;
	while (i < a.n || j < b.n) {
		LinTerm t;
		if (j >= b.n || (i < a.n && a.t[i].sym < b.t[j].sym)) {
			t = a.t[i++];
		} else if (i >= a.n || b.t[j].sym < a.t[i].sym) {
			t = b.t[j++];
		} else {
			t.sym = a.t[i].sym;
			r.overflow |= add_ovf(a.t[i].coef, b.t[j].coef,
					      &t.coef);
			i++, j++;
		}
		if (t.coef != 0)
			r.t[r.n++] = t;
	}
	return r;
}

Lin
lin_scale(SymTab *st, Lin a, int64_t k)
{
	if (k == 0)
		return lin_const(0);
	Lin r = {0, NEWN(st->arena, LinTerm, a.n + 1), a.n, a.overflow};
	r.overflow |= mul_ovf(a.c0, k, &r.c0);
	for (int i = 0; i < a.n; i++) {
		r.t[i].sym = a.t[i].sym;
		r.overflow |= mul_ovf(a.t[i].coef, k, &r.t[i].coef);
	}
	return r;
}

Lin
lin_sub(SymTab *st, Lin a, Lin b)
{
	return lin_add(st, a, lin_scale(st, b, -1));
}

Lin
lin_add_const(SymTab *st, Lin a, int64_t k)
{
	return lin_add(st, a, lin_const(k));
}

bool
lin_is_const(Lin a)
{
	return a.n == 0 && !a.overflow;
}

bool
lin_equal(Lin a, Lin b)
{
	if (a.c0 != b.c0 || a.n != b.n || a.overflow || b.overflow)
		return false;
	for (int i = 0; i < a.n; i++)
		if (a.t[i].sym != b.t[i].sym || a.t[i].coef != b.t[i].coef)
			return false;
	return true;
}

/* Bounds of coef*sym. */
static bool
term_bounds(const Sym *s, int64_t coef, int64_t *lo, int64_t *hi)
{
	int64_t x, y;
	if (mul_ovf(coef, s->lo, &x) || mul_ovf(coef, s->hi, &y))
		return false;
	*lo = x < y ? x : y;
	*hi = x < y ? y : x;
	return true;
}

bool
lin_bounds(const SymTab *st, Lin a, int64_t *lo, int64_t *hi)
{
	if (a.overflow)
		return false;
	int64_t l = a.c0, h = a.c0;
	for (int i = 0; i < a.n; i++) {
		int64_t tl, th;
		if (!term_bounds(sym_get(st, a.t[i].sym), a.t[i].coef, &tl,
				 &th) ||
		    add_ovf(l, tl, &l) || add_ovf(h, th, &h))
			return false;
	}
	*lo = l;
	*hi = h;
	return true;
}

static int64_t
floordiv64(int64_t a, int64_t k)
{
	int64_t q = a / k;
	return (a % k != 0 && ((a < 0) != (k < 0))) ? q - 1 : q;
}

static int
fresh(SymTab *st, const char *name, int64_t lo, int64_t hi)
{
	Sym s = {name, lo, hi, 1, -1, 0, 0, {0}};
	return sym_push(st, s);
}

static bool
lin_same(Lin a, Lin b)
{
	if (a.c0 != b.c0 || a.n != b.n)
		return false;
	for (int i = 0; i < a.n; i++)
		if (a.t[i].coef != b.t[i].coef || a.t[i].sym != b.t[i].sym)
			return false;
	return true;
}

/* One symbol per distinct derived form, so that two evaluations of the
 * same quotient cancel (x // 4 - x // 4 == 0).  Recent symbols are
 * searched (a bounded window keeps the cost linear); a miss only makes
 * a fresh symbol, which is safe. */
int
sym_derived(SymTab *st, char op, Lin a, int64_t k, int64_t lo, int64_t hi)
{
	for (size_t i = st->syms.n; i-- > 0 && st->syms.n - i <= 1024;) {
		const Sym *s = &st->syms.v[i];
		if (s->op == op && s->by == k && lin_same(s->of, a))
			return (int)i;
	}
	const char *name;
	if (op == 'x')
		name = arena_printf(st->arena, "swizzle_unit(%s)",
				    lin_str(st, a));
	else
		name = arena_printf(st->arena, op == '/' ? "(%s) // %lld"
							  : "(%s) %% %lld",
				    lin_str(st, a), (long long)k);
	Sym s = {name, lo, hi, 1, -1, op, k, a};
	return sym_push(st, s);
}

static int
derived(SymTab *st, char op, Lin a, int64_t k, int64_t lo, int64_t hi)
{
	return sym_derived(st, op, a, k, lo, hi);
}

/* The symbol x/mult(x), created once per symbol with mult > 1. */
static int
quot_sym(SymTab *st, int id)
{
	for (size_t i = 0; i < st->syms.n; i++)
		if (st->syms.v[i].quot_of == id)
			return (int)i;
	const Sym *s = sym_get(st, id);
	int64_t m = s->mult;
	Sym q = {arena_printf(st->arena, "%s/%lld", s->name, (long long)m),
		 -floordiv64(-s->lo, m), floordiv64(s->hi, m), 1, id, 0, 0, {0}};
	return sym_push(st, q);
}

/* Rewrites terms coef*x (x a multiple of m > 1) whose coef is not a
 * multiple of k as (coef*m)*(x/m), so that divisibility by k shows in
 * the coefficients. */
static Lin
expand_mults(SymTab *st, Lin a, int64_t k)
{
	Lin r = lin_const(a.c0);
	r.overflow = a.overflow;
	for (int i = 0; i < a.n; i++) {
		LinTerm t = a.t[i];
		const Sym *s = sym_get(st, t.sym);
		int64_t c;
		if (s->mult > 1 && t.coef % k != 0 &&
		    !mul_ovf(t.coef, s->mult, &c))
			r = lin_add(st, r, lin_term(st, c, quot_sym(st, t.sym)));
		else
			r = lin_add(st, r, lin_term(st, t.coef, t.sym));
	}
	return r;
}

/* Splits a (after expand_mults) into k*A + B: A gets the terms whose
 * coefficient is a multiple of k (divided by k), B the other terms and
 * the constant. */
static void
split_by(SymTab *st, Lin a, int64_t k, Lin *A, Lin *B)
{
	*A = (Lin){0, NEWN(st->arena, LinTerm, a.n + 1), 0, false};
	*B = (Lin){a.c0, NEWN(st->arena, LinTerm, a.n + 1), 0, false};
	for (int i = 0; i < a.n; i++) {
		if (a.t[i].coef % k == 0)
			A->t[A->n++] = (LinTerm){a.t[i].coef / k, a.t[i].sym};
		else
			B->t[B->n++] = a.t[i];
	}
}

/* a = k*A + B with B inside one period [q*k, q*k + k - 1]: then
 * a // k = A + q and a mod k = B - q*k exactly.  False when B spans
 * several periods. */
static bool
divmod_exact(SymTab *st, Lin a, int64_t k, Lin *quot, Lin *rem)
{
	Lin A, B;
	int64_t lo, hi;
	split_by(st, expand_mults(st, a, k), k, &A, &B);
	if (!lin_bounds(st, B, &lo, &hi))
		return false;
	int64_t q = floordiv64(lo, k);
	if (q != floordiv64(hi, k))
		return false;
	*quot = lin_add_const(st, A, q);
	*rem = lin_add_const(st, B, -q * k);
	return true;
}

/* Constants, divisors and bound sums stay within +-LIN_NEAR, so that
 * no sum or product below can overflow in any order: lin_div_const
 * then computes exactly what divmod_exact computes on s + c. */
#define LIN_NEAR ((int64_t)1 << 60)

static bool
near(int64_t x)
{
	return x >= -LIN_NEAR && x <= LIN_NEAR;
}

void
lin_div_prepare(SymTab *st, Lin s, int64_t k, LinDiv *d)
{
	PT_ASSERT(k > 0);
	s.c0 = 0;
	d->k = k;
	d->ok = false;
	if (s.overflow || k > LIN_NEAR)
		return;
	split_by(st, expand_mults(st, s, k), k, &d->A, &d->B);
	/* lin_bounds(B + c) adds the term bounds to c one by one; each is
	 * checked before it is added, so that the sums cannot overflow */
	int64_t l = 0, h = 0;
	for (int i = 0; i < d->B.n; i++) {
		int64_t tl, th;
		if (!term_bounds(sym_get(st, d->B.t[i].sym), d->B.t[i].coef,
				 &tl, &th))
			return;
		if (!near(tl) || !near(th))
			return;
		l += tl;
		h += th;
		if (!near(l) || !near(h))
			return;
	}
	d->lo = l;
	d->hi = h;
	d->ok = true;
}

bool
lin_div_const(const LinDiv *d, int64_t c, int64_t *q, int64_t *r)
{
	if (!d->ok || !near(c))
		return false;
	int64_t k = d->k;
	*q = floordiv64(c + d->lo, k);
	if (*q != floordiv64(c + d->hi, k))
		return false;
	*r = c - *q * k;
	return true;
}

Lin
lin_floordiv(SymTab *st, Lin a, int64_t k)
{
	PT_ASSERT(k > 0);
	Lin q, r;
	int64_t lo, hi;
	if (a.overflow)
		return a;
	if (divmod_exact(st, a, k, &q, &r))
		return q;
	if (!lin_bounds(st, a, &lo, &hi)) {
		a.overflow = true;
		return a;
	}
	return lin_sym(st, derived(st, '/', a, k, floordiv64(lo, k),
				   floordiv64(hi, k)));
}

Lin
lin_mod(SymTab *st, Lin a, int64_t k)
{
	PT_ASSERT(k > 0);
	Lin q, r;
	if (a.overflow)
		return a;
	if (divmod_exact(st, a, k, &q, &r))
		return r;
	return lin_sym(st, derived(st, '%', a, k, 0, k - 1));
}

Lin
lin_mul(SymTab *st, Lin a, Lin b)
{
	if (a.overflow || b.overflow) {
		a.overflow = true;
		return a;
	}
	if (a.n == 0)
		return lin_scale(st, b, a.c0);
	if (b.n == 0)
		return lin_scale(st, a, b.c0);
	int64_t al, ah, bl, bh, p[4];
	if (!lin_bounds(st, a, &al, &ah) || !lin_bounds(st, b, &bl, &bh) ||
	    mul_ovf(al, bl, &p[0]) || mul_ovf(al, bh, &p[1]) ||
	    mul_ovf(ah, bl, &p[2]) || mul_ovf(ah, bh, &p[3])) {
		a.overflow = true;
		return a;
	}
	int64_t lo = p[0], hi = p[0];
	for (int i = 1; i < 4; i++) {
		lo = p[i] < lo ? p[i] : lo;
		hi = p[i] > hi ? p[i] : hi;
	}
	const char *name = arena_printf(st->arena, "(%s) * (%s)",
					lin_str(st, a), lin_str(st, b));
	return lin_sym(st, fresh(st, name, lo, hi));
}

static void
put_term(StrBuf *b, const SymTab *st, int64_t coef, int sym, bool first)
{
	const char *name = sym_get(st, sym)->name;
	uint64_t mag = coef < 0 ? -(uint64_t)coef : (uint64_t)coef;
	if (!first)
		sb_puts(b, coef < 0 ? " - " : " + ");
	else if (coef < 0)
		sb_putc(b, '-');
	if (mag != 1)
		sb_printf(b, "%llu*", (unsigned long long)mag);
	sb_puts(b, name);
}

const char *
lin_str(const SymTab *st, Lin a)
{
	StrBuf b;
	sb_init(&b, st->arena);
	if (a.overflow)
		return "(overflow)";
	for (int i = 0; i < a.n; i++)
		put_term(&b, st, a.t[i].coef, a.t[i].sym, i == 0);
	if (a.n == 0)
		sb_printf(&b, "%lld", (long long)a.c0);
	else if (a.c0 != 0) {
		uint64_t mag = a.c0 < 0 ? -(uint64_t)a.c0 : (uint64_t)a.c0;
		sb_printf(&b, " %c %llu", a.c0 < 0 ? '-' : '+',
			  (unsigned long long)mag);
	}
	return sb_cstr(&b);
}
