/*
 * facts.c - questions under known facts (prove.h): guards such as
 * `row < n`, loop ranges and block ids below a symbolic grid are linear
 * facts f >= 0 that the interval prover alone cannot use, because they
 * relate symbols to each other.
 *
 * Input: a goal g (prove g >= 0) and the SymTab's live facts.  Method:
 * g is proved when its interval is nonnegative, or when subtracting
 * positive multiples of facts (each step chosen to cancel one of g's
 * terms, scaling g by a positive constant where the coefficients do
 * not divide) leaves a form whose interval is nonnegative: g - sum(l_i
 * f_i) >= 0 and f_i >= 0 imply g >= 0.  Sound, incomplete; depth 3.
 *
 * Counterexamples: a local search over the free symbols for a
 * valuation that keeps every live fact and makes g negative; derived
 * symbols (quotients, remainders, swizzles) are recomputed from their
 * definitions, so the valuation is consistent.
 */
#include <string.h>

#include "layout/prove.h"

#define FACT_DEPTH 3
#define SEARCH_ROUNDS 64

void
fact_push(SymTab *st, Lin f)
{
	if (f.overflow || lin_is_const(f))
		return;
	Fact x = {f, false};
	vec_push(st->arena, &st->facts, x);
}

static bool
mentions(Lin f, int sym)
{
	for (int i = 0; i < f.n; i++)
		if (f.t[i].sym == sym)
			return true;
	return false;
}

void
fact_kill_sym(SymTab *st, int sym)
{
	for (size_t i = 0; i < st->facts.n; i++)
		if (mentions(st->facts.v[i].f, sym))
			st->facts.v[i].dead = true;
}

static int64_t
coef_of(Lin f, int sym)
{
	for (int i = 0; i < f.n; i++)
		if (f.t[i].sym == sym)
			return f.t[i].coef;
	return 0;
}

static bool
interval_nonneg(const SymTab *st, Lin g)
{
	int64_t lo, hi;
	return !g.overflow && lin_bounds(st, g, &lo, &hi) && lo >= 0;
}

/* g >= 0 given the live facts not in `used` (a bit set of fact
 * indices), depth steps left.  The arena only grows (forms are
 * values), so the const cast is not a semantic change. */
static bool
nonneg_from(const SymTab *cst, Lin g, int depth, uint64_t used)
{
	SymTab *st = (SymTab *)cst;
	if (interval_nonneg(st, g))
		return true;
	if (depth == 0 || g.overflow)
		return false;
	for (size_t i = 0; i < st->facts.n && i < 64; i++) {
		const Fact *f = &st->facts.v[i];
		if (f->dead || (used >> i & 1))
			continue;
		for (int k = 0; k < g.n; k++) {
			int64_t cg = g.t[k].coef, cf = coef_of(f->f, g.t[k].sym);
			if (cf == 0 || (cg > 0) != (cf > 0))
				continue;
			/* |cf| * g - |cg| * f cancels the term */
			int64_t ag = cg < 0 ? -cg : cg, af = cf < 0 ? -cf : cf;
			int64_t s = 1, l = ag;
			if (ag % af == 0)
				l = ag / af;
			else
				s = af;
			Lin r = lin_sub(st, lin_scale(st, g, s),
					lin_scale(st, f->f, l));
			if (!r.overflow &&
			    nonneg_from(st, r, depth - 1, used | (uint64_t)1 << i))
				return true;
		}
	}
	return false;
}

bool
prove_nonneg(const SymTab *st, Lin g)
{
	return nonneg_from(st, g, FACT_DEPTH, 0);
}

bool
prove_range_facts(const SymTab *cst, Lin a, int64_t lo, int64_t hi)
{
	SymTab *st = (SymTab *)cst;
	if (a.overflow || lo == INT64_MIN || hi == INT64_MIN)
		return false;
	return prove_nonneg(st, lin_add_const(st, a, -lo)) &&
	       prove_nonneg(st, lin_sub(st, lin_const(hi), a));
}

/* ---- evaluation ---- */

static int64_t
floordiv64(int64_t a, int64_t k)
{
	int64_t q = a / k;
	return (a % k != 0 && ((a < 0) != (k < 0))) ? q - 1 : q;
}

static bool eval_sym(const SymTab *st, int id, int64_t *vals, int depth,
		     int64_t *out);

static bool
eval_lin(const SymTab *st, Lin l, int64_t *vals, int depth, int64_t *out)
{
	if (l.overflow || depth > 16)
		return false;
	int64_t acc = l.c0, v, t;
	for (int i = 0; i < l.n; i++)
		if (!eval_sym(st, l.t[i].sym, vals, depth + 1, &v) ||
		    __builtin_mul_overflow(l.t[i].coef, v, &t) ||
		    __builtin_add_overflow(acc, t, &acc))
			return false;
	*out = acc;
	return true;
}

static bool
eval_sym(const SymTab *st, int id, int64_t *vals, int depth, int64_t *out)
{
	const Sym *s = sym_get(st, id);
	int64_t u;
	if (s->quot_of >= 0) {
		const Sym *b = sym_get(st, s->quot_of);
		if (!eval_sym(st, s->quot_of, vals, depth + 1, &u))
			return false;
		*out = floordiv64(u, b->mult);
		return true;
	}
	if (!s->op) {
		*out = vals[id];
		return true;
	}
	if (!eval_lin(st, s->of, vals, depth + 1, &u) || s->by <= 0)
		return false;
	if (s->op == '/') {
		*out = floordiv64(u, s->by);
	} else if (s->op == '%') {
		*out = u - floordiv64(u, s->by) * s->by;
	} else {
		int sw_b = (int)(s->by >> 8), sw_s = (int)(s->by & 0xff);
		if (sw_b > 30 || sw_s > 30)
			return false;
		int64_t mask = (((int64_t)1 << sw_b) - 1) << sw_s;
		*out = u ^ ((u & mask) >> sw_s);
	}
	return true;
}

