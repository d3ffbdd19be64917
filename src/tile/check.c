/*
 * check.c - check_module: walks every kernel in program order, validates
 * raw T.ptx calls against the PTX form table and every tile call against
 * its family contract, and records each tile call's result on the module
 * (the TileProgram it returns) for lower.c and explain.c.  It selects the
 * form of every raw call and of every builtin's gated instruction
 * (builtin_forms.def), in kernels and scalar functions, so codegen only
 * prints.
 *
 * Input: a lowered module and ctx->target.  Output: diagnostics; the
 * TileCall records.  The walk tracks what the contract needs from the
 * context: loop ranges, guards on hardware ids (env.c) and which buffers
 * were written before a call (preserve_dst).
 */
#include <string.h>

#include "tile/tile.h"

/* The tile families, indexed by PtxFamily, from the family table: a RAW
 * row has no checker. */
static const TileFamily families[] = {
#define TILE(check, file, params) file, check, params
#define RAW NULL, NULL, 0
#define FAMILY_ROW(id, name, file, check, params)                          \
	[PTXF_##id] = {name, file, PTXF_##id, check, params},
#define PFAM(id, name, contract) FAMILY_ROW(id, name, contract)
#include "ptx/families.def"
#undef PFAM
#undef FAMILY_ROW
#undef RAW
#undef TILE
};

/* ewise has no PTX opcode: its scalar function is the instruction. */
static const TileFamily ewise_family = {"ewise", "ewise.c", -1,
					tile_check_ewise, 0};

const TileFamily *
tile_family_of_ptx(int ptx_family)
{
	if (ptx_family < 0 || (size_t)ptx_family >= countof(families) ||
	    !families[ptx_family].check)
		return NULL;
	return &families[ptx_family];
}

const TileFamily *
tile_family_ewise(void)
{
	return &ewise_family;
}

static TileCall *
new_call(TileEnv *e, Expr *call, ExecScope scope)
{
	TileCall *tc = NEW(&e->c->arena, TileCall);
	tc->call = call;
	tc->span = call->span;
	tc->scope = scope;
	/* the call node carries its record to the lowering */
	if (call->kind == EX_TILE_APPLY)
		call->u.apply.tile = tc;
	else
		call->u.ewise.tile = tc;
	tc->prog = e->prog;
	vec_push(&e->c->arena, &e->prog->calls, tc);
	return tc;
}

static void
add_operand(TileEnv *e, TileCall *tc, int i, Expr *x)
{
	TileOperand *op = &tc->ops[i];
	op->index = i;
	op->expr = x;
	op->span = x->span.file ? x->span : tc->span;
	op->ptx_op = -1;
}

/* TMA resolves its own operands: its global side is described by the
 * tensor's dimensions (symbolic on any axis, encoded by the host), never
 * addressed through a view. */
static bool
resolve_operands(TileEnv *e, TileCall *tc)
{
	if (tc->inst.family == PTXF_TMA || tc->inst.family == PTXF_TMA_REDUCE)
		return true;
	for (int i = 0; i < tc->nops; i++)
		if (!tile_resolve_operand(e, &tc->ops[i]))
			return false;
	return true;
}

/* A memory destination (cp.async, bulk copy, TMA, ...) is written at
 * every repeat: a zero-stride broadcast view there would have several
 * repeats store to one address.  Register destinations are checked by
 * tile_check_overlap. */
static bool
check_mem_writable(TileEnv *e, const TileCall *tc)
{
	for (int i = 0; i < tc->nops; i++) {
		const TileOperand *op = &tc->ops[i];
		if (!op->out || op->scalar || op->role != ROLE_MEM ||
		    !op->view || !op->view->readonly)
			continue;
		const char *what = arena_printf(&e->c->arena, "operand %d (%s)",
						op->index, op->root->name);
		if (!view_check_writable(e->c, op->span, op->view, what))
			return false;
	}
	return true;
}

/* ---- builtins ---- */

/* A builtin's instruction forms are selected here, for codegen to
 * print (ir_select_builtin); a node selected already (a scalar
 * function's, seen again as an ewise body) keeps its forms. */
static void
select_builtin(void *ud, Expr *x)
{
	if (x->kind == EX_BUILTIN && !x->u.call.forms)
		ir_select_builtin(ud, x);
}

/* The builtins of f's body, a kernel's or a scalar function's (an
 * ewise body is inlined into the kernel after the check: its copies
 * carry these selections). */
static void
select_builtins(Ctx *c, Func *f)
{
	ir_visit_block(&f->body, select_builtin, c);
}

TileCall *
tile_check_apply(TileEnv *e, Expr *call)
{
	Ctx *c = e->c;
	TileCall *tc = new_call(e, call, call->u.apply.scope);
	tc->nops = (int)call->u.apply.operands.n;
	tc->ops = NEWN(&c->arena, TileOperand, tc->nops + 1);
	for (int i = 0; i < tc->nops; i++)
		add_operand(e, tc, i, call->u.apply.operands.v[i]);
	Span osp = call->u.apply.opcode_span;
	if (!ptx_parse(c, call->u.apply.opcode, osp.file ? osp : call->span,
		       &tc->inst))
		return tc;
	tc->fam = tile_family_of_ptx(tc->inst.family);
	if (!tc->fam || !tc->fam->check) {
		diag_error(c, PT_E_TILE_NO_FAMILY, call->span,
			   "%s (%s family) has no tile lowering yet; call it "
			   "as raw T.ptx", tc->inst.spelling,
			   ptx_family_name(tc->inst.family));
		return tc;
	}
	if (!tile_check_params(e, tc, &call->u.apply.params) ||
	    !tile_groups(e, tc))
		return tc;
	/* pred=False issues nothing: its operands may lie anywhere */
	size_t mark = tile_facts_guard(e, tc->pred, false);
	if (resolve_operands(e, tc))
		tc->ok = tc->fam->check(e, tc) && check_mem_writable(e, tc);
	tile_facts_pop(e, mark);
	return tc;
}

TileCall *
tile_check_ewise_call(TileEnv *e, Expr *call)
{
	Ctx *c = e->c;
	TileCall *tc = new_call(e, call, call->u.ewise.scope);
	tc->fam = tile_family_ewise();
	tc->fn = call->u.ewise.fn;
	tc->nops = 1 + (int)call->u.ewise.inputs.n;
	tc->ops = NEWN(&c->arena, TileOperand, tc->nops + 1);
	add_operand(e, tc, 0, call->u.ewise.dst);
	for (int i = 1; i < tc->nops; i++)
		add_operand(e, tc, i, call->u.ewise.inputs.v[i - 1]);
	if (!tc->fn) {
		diag_error(c, PT_E_EWISE_BODY, call->span,
			   "ewise has no scalar function");
		return tc;
	}
	select_builtins(c, tc->fn);
	if (!tile_groups(e, tc) || !resolve_operands(e, tc))
		return tc;
	tc->ok = tile_check_ewise(e, tc);
	return tc;
}

/* ---- raw PTX calls ---- */

/* A raw call: its form is selected here (ptx_select through
 * ir_select_ptx) and recorded on the node for codegen. */
static void
check_raw_ptx(TileEnv *e, Expr *x)
{
	if (ir_select_ptx(e->c, x, false))
		ptx_check_target(e->c, &x->u.ptx.sel->inst, x->span);
}

/* ---- the walk ---- */

static void mark_expr_written(TileEnv *e, const Expr *x);

static Buffer *
root_of(const Expr *x)
{
	while (x) {
		switch (x->kind) {
		case EX_BUF:
			if (x->u.buf->kind == BK_VIEW && x->u.buf->view) {
				x = x->u.buf->view;
				continue;
			}
			return x->u.buf;
		case EX_REGION:
			x = x->u.region.base;
			continue;
		case EX_VIEW_DTYPE:
		case EX_VIEW_RESHAPE:
			x = x->u.view.base;
			continue;
		case EX_LOAD:
		case EX_PTR_TO:
			x = x->u.access.base;
			continue;
		default:
			return NULL;
		}
	}
	return NULL;
}

static void
mark_buf(TileEnv *e, const Buffer *b)
{
	if (!b)
		return;
	size_t k = tile_slot(e, b->id);
	while (e->written.n <= k)
		vec_push(&e->c->arena, &e->written, false);
	e->written.v[k] = true;
}

static void
mark_expr_written(TileEnv *e, const Expr *x)
{
	mark_buf(e, root_of(x));
}

static void walk_block(TileEnv *e, Block *b);

static void
walk_eval(TileEnv *e, Expr *x)
{
	TileCall *tc = NULL;
	switch (x->kind) {
	case EX_TILE_APPLY:
		tc = tile_check_apply(e, x);
		break;
	case EX_TILE_EWISE:
		tc = tile_check_ewise_call(e, x);
		break;
	case EX_PTX:
		check_raw_ptx(e, x);
		/* a raw call may write any register it names */
		for (size_t i = 0; i < x->u.ptx.args.n; i++)
			mark_expr_written(e, x->u.ptx.args.v[i]);
		return;
	default:
		return;
	}
	tile_mark_written(e, tc);
}

static void
scan_assigned(TileEnv *e, const Block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];
		switch (s->kind) {
		case ST_ASSIGN: {
			size_t k = tile_slot(e, s->u.var.var->id);
			while (e->assigned.n <= k)
				vec_push(&e->c->arena, &e->assigned, false);
			e->assigned.v[k] = true;
			break;
		}
		case ST_FOR:
			scan_assigned(e, &s->u.loop.body);
			break;
		case ST_WHILE:
			scan_assigned(e, &s->u.whil.body);
			break;
		case ST_IF:
			scan_assigned(e, &s->u.cond.then);
			scan_assigned(e, &s->u.cond.els);
			break;
		default:
			break;
		}
	}
}

