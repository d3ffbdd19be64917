/*
 * Unit tests written against surviving mutants of tools/mutation_test.sh
 * (issue 19): each pins a condition of the contract code whose flipped
 * operator the other tests did not notice.  Expected verdicts come from
 * the PTX ISA and ptxas 13.0 (named per test), not from our own output.
 */
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "layout/layout.h"
#include "layout/view.h"
#include "ptx/ptx.h"
#include "test.h"
#include "tile_build.h"

/* elect.sync d|p, membermask: d is a .b32 register (PTX ISA, elect).
 * ptxas 13.0 rejects "elect.sync %rd1|%p1, 0xffffffff;" with a .b64 %rd1
 * ("Arguments mismatch") and accepts it with a .b32 %r1. */
TEST(contract_elect_pair_needs_b32_register)
{
	PtxArg r64 = {.kind = PTXOP_REG, .bits = 64};
	PtxArg r32 = {.kind = PTXOP_REG, .bits = 32};
	PtxArg pred = {.kind = PTXOP_PRED};
	PtxArg mask = {.kind = PTXOP_IMM, .has_value = true,
		       .value = 0xffffffffLL};
	PtxSel s;
	PtxArg ok[] = {r32, pred, mask};
	CHECK_INT(ptx_select("elect.sync", ok, 3, &s), PTXM_OK);
	PtxArg wide[] = {r64, pred, mask};
	CHECK(ptx_select("elect.sync", wide, 3, &s) != PTXM_OK);
	PtxArg two_preds[] = {pred, pred, mask};
	CHECK(ptx_select("elect.sync", two_preds, 3, &s) != PTXM_OK);
}

static const Span NOSPAN = {0, 0, 0};

static int
first_code(Ctx *c)
{
	return c->diags ? c->diags->code : 0;
}

/* A whole tensor view in c's arena (made again after each ctx_reset,
 * which frees the arena). */
static View *
tensor(Ctx *c, int bits, int64_t rows, int64_t cols)
{
	int64_t shape[] = {rows, cols};
	return view_tensor(c, NOSPAN, bits, shape, 2, NULL, 0, 0);
}

/* view.h: views have at most VIEW_MAX_DIMS dims; a reshape to more (or
 * to a negative count) is PT_E_VIEW_RANK before its layout is looked at
 * (the script front end stops such ranks earlier, E9006, so only the
 * library entry point reaches this check). */
TEST(contract_reshape_rank_bounds)
{
	Ctx *c = pt_ctx_new(NULL);
	int64_t ones[VIEW_MAX_DIMS + 1];
	for (int i = 0; i < VIEW_MAX_DIMS + 1; i++)
		ones[i] = 1;
	ones[VIEW_MAX_DIMS] = 512;
	View *v = tensor(c, 8, 32, 16);
	CHECK(v && !view_reshape(c, NOSPAN, v, ones, VIEW_MAX_DIMS + 1,
				 NULL));
	CHECK_INT(first_code(c), PT_E_VIEW_RANK);
	ctx_reset(c);
	v = tensor(c, 8, 32, 16);
	CHECK(v && !view_reshape(c, NOSPAN, v, ones, -1, NULL));
	CHECK_INT(first_code(c), PT_E_VIEW_RANK);
	ctx_reset(c);
	/* the largest rank is accepted: 63 ones and 512 */
	v = tensor(c, 8, 32, 16);
	CHECK(v && view_reshape(c, NOSPAN, v, ones + 1, VIEW_MAX_DIMS, NULL));
	CHECK_INT(first_code(c), 0);
	pt_ctx_free(c);
}

/* view_broadcast inserts before view dim pos, 0 <= pos <= nv (view.h):
 * pos == nv appends, pos == nv + 1 is PT_E_VIEW_RANK, and so is an
 * extent below 1. */
TEST(contract_broadcast_position_bounds)
{
	Ctx *c = pt_ctx_new(NULL);
	View *v = tensor(c, 32, 4, 8);
	View *b = v ? view_broadcast(c, NOSPAN, v, 2, 3) : NULL;
	CHECK(b && b->nv == 3 && b->vext[2] == 3 && b->readonly);
	CHECK_INT(first_code(c), 0);
	static const struct { int pos; int64_t ext; } bad[] = {
		{3, 3}, {-1, 3}, {0, 0},
	};
	for (size_t i = 0; i < countof(bad); i++) {
		ctx_reset(c);
		v = tensor(c, 32, 4, 8);
		CHECK(v && !view_broadcast(c, NOSPAN, v, bad[i].pos,
					   bad[i].ext));
		CHECK_INT(first_code(c), PT_E_VIEW_RANK);
	}
	pt_ctx_free(c);
}