bool
lin_eval(const SymTab *st, Lin l, int64_t *vals, int64_t *out)
{
	return eval_lin(st, l, vals, 0, out);
}

/* ---- counterexamples ---- */

static bool
is_free(const Sym *s)
{
	return s->quot_of < 0 && !s->op;
}

/* Marks the free symbols l depends on (through derived definitions). */
static void
mark_free(const SymTab *st, Lin l, bool *mark, int depth)
{
	for (int i = 0; i < l.n && depth < 16; i++) {
		int id = l.t[i].sym;
		const Sym *s = sym_get(st, id);
		if (is_free(s))
			mark[id] = true;
		else if (s->quot_of >= 0)
			mark[s->quot_of] = true;
		else
			mark_free(st, s->of, mark, depth + 1);
	}
}

static int64_t
clamp_mult(const Sym *s, int64_t v)
{
	if (v < s->lo)
		v = s->lo;
	if (v > s->hi)
		v = s->hi;
	int64_t r = s->mult > 1 ? v % s->mult : 0, up, down;
	if (r < 0)
		r += s->mult;
	if (r && !__builtin_sub_overflow(v, r, &down) && down >= s->lo)
		v = down;
	else if (r && !__builtin_add_overflow(v, s->mult - r, &up) &&
		 up <= s->hi)
		v = up;
	return v;
}

/* How far vals is from a counterexample: the facts' deficits plus
 * g + 1 when g >= 0; INT64_MAX when something overflows. */
static int64_t
violation(const SymTab *st, Lin g, int64_t *vals)
{
	int64_t v, total = 0;
	if (!lin_eval(st, g, vals, &v) || v == INT64_MAX)
		return INT64_MAX;
	if (v >= 0)
		total = v + 1;
	for (size_t i = 0; i < st->facts.n; i++) {
		if (st->facts.v[i].dead)
			continue;
		if (!lin_eval(st, st->facts.v[i].f, vals, &v) ||
		    v == INT64_MIN ||
		    __builtin_add_overflow(total, v < 0 ? -v : 0, &total))
			return INT64_MAX;
	}
	return total;
}

static void
try_value(const SymTab *st, Lin g, int64_t *vals, int id, int64_t cand,
	  int64_t *best, int64_t *best_v)
{
	const Sym *s = sym_get(st, id);
	int64_t old = vals[id];
	vals[id] = clamp_mult(s, cand);
	int64_t score = violation(st, g, vals);
	if (score < *best) {
		*best = score;
		*best_v = vals[id];
	}
	vals[id] = old;
}

const char *
prove_counterexample(const SymTab *st, Lin g, int64_t **vals_out)
{
	size_t n = st->syms.n;
	int64_t *vals = NEWN(st->arena, int64_t, n + 1);
	bool *mark = NEWN(st->arena, bool, n + 1);
	memset(mark, 0, sizeof(bool) * (n + 1));
	mark_free(st, g, mark, 0);
	for (size_t i = 0; i < st->facts.n; i++)
		if (!st->facts.v[i].dead)
			mark_free(st, st->facts.v[i].f, mark, 0);
	for (size_t i = 0; i < n; i++) {
		const Sym *s = &st->syms.v[i];
		int64_t c = coef_of(g, (int)i);
		vals[i] = clamp_mult(s, c > 0 ? s->lo : c < 0 ? s->hi : 0);
	}
	int64_t score = violation(st, g, vals);
	for (int round = 0; round < SEARCH_ROUNDS && score > 0; round++) {
		int64_t best = score, best_v = 0;
		int best_id = -1;
		for (size_t i = 0; i < n; i++) {
			if (!mark[i])
				continue;
			const Sym *s = &st->syms.v[i];
			int64_t v = vals[i], b = score, bv = v, x;
			/* neighbours, steps of the multiple, halving and
			 * doubling, the ends of the interval */
			int64_t cands[10] = {s->lo, s->hi, 0, 1, v / 2};
			int nc = 5;
			if (!__builtin_sub_overflow(v, 1, &x))
				cands[nc++] = x;
			if (!__builtin_add_overflow(v, 1, &x))
				cands[nc++] = x;
			if (!__builtin_sub_overflow(v, s->mult, &x))
				cands[nc++] = x;
			if (!__builtin_add_overflow(v, s->mult, &x))
				cands[nc++] = x;
			if (!__builtin_mul_overflow(v, 2, &x))
				cands[nc++] = x;
			for (int k = 0; k < nc; k++)
				try_value(st, g, vals, (int)i, cands[k], &b, &bv);
			if (b < best) {
				best = b;
				best_v = bv;
				best_id = (int)i;
			}
		}
		if (best_id < 0)
			break;
		vals[best_id] = best_v;
		score = best;
	}
	if (score != 0)
		return NULL;
	StrBuf b;
	sb_init(&b, st->arena);
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		if (!mark[i])
			continue;
		sb_printf(&b, "%s%s=%lld", first ? "" : ", ",
			  st->syms.v[i].name, (long long)vals[i]);
		first = false;
	}
	if (vals_out)
		*vals_out = vals;
	return sb_cstr(&b);
}
