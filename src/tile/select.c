/*
 * select.c - resolving a tile call's PTX form through the one selector,
 * ptx_select (src/ptx): among the table rows that accept the spelling
 * (2- and 3-input min/max, mov scalar/pack/unpack), the first whose
 * operand list the supplied operands fill: their number and, for
 * register groups, the group length and element width.  The layout is
 * never consulted; the operands the caller wrote decide.
 *
 * Input: the TileCall (opcode, resolved operands) and the number of
 * trailing PTX operands that parameters supply (cache-policy).
 * Output: tc->inst set to the selected row, or a diagnostic.
 */
#include <string.h>

#include "tile/tile.h"

/* What a tile operand stands for in the selection: a memory operand or
 * scalar fills an address operand; a register group of n elements a
 * group of n registers of its width (one register when n is 1); a
 * scalar one register, immediate or predicate.  Each fills exactly one
 * PTX operand. */
static PtxArg
operand_arg(const TileOperand *t)
{
	PtxArg a = {0};
	a.one = true;
	a.also = PTX_KIND(PTXOP_ADDR);
	int n = t->scalar ? 1 : t->rank < 1 ? 0 : (int)t->ext[t->rank - 1];
	a.kind = n == 1 ? PTXOP_REG : PTXOP_VEC;
	a.vec = n;
	a.bits = t->scalar ? 0 : t->bits == 8 ? 16 : t->bits;
	if (n == 1)
		a.also |= PTX_KIND(PTXOP_IMM) | PTX_KIND(PTXOP_PRED);
	return a;
}

static void
record_form(Ctx *c, TileCall *tc, const PtxInst *in)
{
	/* keep the spelling as written; take the matched row's operands */
	const char *spelling = tc->inst.spelling, *mnemonic = tc->inst.mnemonic;
	tc->inst = *in;
	tc->inst.spelling = spelling;
	tc->inst.mnemonic = mnemonic;
	tc->form = arena_printf(&c->arena, "%s  %s", tc->inst.spelling,
				ptx_describe_operands(&c->arena, &tc->inst));
}

/* "2 or 3": the operand counts of the rows, less the parameter ones. */
static const char *
count_list(Ctx *c, uint32_t counts, int from_params, bool *plural)
{
	StrBuf b;
	sb_init(&b, &c->arena);
	*plural = false;
	for (int n = from_params; n < 32; n++)
		if (counts >> n & 1u) {
			sb_printf(&b, "%s%d", b.n ? " or " : "",
				  n - from_params);
			*plural |= n - from_params != 1;
		}
	return b.n ? sb_cstr(&b) : "other";
}

static const struct {
	const char *spelling;
	PtxFamily family;
} helpers[] = {
#define HELPER(id, spelling, family) {spelling, PTXF_##family},
#include "tile/helpers.def"
#undef HELPER
};

const PtxInst *
tile_helper(Ctx *c, TileHelper h)
{
	PT_ASSERT(h >= 0 && h < TH_COUNT);
	PtxSel *s = NEW(&c->arena, PtxSel);
	/* a table fact, proved by tile_helpers_name_rows */
	PtxMiss why = ptx_select(helpers[h].spelling, NULL, -1, s);
	PT_ASSERT(why == PTXM_OK);
	(void)why;
	return &s->inst;
}

PtxFamily
tile_helper_family(TileHelper h)
{
	PT_ASSERT(h >= 0 && h < TH_COUNT);
	return helpers[h].family;
}

bool
tile_select_form(TileEnv *e, TileCall *tc, int from_params)
{
	Ctx *c = e->c;
	int n = tc->nops + from_params;
	PtxArg *args = NEWN(&c->arena, PtxArg, n + 1);
	for (int i = 0; i < tc->nops; i++)
		args[i] = operand_arg(&tc->ops[i]);
	for (int i = tc->nops; i < n; i++)
		args[i].any = true;
	PtxSel s;
	PtxMiss why = ptx_select(tc->inst.spelling, args, n, &s);
	if (why == PTXM_OPERAND_COUNT) {
		bool plural;
		const char *counts =
			count_list(c, s.counts, from_params, &plural);
		return diag_error(c, PT_E_TILE_OPERAND_COUNT, tc->span,
				  "%s takes %s operand%s (%s), found %d",
				  tc->inst.spelling, counts, plural ? "s" : "",
				  ptx_describe_operands(&c->arena, &tc->inst),
				  tc->nops);
	}
	if (why != PTXM_OK) {
		/* the first row of the right count; the family checker names
		 * the operand that does not fit it */
		for (int i = 0; i < n; i++)
			args[i].any = true;
		why = ptx_select(tc->inst.spelling, args, n, &s);
	}
	if (why != PTXM_OK)
		return ptx_select_report(c, why, &s, n, tc->span);
	record_form(c, tc, &s.inst);
	return true;
}

bool
tile_select_form_args(TileEnv *e, TileCall *tc, const PtxArg *args, int n)
{
	Ctx *c = e->c;
	PtxSel s;
	PtxMiss why = ptx_select(tc->inst.spelling, args, n, &s);
	if (why != PTXM_OK)
		return ptx_select_report(c, why, &s, n, tc->span);
	record_form(c, tc, &s.inst);
	return ptx_check_target(c, &tc->inst, tc->span);
}