/* lin_eval recomputes derived symbols from their definitions (the
 * counterexample search and its "gives row = ..." text use it): with
 * tid in [0, 127], tid // 8 and tid % 5 are fresh symbols; at tid = 43
 * they are 5 and 3 (43 = 5 * 8 + 3 = 8 * 5 + 3), and at x = -13 in
 * [-20, 20] floor division and floor modulo give -2 and 3
 * (-13 = -2 * 8 + 3).  Kills the layout/facts.c:165 mutant (seed 9),
 * which evaluated '/' as the swizzle and '%' as a division. */
TEST(contract_lin_eval_floordiv_mod)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	int tid = sym_new(&st, "tid", 0, 127, 1);
	int x = sym_new(&st, "x", -20, 20, 1);
	Lin q = lin_floordiv(&st, lin_sym(&st, tid), 8);
	Lin r = lin_mod(&st, lin_sym(&st, tid), 5);
	Lin qx = lin_floordiv(&st, lin_sym(&st, x), 8);
	Lin rx = lin_mod(&st, lin_sym(&st, x), 8);
	int64_t *vals = NEWN(&a, int64_t, st.syms.n + 1);
	vals[tid] = 43;
	vals[x] = -13;
	int64_t v = 0;
	CHECK(lin_eval(&st, q, vals, &v));
	CHECK_INT(v, 5);
	CHECK(lin_eval(&st, r, vals, &v));
	CHECK_INT(v, 3);
	CHECK(lin_eval(&st, qx, vals, &v));
	CHECK_INT(v, -2);
	CHECK(lin_eval(&st, rx, vals, &v));
	CHECK_INT(v, 3);
	arena_free(&a);
}

/* view.h: a region's extents are positive (PT_E_VIEW_BOUNDS): a slice of
 * extent 0 selects nothing, even where its start (0) and end (0) lie
 * inside the dim.  The script front end stops empty regions first
 * (E3130), so only the library entry point reaches this check.  Kills
 * the view.c:126 mutant (seed 11), which accepted extent 0. */
TEST(contract_slice_extent_positive)
{
	Ctx *c = pt_ctx_new(NULL);
	SymTab st;
	static const int64_t bad[] = {0, -1};
	for (size_t i = 0; i < countof(bad); i++) {
		ctx_reset(c);
		symtab_init(&st, &c->arena);
		View *v = tensor(c, 32, 4, 8);
		Lin start[2] = {lin_const(0), lin_const(0)};
		int64_t ext[2] = {bad[i], 8};
		bool drop[2] = {false, false};
		CHECK(v && !view_slice(c, NOSPAN, &st, v, start, ext, drop));
		CHECK_INT(first_code(c), PT_E_VIEW_BOUNDS);
	}
	/* extent 1 at the last row is the smallest region there is */
	ctx_reset(c);
	symtab_init(&st, &c->arena);
	View *v = tensor(c, 32, 4, 8);
	Lin start[2] = {lin_const(3), lin_const(0)};
	int64_t ext[2] = {1, 8};
	bool drop[2] = {false, false};
	View *s = v ? view_slice(c, NOSPAN, &st, v, start, ext, drop) : NULL;
	CHECK(s && s->vext[0] == 1 && s->vext[1] == 8);
	CHECK_INT(first_code(c), 0);
	pt_ctx_free(c);
}

static void
check_token_lengths(void *ud, const char *alt, int len)
{
	int *short_tokens = ud;
	for (int i = 0; i < len;) {
		int j = i + 1;
		while (j < len && alt[j] != '.')
			j++;
		*short_tokens += j == i + 1;
		i = j;
	}
}

/* Every qualifier token of the form tables (".global", ".v4") is a dot
 * and at least one character: no alternative holds an empty part ("..",
 * a trailing "."), which the selector could neither parse nor offer in
 * its "(`ld` takes ...)" hint.  ptx.c's collect_tokens skips one-byte
 * tokens; with this rule that skip never fires, which is why its
 * mutant (ptx.c:227 `j > i + 1` to `>=`, seed 11) is equivalent. */
