/*
 * Unit tests of src/layout/lin.c and prove.c: canonical forms, constant
 * folding, bounds, divisibility (with symbol multiples), floordiv/mod,
 * nonlinear fallbacks, overflow, and the reason strings; plus the
 * PT_E_PROVE_* diagnostics of the view helpers.  Expected values are
 * computed by hand (tid in [0, 127], i in [0, 7]).
 */
#include "test.h"
#include "layout/view.h"

static const Span NOSPAN = {0, 0, 0};

TEST(lin_canonical_and_folding)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	int tid = sym_new(&st, "tid", 0, 127, 1);
	int i = sym_new(&st, "i", 0, 7, 1);
	/* (3i + 2tid) + (5 - 3i) = 2tid + 5, terms ordered by symbol */
	Lin x = lin_add(&st, lin_term(&st, 3, i), lin_term(&st, 2, tid));
	Lin y = lin_add_const(&st, lin_term(&st, -3, i), 5);
	Lin z = lin_add(&st, x, y);
	CHECK_STR(lin_str(&st, z), "2*tid + 5");
	CHECK_INT(z.n, 1);
	CHECK(lin_equal(z, lin_add_const(&st, lin_scale(&st, lin_sym(&st, tid),
							   2), 5)));
	CHECK(!lin_equal(z, x));
	CHECK_STR(lin_str(&st, lin_sub(&st, z, z)), "0");
	CHECK(lin_is_const(lin_sub(&st, z, z)));
	CHECK_STR(lin_str(&st, lin_add(&st, lin_term(&st, -1, i),
				       lin_term(&st, 4, tid))),
		  "4*tid - i");
	CHECK_STR(lin_str(&st, lin_add_const(&st, lin_term(&st, -2, i), -1)),
		  "-2*i - 1");
	/* (tid*4 + 2) * 4 = 16*tid + 8 */
	Lin b = lin_mul(&st, lin_add_const(&st, lin_term(&st, 4, tid), 2),
			lin_const(4));
	CHECK_STR(lin_str(&st, b), "16*tid + 8");
	CHECK_INT(lin_mul(&st, lin_const(6), lin_const(7)).c0, 42);
	arena_free(&a);
}

TEST(prove_bounds_and_multiples)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	int tid = sym_new(&st, "tid", 0, 127, 1);
	int i = sym_new(&st, "i", 0, 7, 1);
	Lin f = lin_add(&st, lin_term(&st, 16, tid), lin_term(&st, 4, i));
	int64_t lo, hi;
	CHECK(lin_bounds(&st, f, &lo, &hi));
	CHECK_INT(lo, 0);
	CHECK_INT(hi, 16 * 127 + 4 * 7);
	const char *why = NULL;
	CHECK(prove_multiple_of(&st, f, 4, &why));
	CHECK(!prove_multiple_of(&st, f, 16, &why));
	CHECK_STR(why, "cannot prove 16*tid + 4*i is a multiple of 16: "
		       "term 4*i leaves remainder 4");
	CHECK(prove_in_range(&st, f, 0, 2060, NULL));
	CHECK(!prove_in_range(&st, f, 0, 2047, &why));
	CHECK_STR(why, "cannot prove 16*tid + 4*i <= 2047: it reaches 2060 "
		       "at tid=127, i=7");
	Lin g = lin_add_const(&st, f, -4);
	CHECK(!prove_in_range(&st, g, 0, 4096, &why));
	CHECK_STR(why, "cannot prove 16*tid + 4*i - 4 >= 0: it reaches -4 "
		       "at tid=0, i=0");
	/* the constant is what breaks it */
	Lin h = lin_add_const(&st, lin_term(&st, 16, tid), 8);
	CHECK(!prove_multiple_of(&st, h, 16, &why));
	CHECK_STR(why, "cannot prove 16*tid + 8 is a multiple of 16: it "
		       "leaves remainder 8");
	/* negative coefficient: -4*tid mod 16 leaves 12 */
	CHECK(!prove_multiple_of(&st, lin_term(&st, -4, tid), 16, &why));
	CHECK(strstr(why, "leaves remainder 12") != NULL);
	CHECK(prove_multiple_of(&st, lin_term(&st, -32, tid), 16, NULL));
	CHECK(prove_multiple_of(&st, lin_const(0), 16, NULL));
	CHECK(prove_multiple_of(&st, lin_const(-48), 16, NULL));
	arena_free(&a);
}

TEST(prove_symbol_multiples_and_fixed)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	/* k = loop variable of range(0, 64, 8): multiples of 8 in [0, 56] */
	int k = sym_new(&st, "k", 0, 56, 8);
	int n = sym_new(&st, "n", 3, 3, 1); /* a known constant */
	CHECK(prove_multiple_of(&st, lin_term(&st, 2, k), 16, NULL));
	CHECK(!prove_multiple_of(&st, lin_sym(&st, k), 16, NULL));
	CHECK(prove_multiple_of(&st, lin_term(&st, 4, n), 12, NULL));
	CHECK(!prove_multiple_of(&st, lin_term(&st, 4, n), 8, NULL));
	/* k // 8 is exact through the quotient symbol; (k + 3) % 8 = 3 */
	Lin q = lin_floordiv(&st, lin_sym(&st, k), 8);
	CHECK_STR(lin_str(&st, q), "k/8");
	int64_t lo, hi;
	CHECK(lin_bounds(&st, q, &lo, &hi) && lo == 0 && hi == 7);
	CHECK_STR(lin_str(&st, lin_mod(&st, lin_add_const(&st, lin_sym(&st, k),
							  3), 8)), "3");
	arena_free(&a);
}

