/*
 * stmt.c - statements and control flow.
 *
 * Scalar variables get one register each at their declaration; loops
 * and branches become labels ($L<n>) and predicated bra.  A serial for
 * evaluates its bounds once (Python range semantics) and tests before
 * each iteration (ge for a positive step, le for a negative constant
 * step).  T.unroll with constant bounds is expanded: the loop variable
 * is bound to each constant in turn, so indices fold and local arrays
 * stay in registers; with symbolic bounds it is emitted as a serial
 * loop.  if with a constant condition emits only the taken branch.
 */
#include "codegen/codegen.h"

/* Above this many iterations T.unroll is refused rather than expanded. */
#define UNROLL_MAX 4096

static int
use_label(Gen *g, int *l)
{
	if (*l < 0)
		*l = gen_label(g);
	return *l;
}

static void
assign_var(Gen *g, const Var *v, const Expr *value, bool decl, Span sp)
{
	Val *slot = gen_var(g, v);
	if (decl || !slot || slot->imm) {
		gen_bind(g, v, gen_reg(g, v->dtype));
		slot = gen_var(g, v);
	}
	if (!value)
		return;
	Val x = gen_convert(g, gen_expr(g, value), v->dtype, sp);
	gen_emit(g, "mov.%s %s, %s;", ptx_mov_suffix(v->dtype), slot->s, x.s);
}

static void
gen_loop_body(Gen *g, const Block *body, LoopLabels *ll)
{
	ll->outer = g->loop;
	g->loop = ll;
	gen_block(g, body);
	g->loop = ll->outer;
}

static bool
unroll_bounds(Gen *g, const Stmt *s, int64_t *b, int64_t *e, int64_t *st)
{
	*st = 1;
	return gen_const_int(g, s->u.loop.begin, b) &&
	       gen_const_int(g, s->u.loop.end, e) &&
	       (!s->u.loop.step || gen_const_int(g, s->u.loop.step, st)) &&
	       *st != 0;
}

/* Iterations of range(b, e, st), st != 0; false when the count does
 * not fit in 64 bits (range(-2**63 + 1, 2**63 - 1, 1) does not). */
static bool
trip_count(int64_t b, int64_t e, int64_t st, int64_t *trips)
{
	int64_t span;
	if (st > 0 ? e <= b : e >= b) {
		*trips = 0;
		return true;
	}
	if (st > 0 ? ckd_sub64(&span, e, b) : ckd_sub64(&span, b, e))
		return false;
	int64_t mag = st > 0 ? st : (st == INT64_MIN ? INT64_MAX : -st);
	*trips = span / mag + (span % mag != 0);
	return true;
}

static void
gen_unrolled(Gen *g, const Stmt *s, int64_t b, int64_t e, int64_t st)
{
	int64_t trips;
	if (!trip_count(b, e, st, &trips)) {
		gen_error(g, PT_E_INT_OVERFLOW, s->span,
			  "T.unroll trip count does not fit in 64 bits");
		return;
	}
	if (trips > UNROLL_MAX) {
		gen_error(g, PT_E_CODEGEN_UNROLL_LIMIT, s->span,
			  "T.unroll of %lld iterations (limit %d); use a"
			  " serial loop", (long long)trips, UNROLL_MAX);
		return;
	}
	LoopLabels ll = {-1, -1, NULL};
	const Var *v = s->u.loop.var;
	for (int64_t i = 0, x = b; i < trips && !g->over_budget; i++) {
		gen_bind(g, v, val_int(g, x, v->dtype));
		x = (int64_t)((uint64_t)x + (uint64_t)st); /* past e at most once */
		ll.cont = -1;
		gen_loop_body(g, &s->u.loop.body, &ll);
		if (ll.cont >= 0)
			gen_place_label(g, ll.cont);
	}
	if (ll.brk >= 0)
		gen_place_label(g, ll.brk);
}

static void
gen_serial(Gen *g, const Stmt *s)
{
	const Var *v = s->u.loop.var;
	int64_t stc = 1;
	Val begin = gen_convert(g, gen_expr(g, s->u.loop.begin), v->dtype,
				s->span);
	Val end = gen_convert(g, gen_expr(g, s->u.loop.end), v->dtype, s->span);
	Val step = s->u.loop.step
		? gen_convert(g, gen_expr(g, s->u.loop.step), v->dtype, s->span)
		: val_int(g, 1, v->dtype);
	if (step.imm)
		stc = step.i;
	if (!end.imm) { /* evaluate the bound once */
		Val e = gen_reg(g, v->dtype);
		gen_emit(g, "mov.%s %s, %s;", ptx_mov_suffix(v->dtype), e.s,
			 end.s);
		end = e;
	}
	Val i = gen_reg(g, v->dtype);
	gen_bind(g, v, i);
	gen_emit(g, "mov.%s %s, %s;", ptx_mov_suffix(v->dtype), i.s, begin.s);
	LoopLabels ll = {-1, -1, NULL};
	int head = gen_label(g);
	use_label(g, &ll.brk);
	gen_place_label(g, head);
	Val p = gen_reg(g, DT_BOOL);
	gen_emit(g, "setp.%s.%s %s, %s, %s;", stc > 0 ? "ge" : "le",
		 dtype_is_signed(v->dtype) ? (dtype_bits(v->dtype) == 64
					      ? "s64" : "s32")
		 : (dtype_bits(v->dtype) == 64 ? "u64" : "u32"),
		 p.s, i.s, end.s);
	gen_emit(g, "@%s bra $L%d;", p.s, ll.brk);
	gen_loop_body(g, &s->u.loop.body, &ll);
	if (ll.cont >= 0)
		gen_place_label(g, ll.cont);
	gen_emit(g, "add.%s %s, %s, %s;", dtype_bits(v->dtype) == 64 ? "s64"
		 : "s32", i.s, i.s, step.s);
	gen_emit(g, "bra $L%d;", head);
	gen_place_label(g, ll.brk);
}