TEST(contract_qualifier_tokens_are_words)
{
	int short_tokens = 0;
	for (int i = 0; i < ptx_form_count(); i++)
		ptx_form_each_alt(i, check_token_lengths, &short_tokens);
	CHECK_INT(short_tokens, 0);
}

/* lin_div_prepare keeps every term bound and every running sum within
 * +-2^60 (prove.h, LinDiv.ok: "far from overflow"), checking each term
 * before it is added.  Over x in [2^60, 2^60] and y in
 * [-(2^60 + 1), 0] the sums (2^60, then -1 and 2^60) stay near but y's
 * lower bound does not: declined.  Over x in [-5, 0] and an int64 y the
 * sum -5 + INT64_MIN would overflow (it was added before the check
 * until issue 19 round 5): declined without overflowing.  Over p in
 * [0, 2^60] and q in [0, 1] the upper sum 2^60 + 1 is far: declined.
 * Kills the lin.c:333 mutant (seed 11, `||` to `&&`; now lines 332
 * and 336), which went on when only one of a term's bounds, or one of
 * the two sums, was far. */
TEST(contract_lin_div_prepare_far_terms)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	const int64_t near = (int64_t)1 << 60;
	int x = sym_new(&st, "x", near, near, 1);
	int y = sym_new(&st, "y", -near - 1, 0, 1);
	LinDiv d;
	lin_div_prepare(&st, lin_add(&st, lin_sym(&st, x), lin_sym(&st, y)), 7,
			&d);
	CHECK(!d.ok);
	int u = sym_new(&st, "u", -5, 0, 1);
	int w = sym_new(&st, "w", INT64_MIN, INT64_MAX, 1);
	lin_div_prepare(&st, lin_add(&st, lin_sym(&st, u), lin_sym(&st, w)), 7,
			&d);
	CHECK(!d.ok);
	/* near terms whose upper sum 2^60 + 1 is not: declined */
	int p = sym_new(&st, "p", 0, near, 1);
	int q = sym_new(&st, "q", 0, 1, 1);
	lin_div_prepare(&st, lin_add(&st, lin_sym(&st, p), lin_sym(&st, q)), 7,
			&d);
	CHECK(!d.ok);
	/* within the envelope: u + x // 7 is exact per constant */
	lin_div_prepare(&st, lin_add(&st, lin_sym(&st, u), lin_sym(&st, x)), 7,
			&d);
	CHECK(d.ok && d.lo == near - 5 && d.hi == near);
	arena_free(&a);
}

/* view.h: a tensor has at most VIEW_MAX_DIMS dims, and exactly that many
 * is a tensor (a rank past it is PT_E_VIEW_RANK, like the reshape
 * above).  Kills the view.c:98 mutant (seed 12, `>` to `>=`), which
 * refused the largest rank. */
TEST(contract_tensor_rank_bounds)
{
	Ctx *c = pt_ctx_new(NULL);
	int64_t ones[VIEW_MAX_DIMS + 1];
	for (int i = 0; i < VIEW_MAX_DIMS + 1; i++)
		ones[i] = 1;
	View *v = view_tensor(c, NOSPAN, 32, ones, VIEW_MAX_DIMS, NULL, 0, 0);
	CHECK(v && v->ndim == VIEW_MAX_DIMS);
	CHECK_INT(first_code(c), 0);
	ctx_reset(c);
	CHECK(!view_tensor(c, NOSPAN, 32, ones, VIEW_MAX_DIMS + 1, NULL, 0, 0));
	CHECK_INT(first_code(c), PT_E_VIEW_RANK);
	pt_ctx_free(c);
}

/* view.h: a dtype view is PT_E_VIEW_DTYPE unless one width divides the
 * other; a width of 0 or below divides nothing (and would divide by
 * zero further on).  Kills the view.c:374 mutant (seed 12, `<=` to
 * `<`), which let a 0-bit view through. */
