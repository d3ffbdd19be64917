/*
 * ewise.c - T.cuda.tile.ewise(function, dst, *inputs): one typed scalar
 * function evaluation per element (reference "Scalar function
 * application").
 *
 * Tensor operands are local registers of identical group/repeat shape
 * with no atom suffix; scalar inputs broadcast; zero-stride views are the
 * only tensor broadcasts.  Parameter and return dtypes match the inputs
 * and the destination exactly.  The body is scalar bindings, if/else and
 * returns, with a return on every path.  Lowering inlines the body per
 * element (lower.c).
 */
#include "tile/tile.h"

static bool check_block(TileEnv *e, const Func *fn, const Block *b,
			bool *returns);

static bool
check_stmt(TileEnv *e, const Func *fn, const Stmt *s, bool *returns)
{
	bool t = false, f = false;
	switch (s->kind) {
	case ST_VAR_DECL:
	case ST_ASSIGN:
		return true;
	case ST_RETURN:
		*returns = true;
		return true;
	case ST_IF:
		if (!check_block(e, fn, &s->u.cond.then, &t) ||
		    !check_block(e, fn, &s->u.cond.els, &f))
			return false;
		*returns = t && f;
		return true;
	default:
		return diag_error(e->c, PT_E_EWISE_BODY, s->span,
				  "ewise function %s: only scalar bindings, "
				  "if/else and return are supported (no "
				  "loops, stores or calls for effect)",
				  fn->name);
	}
}

static bool
check_block(TileEnv *e, const Func *fn, const Block *b, bool *returns)
{
	*returns = false;
	for (size_t i = 0; i < b->n; i++) {
		bool r = false;
		if (!check_stmt(e, fn, b->v[i], &r))
			return false;
		if (r) {
			*returns = true;
			return true; /* code after a return never runs */
		}
	}
	return true;
}

static bool
check_operand(TileEnv *e, TileCall *tc, TileOperand *op, DType want,
	      const char *what)
{
	Ctx *c = e->c;
	if (op->dtype != want)
		return diag_error(c, PT_E_EWISE_SIGNATURE, op->span,
				  "operand %d of ewise(%s) is %s, but %s is "
				  "%s", op->index, tc->fn->name,
				  dtype_name(op->dtype), what,
				  dtype_name(want));
	op->role = ROLE_REG;
	op->natom = 0;
	if (op->scalar)
		return true;
	return tile_shape_operand(e, tc, op) &&
	       tile_register_slots(e, tc, op);
}

bool
tile_check_ewise(TileEnv *e, TileCall *tc)
{
	Ctx *c = e->c;
	Func *fn = tc->fn;
	bool returns;
	if (fn->params.n != (size_t)(tc->nops - 1))
		return diag_error(c, PT_E_EWISE_ARITY, tc->span,
				  "ewise(%s) takes %zu input%s (the function's "
				  "parameters), found %d", fn->name,
				  fn->params.n, fn->params.n == 1 ? "" : "s",
				  tc->nops - 1);
	if (!check_block(e, fn, &fn->body, &returns))
		return false;
	if (!returns)
		return diag_error(c, PT_E_EWISE_BODY, fn->span,
				  "ewise function %s does not return a value "
				  "on every path", fn->name);
	TileOperand *dst = &tc->ops[0];
	dst->out = true;
	if (dst->scalar)
		return diag_error(c, PT_E_REG_SCALAR_DST, dst->span,
				  "the ewise destination must be a register "
				  "tensor, found a scalar expression");
	if (!check_operand(e, tc, dst, fn->ret, "the function's result"))
		return false;
	for (int i = 1; i < tc->nops; i++) {
		const Param *p = &fn->params.v[i - 1];
		const char *what = arena_printf(&c->arena, "parameter %s",
						p->var ? p->var->name : "?");
		if (!check_operand(e, tc, &tc->ops[i],
				   p->var ? p->var->dtype : DT_NONE, what))
			return false;
		tc->ops[i].ptx_op = -1;
	}
	dst->ptx_op = -1;
	tc->count = tile_repeat_count(tc);
	tc->form = arena_printf(&c->arena, "ewise(%s) inlined per element",
				fn->name);
	return tile_check_overlap(e, tc);
}