static void
gen_for(Gen *g, const Stmt *s)
{
	int64_t b, e, st;
	if (s->u.loop.kind == FOR_UNROLL && unroll_bounds(g, s, &b, &e, &st)) {
		gen_set_static(g, s->u.loop.var, true);
		gen_unrolled(g, s, b, e, st);
		return;
	}
	if (dtype_bits(s->u.loop.var->dtype) < 32 ||
	    !dtype_is_int(s->u.loop.var->dtype)) {
		gen_error(g, PT_E_CODEGEN_DTYPE, s->span,
			  "loop variable must be a 32- or 64-bit integer");
		return;
	}
	gen_serial(g, s);
}

static void
gen_while(Gen *g, const Stmt *s)
{
	LoopLabels ll = {-1, -1, NULL};
	int head = gen_label(g);
	gen_place_label(g, head);
	Val c = gen_cond(g, s->u.whil.cond);
	if (c.imm && !c.i)
		return;
	if (!c.imm)
		gen_emit(g, "@!%s bra $L%d;", c.s, use_label(g, &ll.brk));
	ll.cont = head;
	gen_loop_body(g, &s->u.whil.body, &ll);
	gen_emit(g, "bra $L%d;", head);
	if (ll.brk >= 0)
		gen_place_label(g, ll.brk);
}

static void
gen_if(Gen *g, const Stmt *s)
{
	Val c = gen_cond(g, s->u.cond.cond);
	if (c.imm) {
		gen_block(g, c.i ? &s->u.cond.then : &s->u.cond.els);
		return;
	}
	int els = gen_label(g);
	gen_emit(g, "@!%s bra $L%d;", c.s, els);
	gen_block(g, &s->u.cond.then);
	if (s->u.cond.els.n == 0) {
		gen_place_label(g, els);
		return;
	}
	int end = gen_label(g);
	gen_emit(g, "bra $L%d;", end);
	gen_place_label(g, els);
	gen_block(g, &s->u.cond.els);
	gen_place_label(g, end);
}

static void
gen_jump(Gen *g, const Stmt *s)
{
	if (!g->loop) {
		gen_error(g, PT_E_INTERNAL, s->span, "break outside a loop");
		return;
	}
	int *l = s->kind == ST_BREAK ? &g->loop->brk : &g->loop->cont;
	gen_emit(g, "bra $L%d;", use_label(g, l));
}

/* `.loc file line col` before a statement's instructions (lineinfo),
 * when it moves to another source position. */
static void
gen_loc(Gen *g, Span sp)
{
	int line = 0, col = 0;
	if (!g->c->lineinfo || !sp.file)
		return;
	ctx_line_col(g->c, sp.file, sp.lo, &line, &col);
	if (line <= 0 || (sp.file == g->loc_file && line == g->loc_line &&
			  col == g->loc_col))
		return;
	g->loc_file = sp.file;
	g->loc_line = line;
	g->loc_col = col;
	gen_emit(g, ".loc %d %d %d", (int)sp.file, line, col);
}

static void
gen_stmt(Gen *g, const Stmt *s)
{
	gen_loc(g, s->span);
	switch (s->kind) {
	case ST_VAR_DECL:
		assign_var(g, s->u.var.var, s->u.var.value, true, s->span);
		break;
	case ST_ASSIGN:
		assign_var(g, s->u.var.var, s->u.var.value, false, s->span);
		break;
	case ST_STORE: gen_store(g, s); break;
	case ST_BUF_DEF: gen_buf_def(g, s->u.buf); break;
	case ST_FOR: gen_for(g, s); break;
	case ST_WHILE: gen_while(g, s); break;
	case ST_IF: gen_if(g, s); break;
	case ST_BREAK:
	case ST_CONTINUE:
		gen_jump(g, s);
		break;
	case ST_RETURN:
		gen_emit(g, "ret;");
		break;
	case ST_EVAL:
		(void)gen_expr(g, s->u.value);
		break;
	}
}

/* Statements generated (every unrolled copy counts) and PTX bytes of
 * this compile against the context's budgets; the first excess stops
 * generation with its own code. */
static void
check_budgets(Gen *g, const Stmt *s)
{
	Ctx *c = g->c;
	if (g->over_budget)
		return;
	if (++c->stmts > c->budget[PT_BUDGET_STATEMENTS]) {
		gen_error(g, PT_E_BUDGET_UNROLL, s->span,
			  "more than %zu statements after unrolling "
			  "(statement budget; ptxtile --max-statements)",
			  c->budget[PT_BUDGET_STATEMENTS]);
		g->over_budget = true;
	} else if (g->code.n + g->ptx_done > c->budget[PT_BUDGET_PTX_BYTES]) {
		gen_error(g, PT_E_BUDGET_PTX, s->span,
			  "more than %zu bytes of PTX (output budget; "
			  "ptxtile --max-ptx-bytes)",
			  c->budget[PT_BUDGET_PTX_BYTES]);
		g->over_budget = true;
	}
}

void
gen_block(Gen *g, const Block *b)
{
	for (size_t i = 0; i < b->n && g->c->nerrors < PT_MAX_ERRORS &&
			   !g->over_budget; i++) {
		gen_stmt(g, b->v[i]);
		check_budgets(g, b->v[i]);
	}
}