TEST(contract_dtype_view_width_positive)
{
	Ctx *c = pt_ctx_new(NULL);
	SymTab st;
	static const int bad[] = {0, -16, 24};
	for (size_t i = 0; i < countof(bad); i++) {
		ctx_reset(c);
		symtab_init(&st, &c->arena);
		View *v = tensor(c, 32, 4, 8);
		CHECK(v && !view_dtype(c, NOSPAN, &st, v, bad[i]));
		CHECK_INT(first_code(c), PT_E_VIEW_DTYPE);
	}
	/* 16 divides 32: a (4, 16) view of half words */
	ctx_reset(c);
	symtab_init(&st, &c->arena);
	View *v = tensor(c, 32, 4, 8);
	View *h = v ? view_dtype(c, NOSPAN, &st, v, 16) : NULL;
	CHECK(h && h->elem_bits == 16 && h->vext[1] == 16);
	CHECK_INT(first_code(c), 0);
	pt_ctx_free(c);
}

/* The PTX ISA's ldmatrix and stmatrix shapes: .m8n8 always with .b16,
 * the sm_100 shapes (.m16n16, .m8n16, .m16n8) with 8-bit element types.
 * The tile pattern takes .m8n8 .b16 only (ldmatrix.c check_form); as
 * every row of the form tables has .m8n8 exactly when it has .b16,
 * its test of the two is one test twice, which is why its mutant
 * (ldmatrix.c:37 `||` to `&&`, seed 12) is equivalent.  A row that
 * breaks the pairing fails here. */
TEST(contract_matrix_rows_pair_m8n8_with_b16)
{
	int rows = 0;
	for (int i = 0; i < ptx_form_count(); i++) {
		const PtxForm *f = ptx_form(i);
		if (f->family != PTXF_LDMATRIX && f->family != PTXF_STMATRIX)
			continue;
		rows++;
		bool m8n8 = strstr(f->tpl, ".m8n8 ") != NULL;
		const char *b16 = strstr(f->tpl, ".b16");
		CHECK_INT(m8n8, b16 != NULL && b16[4] == '\0');
	}
	CHECK_INT(rows, 7);
}

/* lin_equal (prove.h): the same constant, the same terms, and neither
 * form overflowed.  x + 1 and x + 2 differ in the constant only, x and
 * x + y in the term count only, and an overflowed x is no x.  Kills the
 * lin.c:140 mutants (seed 12, `||` to `&&`), which compared the terms
 * of such pairs and answered equal. */
TEST(contract_lin_equal)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	int x = sym_new(&st, "x", 0, 100, 1);
	int y = sym_new(&st, "y", 0, 100, 1);
	Lin lx = lin_sym(&st, x);
	CHECK(lin_equal(lin_add_const(&st, lx, 1), lin_add_const(&st, lx, 1)));
	CHECK(!lin_equal(lin_add_const(&st, lx, 1), lin_add_const(&st, lx, 2)));
	CHECK(!lin_equal(lx, lin_add(&st, lx, lin_sym(&st, y))));
	Lin ov = lx;
	ov.overflow = true;
	CHECK(!lin_equal(ov, lx));
	CHECK(!lin_equal(lx, ov));
	arena_free(&a);
}

/* layout.h, frag_layout: repeat= extents are in 1..1024 and all the
 * registers together (the atom's times every repeat) at most 2^20.  An
 * mma.sync D atom is 4 registers.  Kills the fragments.c:77 mutant
 * (seed 13, `||` to `&&`), which refused an extent past 1024 only once
 * the product before it had passed 2^20 and so took 1025 and
 * (1024, 1024, 2). */
TEST(contract_fragment_repeat_limits)
{
	Arena a;
	arena_init(&a, NULL);
	Layout *l;
	FragReq r;
	memset(&r, 0, sizeof r);
	r.kind = FRAG_MMA_SYNC, r.operand = 'D', r.shape = "m16n8k16";
	r.dtype = "float16", r.bits = 16;
	r.repeat[0] = 1024, r.nrepeat = 1;
	CHECK(frag_layout(&a, &r, &l) == NULL);
	r.repeat[0] = 1025;
	CHECK(frag_layout(&a, &r, &l) != NULL);
	/* 4 x 1024 x 256 = 2^20 registers: the largest */
	r.repeat[0] = 1024, r.repeat[1] = 256, r.nrepeat = 2;
	CHECK(frag_layout(&a, &r, &l) == NULL);
	r.repeat[1] = 1024, r.repeat[2] = 2, r.nrepeat = 3;
	CHECK(frag_layout(&a, &r, &l) != NULL);
	arena_free(&a);
}