static void
walk_stmt(TileEnv *e, Stmt *s)
{
	GuardSave g;
	size_t mark;
	int sure;
	tile_bounds_stmt(e, s);
	switch (s->kind) {
	case ST_VAR_DECL:
		tile_env_decl(e, s);
		break;
	case ST_ASSIGN:
		tile_facts_assign(e, s->u.var.var);
		break;
	case ST_EVAL:
		walk_eval(e, s->u.value);
		break;
	case ST_STORE:
		mark_expr_written(e, s->u.store.base);
		break;
	case ST_FOR:
		tile_env_loop(e, s);
		mark = tile_facts_loop(e, s);
		sure = tile_bounds_loop(e, s, mark);
		walk_block(e, &s->u.loop.body);
		tile_bounds_restore(e, sure);
		tile_bounds_loop_end(e, s);
		tile_facts_pop(e, mark);
		break;
	case ST_WHILE:
		mark = tile_facts_loop(e, s);
		sure = tile_bounds_loop(e, s, mark);
		walk_block(e, &s->u.whil.body);
		tile_bounds_restore(e, sure);
		tile_facts_pop(e, mark);
		break;
	case ST_IF:
		tile_guard_push(e, s->u.cond.cond, false, &g);
		mark = tile_facts_guard(e, s->u.cond.cond, false);
		sure = tile_bounds_guard(e, s->u.cond.cond, false, mark);
		walk_block(e, &s->u.cond.then);
		tile_bounds_restore(e, sure);
		tile_facts_pop(e, mark);
		tile_guard_pop(e, &g);
		tile_guard_push(e, s->u.cond.cond, true, &g);
		mark = tile_facts_guard(e, s->u.cond.cond, true);
		sure = tile_bounds_guard(e, s->u.cond.cond, true, mark);
		walk_block(e, &s->u.cond.els);
		tile_bounds_restore(e, sure);
		tile_facts_pop(e, mark);
		tile_guard_pop(e, &g);
		break;
	default:
		break;
	}
}

static void
walk_block(TileEnv *e, Block *b)
{
	for (size_t i = 0; i < b->n; i++)
		walk_stmt(e, b->v[i]);
}

TileProgram *
check_module(Ctx *c, Module *m)
{
	TileProgram *p = NEW(&c->arena, TileProgram);
	for (size_t i = 0; i < m->funcs.n; i++)
		select_builtins(c, m->funcs.v[i]);
	for (size_t i = 0; i < m->funcs.n; i++) {
		Func *f = m->funcs.v[i];
		if (!f->is_kernel)
			continue;
		TileEnv e;
		tile_env_init(&e, c, m, f);
		e.prog = p;
		scan_assigned(&e, &f->body);
		tile_bounds_init(&e);
		walk_block(&e, &f->body);
		if (!ctx_has_errors(c))
			tile_mbar_lint(&e, f);
		if (!ctx_has_errors(c))
			tile_setmaxnreg_lint(&e, f);
	}
	return p;
}
