/*
 * prove.h - the integer prover: canonical linear forms over opaque
 * symbols with known intervals, and the questions the tile engine asks
 * ("is this address a multiple of 16 for every thread and iteration?",
 * "is this region start in bounds?").
 *
 * A Lin is c0 + sum(coef_i * sym_i) with int64 coefficients; terms are
 * sorted by symbol id, with no zero coefficients and no repeated
 * symbols, so two equal forms have equal representations.  Symbols live
 * in a SymTab (arena-backed); each has an interval [lo, hi] (launch
 * extents, thread ids, loop ranges, parameters with known bounds) and a
 * known multiple `mult` (>= 1: the symbol's values are multiples of
 * mult).  A loop `for i in range(a, b, s)` is best given to the prover as
 * a + s*j with j in [0, ceil((b-a)/s) - 1].
 *
 * Nonlinear operations (product of two symbolic forms, floordiv / mod by
 * a constant that does not divide the symbolic terms) introduce a fresh
 * symbol with a sound interval: answers stay correct but may become
 * "cannot prove".  Symbols are treated as independent, which makes
 * prove_multiple_of and prove_in_range exact for forms without such
 * derived symbols.
 *
 * Overflow of any int64 operation marks the form `overflow`; every query
 * on it fails with a reason.  Reason strings live in the SymTab's arena.
 */
#ifndef PT_PROVE_H
#define PT_PROVE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"

typedef struct LinTerm {
	int64_t coef;
	int sym;
} LinTerm;

typedef struct Lin {
	int64_t c0;
	LinTerm *t;   /* sorted by sym; arena-owned, never shared-mutated */
	int n;
	bool overflow;
} Lin;

typedef struct Sym {
	const char *name;
	int64_t lo, hi;  /* inclusive interval */
	int64_t mult;    /* values are multiples of mult (>= 1) */
	int quot_of;     /* -1, or the symbol this one is `that / its mult` of */
	/* a symbol standing for `of // by` (op '/'), `of % by` (op '%') or
	 * the swizzled unit index swz(of) (op 'x', by = sw_b << 8 | sw_s,
	 * swz(u) = u ^ ((u & ((2^sw_b - 1) << sw_s)) >> sw_s)); 0 = none.
	 * The same form gives the same symbol (sym_derived). */
	char op;
	int64_t by;
	Lin of;
} Sym;

/* A known fact: every value of f is >= 0 (a guard, a loop range, a
 * block id below its grid).  A dead fact (a variable it mentions was
 * reassigned) is ignored. */
typedef struct Fact {
	Lin f;
	bool dead;
} Fact;

typedef struct SymTab {
	Arena *arena;
	VEC(Sym) syms;
	VEC(Fact) facts; /* a stack: callers pop by truncating facts.n */
} SymTab;

/* ---- lin.c: forms ---- */

void symtab_init(SymTab *st, Arena *a);
/* Adds a symbol with interval [lo, hi] (lo <= hi) and known multiple
 * mult (use 1 when unknown); returns its id. */
int sym_new(SymTab *st, const char *name, int64_t lo, int64_t hi,
	    int64_t mult);
/* The symbol of a derived form (Sym.op/by/of), reused when the same
 * form was made recently; [lo, hi] its interval. */
int sym_derived(SymTab *st, char op, Lin of, int64_t by, int64_t lo,
		int64_t hi);
const Sym *sym_get(const SymTab *st, int id);

Lin lin_const(int64_t c);
Lin lin_sym(SymTab *st, int id);
/* coef * sym */
Lin lin_term(SymTab *st, int64_t coef, int id);
Lin lin_add(SymTab *st, Lin a, Lin b);
Lin lin_sub(SymTab *st, Lin a, Lin b);
Lin lin_scale(SymTab *st, Lin a, int64_t k);
Lin lin_add_const(SymTab *st, Lin a, int64_t k);
/* a * b: exact when either is constant, else a fresh bounded symbol. */
Lin lin_mul(SymTab *st, Lin a, Lin b);
/* Floor division and floor modulo by a constant k > 0.  Exact when the
 * symbolic part is a multiple of k (symbol multiples included), or when
 * the form's interval lies inside one period; otherwise a fresh symbol
 * with the quotient's interval, or [0, k-1] for mod. */
Lin lin_floordiv(SymTab *st, Lin a, int64_t k);
Lin lin_mod(SymTab *st, Lin a, int64_t k);

/* Division of many forms s + c that share the symbolic part s (c0 of
 * s ignored) by one k > 0, as lin_floordiv / lin_mod would do it:
 * lin_div_prepare splits s once (making the quotient symbols
 * lin_floordiv would make), then lin_div_const answers for one
 * constant c whether the division is exact, with
 *   (s + c) // k == A + *q  and  (s + c) mod k == B + *r,
 * the same forms lin_floordiv / lin_mod return.  False (use those) when
 * it is not exact or when the constant could come near overflow. */
typedef struct LinDiv {
	int64_t k;
	Lin A, B;        /* symbolic parts of quotient and remainder */
	int64_t lo, hi;  /* bounds of B */
	bool ok;         /* lo/hi hold, far from overflow */
} LinDiv;

void lin_div_prepare(SymTab *st, Lin s, int64_t k, LinDiv *d);
bool lin_div_const(const LinDiv *d, int64_t c, int64_t *q, int64_t *r);

bool lin_is_const(Lin a);
bool lin_equal(Lin a, Lin b);
/* Interval of the form over all symbol values; false on overflow. */
bool lin_bounds(const SymTab *st, Lin a, int64_t *lo, int64_t *hi);
/* "16*tid + 4*i + 3", "0", "-2*j - 1". */
const char *lin_str(const SymTab *st, Lin a);

/* ---- prove.c: questions ---- */

/* True when every value of the form is a multiple of k (k > 0).  On
 * failure *why (if not NULL) says which term or constant leaves which
 * remainder, e.g. "term 8*tid leaves remainder 8 mod 16". */
bool prove_multiple_of(const SymTab *st, Lin a, int64_t k, const char **why);
/* True when lo <= value <= hi for every value.  On failure *why names the
 * extreme value and the symbol values that reach it. */
bool prove_in_range(const SymTab *st, Lin a, int64_t lo, int64_t hi,
		    const char **why);

/* ---- facts.c: questions under known facts ---- */

/* Records f >= 0 (ignored on overflow or when f is constant). */
void fact_push(SymTab *st, Lin f);
/* Marks dead every live fact that mentions symbol sym. */
void fact_kill_sym(SymTab *st, int sym);
/* True when every value of g is >= 0, by its interval or, failing
 * that, by subtracting nonnegative multiples of up to three live
 * facts (each step cancelling one term) until the rest's interval
 * is nonnegative.  Sound; incomplete. */
bool prove_nonneg(const SymTab *st, Lin g);
/* prove_in_range's question (lo <= every value <= hi) under the live
 * facts; the interval answer first. */
bool prove_range_facts(const SymTab *st, Lin a, int64_t lo, int64_t hi);
/* A valuation of the symbols (one value per symbol, in *vals) at which
 * g < 0 while every live fact holds, printed as "n=0, block=3" (the
 * free symbols g and the facts mention); NULL when a small local
 * search finds none. */
const char *prove_counterexample(const SymTab *st, Lin g, int64_t **vals);
/* The value of l under vals (one per symbol; derived symbols are
 * recomputed from their definitions); false on overflow. */
bool lin_eval(const SymTab *st, Lin l, int64_t *vals, int64_t *out);

#endif