/* The same limit on the last factor: 4 x 1024 x 512 = 2^21 registers.
 * The check used to run before each factor multiplied the product, so
 * the last factor went unchecked and this fragment was accepted. */
TEST(contract_fragment_repeat_limit_last_factor)
{
	Arena a;
	arena_init(&a, NULL);
	Layout *l;
	FragReq r;
	memset(&r, 0, sizeof r);
	r.kind = FRAG_MMA_SYNC, r.operand = 'D', r.shape = "m16n8k16";
	r.dtype = "float16", r.bits = 16;
	r.repeat[0] = 1024, r.repeat[1] = 512, r.nrepeat = 2;
	CHECK(frag_layout(&a, &r, &l) != NULL);
	arena_free(&a);
}

/* prove.h, LinDiv.ok: false for an overflowed form and for a divisor
 * past 2^60 (lin_div_const's sums are exact only within that bound).
 * Kills the lin.c:321 mutant (seed 13, `||` to `&&`), which declined
 * only when both held. */
TEST(contract_lin_div_prepare_declines_overflow_and_far_divisor)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	int x = sym_new(&st, "x", 0, 10, 1);
	LinDiv d;
	Lin ov = lin_sym(&st, x);
	ov.overflow = true;
	lin_div_prepare(&st, ov, 7, &d);
	CHECK(!d.ok);
	lin_div_prepare(&st, lin_sym(&st, x), ((int64_t)1 << 60) + 1, &d);
	CHECK(!d.ok);
	lin_div_prepare(&st, lin_sym(&st, x), (int64_t)1 << 60, &d);
	CHECK(d.ok && d.lo == 0 && d.hi == 10);
	arena_free(&a);
}

/* prove.h, lin_eval: a quotient symbol x/m (made by lin_div_prepare for
 * a multiple x of m) takes its value from x's, also when x is symbol 0.
 * x in {0, 4, 8, 12} divided by 8: the remainder part is 4*(x/4), which
 * is 8 at x = 8 whatever value the quotient's own slot holds.  Kills the
 * facts.c:152 mutant (seed 13, `>=` to `>`), which read symbol 0's
 * quotient from its own slot (396). */
TEST(contract_lin_eval_quotient_of_symbol_0)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	int x = sym_new(&st, "x", 0, 12, 4);
	CHECK_INT(x, 0);
	LinDiv d;
	lin_div_prepare(&st, lin_sym(&st, x), 8, &d);
	CHECK(d.ok && d.B.n == 1 && d.B.t[0].coef == 4);
	int q = d.B.t[0].sym;
	CHECK(q != x && sym_get(&st, q)->quot_of == x);
	int64_t vals[2] = {8, 99}, v = -1;
	CHECK(lin_eval(&st, d.B, vals, &v));
	CHECK_INT(v, 8);
	arena_free(&a);
}

/* tile.h: symbol 0 of a kernel's TileEnv is cta_x (cluster launches) or
 * the lane, both of multiple 1, so no quotient symbol of it exists
 * (lin.c makes x/m only for multiples m > 1, and the one later change
 * of a multiple, symshape.c's assume_stride, touches T.dynamic sizes
 * alone).  bounds.c's mark_free tests `quot_of >= 0`; its `> 0` mutant
 * (seed 13, bounds.c:127) differs only for a quotient of symbol 0 and is
 * equivalent while this holds. */
TEST(contract_tile_env_symbol_0_is_no_multiple)
{
	for (int cluster = 0; cluster < 2; cluster++) {
		TB b;
		tb_init(&b, 128, cluster, 2);
		TileEnv e;
		tile_env_init(&e, b.c, b.m, b.f);
		const Sym *s = sym_get(&e.st, 0);
		CHECK_STR(s->name, cluster ? "cta_x" : "lane");
		CHECK_INT(s->mult, 1);
		CHECK_INT(s->quot_of, -1);
		tb_free(&b);
	}
}