TEST(prove_floordiv_mod)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	int i = sym_new(&st, "i", 0, 3, 1);
	int j = sym_new(&st, "j", 0, 7, 1);
	Lin f = lin_add(&st, lin_term(&st, 8, i), lin_sym(&st, j));
	/* (8i + j) // 8 = i and mod 8 = j, since j stays in one period */
	CHECK_STR(lin_str(&st, lin_floordiv(&st, f, 8)), "i");
	CHECK_STR(lin_str(&st, lin_mod(&st, f, 8)), "j");
	/* (16t + 5) // 8 = 2t, mod 8 = 5; constants use floor semantics */
	Lin g = lin_add_const(&st, lin_term(&st, 16, i), 5);
	CHECK_STR(lin_str(&st, lin_floordiv(&st, g, 8)), "2*i");
	CHECK_STR(lin_str(&st, lin_mod(&st, g, 8)), "5");
	CHECK_INT(lin_floordiv(&st, lin_const(-3), 2).c0, -2);
	CHECK_INT(lin_mod(&st, lin_const(-3), 2).c0, 1);
	/* (8i + j + 3) spans two periods of 8: a fresh bounded symbol */
	Lin h = lin_add_const(&st, f, 3);
	Lin hq = lin_floordiv(&st, h, 8);
	int64_t lo, hi;
	CHECK(!lin_is_const(hq) && hq.n == 1 && hq.t[0].sym > j);
	CHECK(lin_bounds(&st, hq, &lo, &hi) && lo == 0 && hi == 4);
	Lin hm = lin_mod(&st, h, 8);
	CHECK(lin_bounds(&st, hm, &lo, &hi) && lo == 0 && hi == 7);
	/* product of two symbols: bounded, not linear */
	Lin p = lin_mul(&st, lin_sym(&st, i), lin_sym(&st, j));
	CHECK(p.n == 1 && lin_bounds(&st, p, &lo, &hi) && lo == 0 && hi == 21);
	CHECK(!prove_multiple_of(&st, lin_scale(&st, p, 2), 4, NULL));
	arena_free(&a);
}

TEST(prove_overflow)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	int i = sym_new(&st, "i", 0, 7, 1);
	Lin big = lin_scale(&st, lin_term(&st, INT64_MAX / 2, i), 4);
	CHECK(big.overflow);
	const char *why = NULL;
	CHECK(!prove_multiple_of(&st, big, 4, &why));
	CHECK(why && strstr(why, "overflow") != NULL);
	CHECK(!prove_in_range(&st, big, 0, 10, &why));
	CHECK(why && strstr(why, "overflow") != NULL);
	/* terms fine, bounds overflow */
	Lin tb = lin_term(&st, INT64_MAX / 4, i);
	int64_t lo, hi;
	CHECK(!tb.overflow && !lin_bounds(&st, tb, &lo, &hi));
	CHECK(!prove_in_range(&st, tb, 0, INT64_MAX, NULL));
	arena_free(&a);
}

TEST(prove_view_diagnostics)
{
	Ctx *c = pt_ctx_new(NULL);
	SymTab st;
	symtab_init(&st, &c->arena);
	int tid = sym_new(&st, "tid", 0, 127, 1);
	/* float32 element offset tid*4 + 2: byte address 16*tid + 8 */
	Lin m = lin_add_const(&st, lin_term(&st, 4, tid), 2);
	CHECK(view_prove_aligned(c, NOSPAN, &st, m, 32, 8, "atom start"));
	CHECK(!ctx_has_errors(c));
	CHECK(!view_prove_aligned(c, NOSPAN, &st, m, 32, 16, "atom start"));
	CHECK_INT(c->diags ? c->diags->code : 0, PT_E_PROVE_ALIGN);
	CHECK(c->diags && strstr(c->diags->msg,
				 "cannot prove 16*tid + 8 is a multiple of 16")
				 != NULL);
	ctx_reset(c);
	symtab_init(&st, &c->arena);
	tid = sym_new(&st, "tid", 0, 127, 1);
	m = lin_term(&st, 4, tid);
	CHECK(view_prove_bounds(c, NOSPAN, &st, m, 0, 511, "row"));
	CHECK(!view_prove_bounds(c, NOSPAN, &st, m, 0, 500, "row"));
	CHECK_INT(c->diags ? c->diags->code : 0, PT_E_PROVE_BOUNDS);
	ctx_reset(c);
	symtab_init(&st, &c->arena);
	/* sub-byte elements count bits: fp4 offset 32*k is 16-byte aligned */
	int k = sym_new(&st, "k", 0, 9, 1);
	CHECK(view_prove_aligned(c, NOSPAN, &st, lin_term(&st, 32, k), 4, 16,
				 "fp4 row"));
	CHECK(!view_prove_aligned(c, NOSPAN, &st, lin_term(&st, 16, k), 4, 16,
				  "fp4 row"));
	CHECK_INT(c->diags ? c->diags->code : 0, PT_E_PROVE_ALIGN);
	pt_ctx_free(c);
}
