/*
 * explain.c - `ptxtile explain FILE`: per tile call, the family, the
 * resolved form, each operand's group/repeat/atom shape and storage, and
 * the number of instructions (ewise: scalar evaluations) it expands to
 * per issuing thread.
 *
 * Input: a module after check_module (its TileProgram).  Output: text,
 * one block per call in program order.
 */
#include "tile/tile.h"

static void
put_dims(StrBuf *b, const int64_t *x, int n)
{
	sb_putc(b, '(');
	for (int i = 0; i < n; i++)
		sb_printf(b, i ? ", %lld" : "%lld", (long long)x[i]);
	if (n == 1)
		sb_putc(b, ',');
	sb_putc(b, ')');
}

static const char *const group_names[] = {
	[GK_CTA_Z] = "cta_z", [GK_CTA_Y] = "cta_y", [GK_CTA_X] = "cta_x",
	[GK_WARP] = "warp", [GK_WARP_IN_WG] = "warp_in_group",
	[GK_LANE] = "lane",
};

static void
put_operand(StrBuf *b, const TileCall *tc, const TileOperand *op)
{
	sb_printf(b, "  operand %d: ", op->index);
	if (op->scalar) {
		sb_printf(b, "scalar %s, reused at every repeat\n",
			  dtype_name(op->dtype));
		return;
	}
	sb_printf(b, "%s %s %s%s, group ",
		  op->out ? "out" : "in", op->root->name,
		  dtype_name(op->dtype),
		  op->role == ROLE_MEM
			  ? arena_printf(b->arena, " (%s memory)",
					 memscope_name(op->root->scope))
			  : " (registers)");
	int ng = op->no_group ? 0 : tc->ngroup;
	put_dims(b, op->ext, ng);
	/* the operand's own repeat axes (mma.sync A/B repeat over K) */
	sb_puts(b, " repeat ");
	put_dims(b, op->ext + ng, op->rank - ng - tile_atom_axes(op));
	sb_puts(b, " atom ");
	put_dims(b, op->ext + op->rank - tile_atom_axes(op),
		 tile_atom_axes(op));
	sb_putc(b, '\n');
}

const char *
explain_module(Ctx *c, const Module *m, const TileProgram *p)
{
	StrBuf b;
	sb_init(&b, &c->arena);
	for (size_t i = 0; i < p->calls.n; i++) {
		const TileCall *tc = p->calls.v[i];
		int line = 0, col = 0;
		const char *file = "?";
		if (tc->span.file) {
			ctx_line_col(c, tc->span.file, tc->span.lo, &line, &col);
			file = c->files.v[tc->span.file - 1].name;
		}
		sb_printf(&b, "%s:%d:%d: %s family (%s), scope=%s\n", file,
			  line, col, tc->fam ? tc->fam->name : "?",
			  tc->fam ? tc->fam->file : "?",
			  execscope_name(tc->scope));
		if (!tc->ok) {
			/* the diagnostic says why; the other calls still
			 * get their explanation */
			sb_puts(&b, "  rejected: see the error for this line\n");
			continue;
		}
		sb_printf(&b, "  form: %s\n", tc->form ? tc->form : "?");
		sb_puts(&b, "  groups: ");
		if (tc->ngroup == 0)
			sb_puts(&b, "none");
		for (int g = 0; g < tc->ngroup; g++)
			sb_printf(&b, "%s%s[%lld..%lld]", g ? ", " : "",
				  group_names[tc->group[g].kind],
				  (long long)tc->group[g].lo,
				  (long long)(tc->group[g].lo +
					      tc->group[g].ext - 1));
		sb_putc(&b, '\n');
		for (int k = 0; k < tc->nops; k++)
			put_operand(&b, tc, &tc->ops[k]);
		if (tc->pred)
			sb_printf(&b, "  pred: yes%s\n",
				  tc->preserve_dst ? ", preserve_dst" : "");
		if (tc->note)
			sb_puts(&b, tc->note);
		sb_printf(&b, "  expands to %lld %s per issuing thread\n",
			  (long long)tc->count,
			  tc->fn ? "scalar evaluations" : "instructions");
	}
	for (size_t i = 0; i < m->funcs.n; i++) {
		const Func *f = m->funcs.v[i];
		for (size_t k = 0; k < f->assume.n; k++)
			sb_printf(&b, "kernel %s assumes %s %% %lld == 0 (a "
				  "row stride it aligns; checked at launch, "
				  "E5020)\n", f->name, f->assume.v[k].var->name,
				  (long long)f->assume.v[k].multiple_of);
	}
	return sb_cstr(&b);
}