/* prove.h, prove_nonneg: at most three facts (FACT_DEPTH).  Over s0..s4
 * in [-100, 100] with the chain s_{i+1} - s_i >= 0, s3 - s0 >= 0 takes
 * three facts and is proved; s4 - s0 >= 0 is true as well but takes
 * four, and is not proved: a limitation that bounds the search, not a
 * wanted answer.  Kills the facts.c:77 mutant (seed 15, `depth == 0 ||
 * g.overflow` to `&&`), which searched past depth 0 and proved it. */
TEST(contract_prove_nonneg_at_most_three_facts)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	static const char *const names[] = {"s0", "s1", "s2", "s3", "s4"};
	int s[5];
	for (int i = 0; i < 5; i++)
		s[i] = sym_new(&st, names[i], -100, 100, 1);
	for (int i = 0; i < 4; i++)
		fact_push(&st, lin_sub(&st, lin_sym(&st, s[i + 1]),
				       lin_sym(&st, s[i])));
	Lin s0 = lin_sym(&st, s[0]);
	CHECK(prove_nonneg(&st, lin_sub(&st, lin_sym(&st, s[3]), s0)));
	CHECK(!prove_nonneg(&st, lin_sub(&st, lin_sym(&st, s[4]), s0)));
	arena_free(&a);
}

/* layout.h, frag_layout: warps= holds at most 32 warps in all (a
 * 1024-thread block): (32,) and (4, 8) are layouts, (33,) and (4, 9)
 * are not.  Kills the fragments.c:66 mutant (seed 15, `w > 32` to
 * `>=`), which refused exactly 32 warps. */
TEST(contract_fragment_warps_at_most_32)
{
	Arena a;
	arena_init(&a, NULL);
	Layout *l;
	FragReq r;
	memset(&r, 0, sizeof r);
	r.kind = FRAG_MMA_SYNC, r.operand = 'D', r.shape = "m16n8k16";
	r.dtype = "float16", r.bits = 16;
	r.warps[0] = 32, r.nwarps = 1;
	CHECK(frag_layout(&a, &r, &l) == NULL);
	r.warps[0] = 33;
	CHECK(frag_layout(&a, &r, &l) != NULL);
	r.warps[0] = 4, r.warps[1] = 8, r.nwarps = 2;
	CHECK(frag_layout(&a, &r, &l) == NULL);
	r.warps[1] = 9;
	CHECK(frag_layout(&a, &r, &l) != NULL);
	arena_free(&a);
}

/* layout.h, ComposeLayout(sw_m, sw_b, sw_s, inner): each parameter is at
 * least 0, and 0 bits (sw_b = 0) is the identity swizzle, mode none
 * (layout_swizzle_mode); (3, 0, 3) and (0, 0, 0) over 64 elements are
 * layouts, (3, -1, 3) is not.  Kills the layout.c:405 mutant (seed 15,
 * `sw_b < 0` to `<=`), which refused sw_b = 0. */
TEST(contract_swizzle_of_zero_bits_is_a_layout)
{
	Ctx *c = pt_ctx_new(NULL);
	LayoutIter s64[] = {{64, 1, AX_M}};
	int64_t sh64[] = {64};
	Layout *in = layout_make(&c->arena, s64, 1, NULL, 0, NULL, 0);
	CHECK(layout_check(c, NOSPAN, layout_compose(&c->arena, 3, 0, 3, in),
			   sh64, 1, 0));
	CHECK(layout_check(c, NOSPAN, layout_compose(&c->arena, 0, 0, 0, in),
			   sh64, 1, 0));
	CHECK(!ctx_has_errors(c));
	CHECK(!layout_check(c, NOSPAN, layout_compose(&c->arena, 3, -1, 3, in),
			    sh64, 1, 0));
	CHECK_INT(first_code(c), PT_E_LAYOUT_SWIZZLE);
	pt_ctx_free(c);
}

/* prove.h: a product with an overflowed factor is overflowed, also when
 * that factor is a constant (INT64_MAX + 1, wrapped to INT64_MIN): its
 * value is unknown, whatever the other factor.  Kills the lin.c:390
 * mutant (seed 15, `a.overflow || b.overflow` to `&&`), which scaled x
 * by the wrapped constant and gave the sound-looking form INT64_MIN*x. */
