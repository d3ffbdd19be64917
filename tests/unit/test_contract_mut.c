/*
 * Unit tests written against surviving mutants of tools/mutation_test.sh
 * (issue 19): each pins a condition of the contract code whose flipped
 * operator the other tests did not notice.  Expected verdicts come from
 * the PTX ISA and ptxas 13.0 (named per test), not from our own output.
 */
#include <stdio.h>

#include "base/base.h"
#include "layout/layout.h"
#include "layout/view.h"
#include "ptx/ptx.h"
#include "test.h"

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
