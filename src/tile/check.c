/*
 * check.c - check_module: walks every kernel in program order, validates
 * raw T.ptx calls against the PTX form table and every tile call against
 * its family contract, and records each tile call's result on the module
 * (Module.tile_calls) for lower.c and explain.c.
 *
 * Input: a lowered module and ctx->target.  Output: diagnostics; the
 * TileCall records.  The walk tracks what the contract needs from the
 * context: loop ranges, guards on hardware ids (env.c) and which buffers
 * were written before a call (preserve_dst).
 */
#include <string.h>

#include "tile.h"
#include "api.h"

static const TileFamily families[] = {
#define PTXF_NONE (-1)
#define FAMILY(id, name, file, ptx, check, params)                         \
	{name, file, PTXF_##ptx, check, params},
#include "families.def"
#undef FAMILY
#undef PTXF_NONE
};

const TileFamily *
tile_family_of_ptx(int ptx_family)
{
	for (size_t i = 0; i < countof(families); i++)
		if (families[i].ptx_family == ptx_family)
			return &families[i];
	return NULL;
}

const TileFamily *
tile_family_ewise(void)
{
	return tile_family_of_ptx(-1);
}

static TileCall *
new_call(TileEnv *e, Expr *call, ExecScope scope)
{
	TileCall *tc = NEW(&e->c->arena, TileCall);
	tc->call = call;
	tc->span = call->span;
	tc->scope = scope;
	vec_push(&e->c->arena, &e->m->tile_calls, tc);
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
		tc->ok = tc->fam->check(e, tc);
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
	if (!tile_groups(e, tc) || !resolve_operands(e, tc))
		return tc;
	tc->ok = tile_check_ewise(e, tc);
	return tc;
}

/* ---- raw PTX calls ---- */

/* The kinds a raw argument may take: a ptr_to is an address operand or
 * a 64-bit register (a generic address, e.g. mapa's source); a
 * non-constant 32/64-bit integer is a register or an address (a
 * shared::cluster address from mapa).  *alt is the second kind. */
static PtxArg
raw_arg(const Expr *x, PtxArg *alt, bool *flexible)
{
	PtxArg a = {0};
	int64_t v;
	*flexible = false;
	if (x->kind == EX_PTR_TO) {
		a.kind = PTXOP_ADDR;
		*alt = (PtxArg){.kind = PTXOP_REG, .bits = 64};
		*flexible = true;
	} else if (x->type == ET_SCALAR && x->dtype == DT_BOOL &&
		   x->kind != EX_BOOL) {
		a.kind = PTXOP_PRED;
		a.bits = 1;
	} else if ((x->kind == EX_INT || x->kind == EX_BOOL) &&
		   ir_const_int(x, &v)) {
		a.kind = PTXOP_IMM;
		a.has_value = true;
		a.value = v;
		a.bits = dtype_bits(x->dtype);
	} else if (x->kind == EX_TUPLE) {
		a.kind = PTXOP_VEC;
		a.vec = (int)x->u.tuple.n;
	} else {
		a.kind = PTXOP_REG;
		int bits = dtype_bits(x->dtype);
		a.bits = bits < 16 ? 0 : bits;
		if (x->type == ET_SCALAR && bits >= 32 &&
		    dtype_kind(x->dtype) != DK_FLOAT) {
			*alt = (PtxArg){.kind = PTXOP_ADDR};
			*flexible = true;
		}
	}
	return a;
}

/* Runs ptx_check_args without leaving a diagnostic when it fails. */
static bool
quiet_check_args(Ctx *c, PtxInst *inst, const PtxArg *args, int n, Span sp)
{
	Diag *tail = c->diags_tail;
	Diag *head = c->diags;
	size_t nerr = c->nerrors;
	if (ptx_check_args(c, inst, args, n, sp))
		return true;
	c->diags_tail = tail;
	c->diags = head;
	if (tail)
		tail->next = NULL;
	c->nerrors = nerr;
	return false;
}

static void
check_raw_ptx(TileEnv *e, Expr *x)
{
	Ctx *c = e->c;
	PtxInst inst;
	if (!ptx_parse(c, x->u.ptx.spelling,
		       x->u.ptx.opcode_span.file ? x->u.ptx.opcode_span
						 : x->span, &inst))
		return;
	int n = (int)x->u.ptx.args.n;
	PtxArg *first = NEWN(&c->arena, PtxArg, n + 1);
	PtxArg *alt = NEWN(&c->arena, PtxArg, n + 1);
	PtxArg *args = NEWN(&c->arena, PtxArg, n + 1);
	int flex[6], nflex = 0;
	for (int i = 0; i < n; i++) {
		bool f;
		first[i] = raw_arg(x->u.ptx.args.v[i], &alt[i], &f);
		if (f && nflex < 6)
			flex[nflex++] = i;
	}
	/* try every combination of the flexible arguments' kinds quietly,
	 * then report against the plain reading */
	for (int mask = 0; mask < (1 << nflex); mask++) {
		memcpy(args, first, sizeof(PtxArg) * (size_t)n);
		for (int k = 0; k < nflex; k++)
			if (mask & (1 << k))
				args[flex[k]] = alt[flex[k]];
		PtxInst in = inst;
		if (quiet_check_args(c, &in, args, n, x->span)) {
			ptx_check_target(c, &in, x->span);
			return;
		}
	}
	if (ptx_check_args(c, &inst, first, n, x->span))
		ptx_check_target(c, &inst, x->span);
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
	while (e->written.n <= (size_t)b->id)
		vec_push(&e->c->arena, &e->written, false);
	e->written.v[b->id] = true;
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
		case ST_ASSIGN:
			while (e->assigned.n <= (size_t)s->u.var.var->id)
				vec_push(&e->c->arena, &e->assigned, false);
			e->assigned.v[s->u.var.var->id] = true;
			break;
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
		walk_block(e, &s->u.loop.body);
		tile_facts_pop(e, mark);
		break;
	case ST_WHILE:
		mark = tile_facts_loop(e, s);
		walk_block(e, &s->u.whil.body);
		tile_facts_pop(e, mark);
		break;
	case ST_IF:
		tile_guard_push(e, s->u.cond.cond, false, &g);
		mark = tile_facts_guard(e, s->u.cond.cond, false);
		walk_block(e, &s->u.cond.then);
		tile_facts_pop(e, mark);
		tile_guard_pop(e, &g);
		tile_guard_push(e, s->u.cond.cond, true, &g);
		mark = tile_facts_guard(e, s->u.cond.cond, true);
		walk_block(e, &s->u.cond.els);
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

void
check_module(Ctx *c, Module *m)
{
	m->tile_calls.n = 0;
	tile_tma_reset_slots(m);
	for (size_t i = 0; i < m->funcs.n; i++) {
		Func *f = m->funcs.v[i];
		if (!f->is_kernel)
			continue;
		TileEnv e;
		tile_env_init(&e, c, m, f);
		scan_assigned(&e, &f->body);
		walk_block(&e, &f->body);
		if (!ctx_has_errors(c))
			tile_mbar_lint(&e, f);
	}
}