TEST(contract_lin_mul_overflowed_constant_factor)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	int x = sym_new(&st, "x", 0, 1, 1);
	Lin big = lin_add_const(&st, lin_const(INT64_MAX), 1);
	CHECK(big.overflow && big.n == 0);
	CHECK(lin_mul(&st, big, lin_sym(&st, x)).overflow);
	CHECK(lin_mul(&st, lin_sym(&st, x), big).overflow);
	CHECK(!lin_mul(&st, lin_const(3), lin_sym(&st, x)).overflow);
	arena_free(&a);
}

/* prove.h, lin_eval: a swizzle symbol (view.c's swizzle_unit, `by` =
 * sw_b << 8 | sw_s) is recomputed from its unit index while sw_b and
 * sw_s are at most 30; past that lin_eval declines, a bound that keeps
 * the mask's shifts far inside int64.  ComposeLayout allows sw_s up to
 * 40 (sw_m + sw_b + sw_s <= 40), so this is a limitation for layouts
 * of more than 2^31 units, not a wanted answer.  Unit index u = 2^30 + 4
 * with one bit at shift 30: f(u) = u ^ 1; at shift 31, declined.
 * Kills the facts.c:171 mutant (seed 15, `sw_b > 30 || sw_s > 30` to
 * `&&`), which evaluated shift 31 (sw_b <= 20 for every valid layout,
 * so `&&` never declined), and its `sw_b >= 30` sibling, which declined
 * 30 bits (only the library reaches that many). */
TEST(contract_lin_eval_swizzle_shift_limit)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	const int64_t hi = (int64_t)1 << 40;
	int u = sym_new(&st, "u", 0, hi, 1);
	int s30 = sym_derived(&st, 'x', lin_sym(&st, u), 1 << 8 | 30, 0, hi);
	int s31 = sym_derived(&st, 'x', lin_sym(&st, u), 1 << 8 | 31, 0, hi);
	int64_t *vals = NEWN(&a, int64_t, st.syms.n + 1);
	vals[u] = ((int64_t)1 << 30) + 4;
	int64_t v = 0;
	CHECK(lin_eval(&st, lin_sym(&st, s30), vals, &v));
	CHECK_INT(v, ((int64_t)1 << 30) + 5);
	CHECK(!lin_eval(&st, lin_sym(&st, s31), vals, &v));
	/* 30 bits at shift 30: bit 30 of u = 2^30 + 5 flips bit 0 */
	int b30 = sym_derived(&st, 'x', lin_sym(&st, u), 30 << 8 | 30, 0, hi);
	vals = NEWN(&a, int64_t, st.syms.n + 1);
	vals[u] = ((int64_t)1 << 30) + 5;
	CHECK(lin_eval(&st, lin_sym(&st, b30), vals, &v));
	CHECK_INT(v, ((int64_t)1 << 30) + 4);
	arena_free(&a);
}

/* One group of a form template: its tag (0 if none), whether it is
 * optional, and its alternatives' text (a literal is one alternative). */
typedef struct TplGroup {
	char tag;
	bool optional;
	const char *alts;
	int len;
} TplGroup;

static int
tpl_split(const char *t, TplGroup *g, int max)
{
	int n = 0;
	while (*t && n < max) {
		if (*t == ' ') {
			t++;
			continue;
		}
		TplGroup *gr = &g[n++];
		memset(gr, 0, sizeof *gr);
		if (*t != '{' && *t != '.')
			gr->tag = *t++;
		if (*t == '{') {
			const char *e = strchr(t, '}');
			if (!e)
				return -1;
			gr->alts = t + 1;
			gr->len = (int)(e - t - 1);
			t = e + 1;
			gr->optional = *t == '?';
			t += gr->optional;
		} else {
			gr->alts = t;
			while (*t && *t != ' ' && *t != '{')
				t++;
			gr->len = (int)(t - gr->alts);
		}
	}
	return n;
}

/* Whether the alternative a (length l) is one of g's. */
static bool
group_has(const TplGroup *g, const char *a, int l)
{
	for (const char *p = g->alts, *end = g->alts + g->len; p < end;) {
		const char *q = memchr(p, ',', (size_t)(end - p));
		int n = (int)((q ? q : end) - p);
		if (n == l && strncmp(p, a, (size_t)l) == 0)
			return true;
		p += n + 1;
	}
	return false;
}

