/*
 * prove.c - divisibility and range questions on linear forms (prove.h).
 *
 * Input: a form and its symbol table.  Output: yes, or no with a
 * sentence naming what could not be proved (the tile engine quotes it
 * in diagnostics).  Symbols are independent and each takes every
 * multiple of its `mult` in [lo, hi], so a "no" here comes with a
 * witness whenever the form holds no derived (nonlinear) symbols.
 */
#include "layout/prove.h"

static int64_t
mod_pos(int64_t a, int64_t k)
{
	int64_t r = a % k;
	return r < 0 ? r + k : r;
}

/* True when the symbol takes a single value (folded as a constant). */
static bool
sym_fixed(const Sym *s, int64_t *v)
{
	*v = s->lo;
	return s->lo == s->hi;
}

bool
prove_multiple_of(const SymTab *st, Lin a, int64_t k, const char **why)
{
	PT_ASSERT(k > 0);
	Arena *ar = st->arena;
	if (a.overflow) {
		if (why)
			*why = "cannot prove alignment: integer overflow in "
			       "the address arithmetic";
		return false;
	}
	int64_t c0 = a.c0;
	for (int i = 0; i < a.n; i++) {
		const Sym *s = sym_get(st, a.t[i].sym);
		int64_t v, g;
		if (sym_fixed(s, &v) &&
		    !__builtin_mul_overflow(mod_pos(a.t[i].coef, k),
					    mod_pos(v, k), &g)) {
			c0 = mod_pos(c0, k) + mod_pos(g, k);
			continue;
		}
		if (__builtin_mul_overflow(a.t[i].coef, s->mult, &g))
			g = a.t[i].coef;
		if (mod_pos(g, k) != 0) {
			if (why)
				*why = arena_printf(
					ar,
					"cannot prove %s is a multiple of %lld: "
					"term %s leaves remainder %lld",
					lin_str(st, a), (long long)k,
					lin_str(st, (Lin){0, &a.t[i], 1, false}),
					(long long)mod_pos(g, k));
			return false;
		}
	}
	if (mod_pos(c0, k) != 0) {
		if (why)
			*why = arena_printf(ar,
					    "cannot prove %s is a multiple of "
					    "%lld: it leaves remainder %lld",
					    lin_str(st, a), (long long)k,
					    (long long)mod_pos(c0, k));
		return false;
	}
	return true;
}

/* "tid=127, i=7": the symbol values at which the form reaches its upper
 * (or lower) bound. */
static const char *
witness(const SymTab *st, Lin a, bool upper)
{
	StrBuf b;
	sb_init(&b, st->arena);
	for (int i = 0; i < a.n; i++) {
		const Sym *s = sym_get(st, a.t[i].sym);
		bool use_hi = (a.t[i].coef > 0) == upper;
		sb_printf(&b, "%s%s=%lld", i ? ", " : "", s->name,
			  (long long)(use_hi ? s->hi : s->lo));
	}
	return sb_cstr(&b);
}

bool
prove_in_range(const SymTab *st, Lin a, int64_t lo, int64_t hi,
	       const char **why)
{
	int64_t l, h;
	if (!lin_bounds(st, a, &l, &h)) {
		if (why)
			*why = arena_printf(st->arena,
					    "cannot bound %s: integer overflow",
					    lin_str(st, a));
		return false;
	}
	if ((l < lo || h > hi) && st->facts.n &&
	    prove_range_facts(st, a, lo, hi))
		return true; /* guards and loop ranges (facts.c) */
	if (l < lo) {
		if (why)
			*why = arena_printf(st->arena,
					    "cannot prove %s >= %lld: it reaches "
					    "%lld at %s", lin_str(st, a),
					    (long long)lo, (long long)l,
					    witness(st, a, false));
		return false;
	}
	if (h > hi) {
		if (why)
			*why = arena_printf(st->arena,
					    "cannot prove %s <= %lld: it reaches "
					    "%lld at %s", lin_str(st, a),
					    (long long)hi, (long long)h,
					    witness(st, a, true));
		return false;
	}
	return true;
}
