/*
 * select.c - resolving a tile call's PTX form: the spelling through the
 * PTX table (src/ptx), then, among the table rows that accept the same
 * spelling (2- and 3-input min/max, mov scalar/pack/unpack), the one whose
 * operand list matches the supplied operands: their number and, for
 * register groups, the group length and element width.  The layout is
 * never consulted; the operands the caller wrote decide.
 *
 * Input: the TileCall (opcode, resolved operands) and the number of
 * trailing PTX operands that parameters supply (cache-policy).
 * Output: tc->inst set to the selected row, or a diagnostic.
 */
#include <string.h>

#include "tile.h"

/* Registers one PTX operand takes: a group's length, else 1. */
static int
op_regs(const PtxOperand *o)
{
	return o->kind == PTXOP_VEC ? o->vec : 1;
}

/* The PTX operands the caller supplies (all but parameter-filled). */
static int
supplied_ops(const PtxInst *in, int from_params)
{
	return in->nops - from_params;
}

static bool
compatible(const TileCall *tc, const PtxInst *in)
{
	for (int i = 0; i < tc->nops; i++) {
		const TileOperand *t = &tc->ops[i];
		const PtxOperand *o = &in->ops[i];
		if (o->kind == PTXOP_ADDR)
			continue;
		if (t->scalar) {
			if (op_regs(o) != 1 || o->out)
				return false;
			continue;
		}
		if (t->rank < 1 || t->ext[t->rank - 1] != op_regs(o))
			return false;
		if (o->type != PTY_NONE &&
		    tile_ptx_type_bits(o->type) != t->bits)
			return false;
	}
	return true;
}

bool
tile_select_form(TileEnv *e, TileCall *tc, int from_params)
{
	Ctx *c = e->c;
	const char *quals = tc->inst.spelling + strlen(tc->inst.mnemonic);
	PtxInst best, cand;
	bool have_count = false, have_best = false;
	StrBuf counts;
	sb_init(&counts, &c->arena);
	for (int i = 0; i < ptx_form_count() && !have_best; i++) {
		const PtxForm *f = ptx_form(i);
		if (strcmp(f->mnemonic, tc->inst.mnemonic) != 0 ||
		    !ptx_form_match(i, quals, &cand))
			continue;
		int n = supplied_ops(&cand, from_params);
		if (n != tc->nops) {
			sb_printf(&counts, "%s%d", counts.n ? " or " : "", n);
			continue;
		}
		cand.spelling = tc->inst.spelling;
		cand.mnemonic = tc->inst.mnemonic;
		if (compatible(tc, &cand)) {
			best = cand;
			have_best = true;
		} else if (!have_count) {
			best = cand;
		}
		have_count = true;
	}
	if (!have_count)
		return diag_error(c, PT_E_TILE_OPERAND_COUNT, tc->span,
				  "%s takes %s operand%s (%s), found %d",
				  tc->inst.spelling,
				  counts.n ? sb_cstr(&counts) : "other",
				  strcmp(sb_cstr(&counts), "1") ? "s" : "",
				  ptx_describe_operands(&c->arena, &tc->inst),
				  tc->nops);
	/* let the PTX table re-select the same row by operand kinds, which
	 * also fills its target gate */
	PtxArg *args = NEWN(&c->arena, PtxArg, best.nops + 1);
	for (int i = 0; i < best.nops; i++) {
		args[i].kind = best.ops[i].kind;
		args[i].vec = best.ops[i].vec;
		if (best.ops[i].kind == PTXOP_IMM) {
			args[i].kind = PTXOP_IMM;
			args[i].has_value = false;
		}
	}
	PtxInst sel = tc->inst;
	if (ptx_check_args(c, &sel, args, best.nops, tc->span))
		best = sel;
	tc->inst = best;
	tc->form = arena_printf(&c->arena, "%s  %s", tc->inst.spelling,
				ptx_describe_operands(&c->arena, &tc->inst));
	return true;
}

bool
tile_select_form_args(TileEnv *e, TileCall *tc, const PtxArg *args, int n)
{
	Ctx *c = e->c;
	PtxInst sel = tc->inst;
	if (!ptx_check_args(c, &sel, args, n, tc->span))
		return false;
	/* keep the spelling as written; take the matched row's operands */
	sel.spelling = tc->inst.spelling;
	sel.mnemonic = tc->inst.mnemonic;
	tc->inst = sel;
	tc->form = arena_printf(&c->arena, "%s  %s", tc->inst.spelling,
				ptx_describe_operands(&c->arena, &tc->inst));
	return ptx_check_target(c, &tc->inst, tc->span);
}