/* The form tables' optional tagged groups are vector (v) and space (s)
 * groups only, and no other group of the row shares an alternative with
 * one: so a left-out tagged group never keeps the length of a failed
 * attempt.  form.c's take_tags skips a group with no chosen
 * alternative; its mutant (form.c:187 `||` to `&&`, seed 15) then
 * computes NULL + 1 with length -1 and stores the zeroes already there,
 * which is why it is argued equivalent where defined (docs/limits.md,
 * round 8).  A row that breaks this rule would need that argument
 * redone. */
TEST(contract_optional_tagged_groups_are_v_or_s_and_unshared)
{
	int bad = 0, optional_tagged = 0;
	for (int i = 0; i < ptx_form_count(); i++) {
		TplGroup g[32];
		int n = tpl_split(ptx_form(i)->tpl, g, 32);
		CHECK(n >= 0 && n < 32);
		for (int j = 0; j < n; j++) {
			if (!g[j].tag || !g[j].optional)
				continue;
			optional_tagged++;
			bad += g[j].tag != 'v' && g[j].tag != 's';
			for (const char *p = g[j].alts, *end = p + g[j].len;
			     p < end;) {
				const char *q =
					memchr(p, ',', (size_t)(end - p));
				int l = (int)((q ? q : end) - p);
				for (int k = 0; k < n; k++)
					bad += k != j && group_has(&g[k], p, l);
				p += l + 1;
			}
		}
	}
	CHECK_INT(bad, 0);
	CHECK(optional_tagged > 100); /* the parse found them */
}

/* ptx.c's qualifier hint never offers a row that only a call block
 * fills (row_for_scripts: operands `&` or a leading `c`, after an
 * optional `>`): `call` has one row, `>c:b32*1,=vprintf,c:b64*2`, so
 * the hint for `call.unx` names no qualifier, while the one for
 * `ld.glob` offers `.global`.  Kills the ptx.c:245 mutant (seed 16,
 * `*p == '>'` to `!=`), which looked past the first character of each
 * operand and offered `.uni`. */
TEST(contract_qualifier_hint_skips_call_block_rows)
{
	Ctx *c = pt_ctx_new(NULL);
	PtxSel s;
	PtxMiss why = ptx_select("call.unx", NULL, 0, &s);
	CHECK_INT(why, PTXM_QUALIFIERS);
	CHECK(!ptx_select_report(c, why, &s, 0, NOSPAN));
	CHECK_INT(first_code(c), PT_E_PTX_BAD_QUALIFIER);
	CHECK(c->diags && strstr(c->diags->msg, "(`call` takes)") != NULL);
	CHECK(c->diags && strstr(c->diags->msg, ".uni") == NULL);
	pt_ctx_free(c);
	c = pt_ctx_new(NULL);
	why = ptx_select("ld.glob.u32", NULL, 0, &s);
	CHECK_INT(why, PTXM_QUALIFIERS);
	CHECK(!ptx_select_report(c, why, &s, 0, NOSPAN));
	CHECK(c->diags &&
	      strstr(c->diags->msg, "did you mean `.global`") != NULL);
	pt_ctx_free(c);
}

/* prove_counterexample's local search moves to the first candidate of
 * its list (the interval's ends, 0, 1, halving, neighbours, steps,
 * doubling) with the lowest score.  With i in [0, 127], the fact
 * i - 1 >= 0 and g = i - 200 (negative everywhere), the start i = 0
 * breaks the fact (score 1); hi = 127 and 1 both score 0, and hi comes
 * first: "i=127" (worked out by hand).  Kills the layout/facts.c:256
 * mutant (seed 16, `score < *best` to `<=`), which took the last tie
 * (i = 1): as valid a witness, but not the documented order. */
TEST(contract_counterexample_takes_first_best_candidate)
{
	Arena a;
	arena_init(&a, NULL);
	SymTab st;
	symtab_init(&st, &a);
	int i = sym_new(&st, "i", 0, 127, 1);
	fact_push(&st, lin_add_const(&st, lin_sym(&st, i), -1));
	int64_t *vals = NULL;
	const char *cex = prove_counterexample(
		&st, lin_add_const(&st, lin_sym(&st, i), -200), &vals);
	CHECK(cex != NULL);
	if (cex)
		CHECK_STR(cex, "i=127");
	arena_free(&a);
}
