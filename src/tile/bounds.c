/*
 * bounds.c - element loads and stores (`A[i, j]`, `S[k] = v`) whose index
 * provably leaves the buffer's shape, found at compile time with the
 * tile checker's facts (thread ids, block ids of a static grid, loop
 * ranges, guards).
 *
 * Input: the statements check.c walks, with its facts on the stack.
 * Output: PT_E_BOUNDS_OVERRUN / PT_E_BOUNDS_NEGATIVE with the inequality
 * and a counterexample.  Accepted: every access the prover cannot refute.
 *
 * An error must be a certainty, not a doubt: the counterexample has to
 * be a thread and iteration that really runs the access.  So symbols are
 * sorted into three kinds (sym_kind):
 *   exact        every value of its interval that satisfies the facts
 *                occurs: lane/warp/thread ids of a static block, block
 *                ids of a static grid, cluster CTA ids, variables of
 *                loops with a constant step and no reassignment;
 *   independent  a kernel argument (a scalar or a T.dynamic size) that
 *                no thread id constrains;
 *   dependent    anything else (loaded values, reassigned variables).
 * The access is refuted only when the index form holds exact symbols
 * alone, no live fact mentions a dependent symbol or mixes exact with
 * independent ones, and the statement is certainly reached under its
 * facts (TileEnv.bounds_unsure counts the enclosing conditions,
 * break/continue loops and returns that break that).
 */
#include <string.h>

#include "tile/tile.h"

/* How deep the walks over a statement's expressions follow it. */
enum { BOUNDS_MAX_DEPTH = 1024 };

enum { SK_EXACT, SK_INDEP, SK_DEP };

static bool ptx_tainted(const TileEnv *e, const Expr *x, int depth);

/* The hardware quantity a symbol stands for: two symbols of one
 * quantity in a query are not independent, so the query gives up. */
enum { HQ_NONE, HQ_LANE, HQ_WARP, HQ_TID_X, HQ_TID_Y, HQ_TID_Z, HQ_COUNT };

static int
axis_of(const Expr *x)
{
	if (x->u.call.args.n != 1 || x->u.call.args.v[0]->kind != EX_STR)
		return -1;
	int a = x->u.call.args.v[0]->u.str[0] - 'x';
	return a >= 0 && a < 3 && !x->u.call.args.v[0]->u.str[1] ? a : -1;
}

static const Expr *
expr_of(const TileEnv *e, int s)
{
	return (size_t)s < e->sym_expr.n ? e->sym_expr.v[s] : NULL;
}

static bool
is_exact_loop(const TileEnv *e, int s)
{
	return (size_t)s < e->bounds_exact.n && e->bounds_exact.v[s];
}

static bool
var_assigned(const TileEnv *e, const Var *v)
{
	size_t k = tile_slot_find(e, v->id);
	return k < e->assigned.n && e->assigned.v[k];
}

static int
sym_hq(const TileEnv *e, int s)
{
	const Expr *x = expr_of(e, s);
	if (!x || x->kind != EX_BUILTIN)
		return HQ_NONE;
	if (x->u.call.id == BI_LANE_ID)
		return HQ_LANE;
	if (x->u.call.id == BI_WARP_ID)
		return HQ_WARP;
	if (x->u.call.id == BI_THREAD_IDX && axis_of(x) >= 0)
		return HQ_TID_X + axis_of(x);
	return HQ_NONE;
}

static int
sym_kind(const TileEnv *e, int s)
{
	const Expr *x = expr_of(e, s);
	if (is_exact_loop(e, s))
		return SK_EXACT;
	if (!x)
		return SK_DEP;
	if (x->kind == EX_VAR) {
		const Var *v = x->u.var;
		if ((v->kind == VK_PARAM || v->kind == VK_DYN) &&
		    !var_assigned(e, v))
			return SK_INDEP;
		return SK_DEP;
	}
	if (x->kind != EX_BUILTIN)
		return SK_DEP;
	int a = axis_of(x);
	switch (x->u.call.id) {
	case BI_LANE_ID:
	case BI_WARP_ID:
		return e->nthreads > 0 ? SK_EXACT : SK_DEP;
	case BI_THREAD_IDX:
		return e->nthreads > 0 && a >= 0 ? SK_EXACT : SK_DEP;
	case BI_BLOCK_IDX:
		if (a < 0 || e->block_sym[a] - 1 != s)
			return SK_DEP;
		return a >= e->f->launch.ngrid ||
				       ir_const_int(e->f->launch.grid[a],
						    &(int64_t){0})
			       ? SK_EXACT
			       : SK_INDEP;
	case BI_CLUSTER_CTA_ID:
		return a >= 0 && e->cta_sym[a] == s ? SK_EXACT : SK_DEP;
	default:
		return SK_DEP;
	}
}

/* Marks the free symbols l depends on (through derived symbols). */
static void
mark_free(const SymTab *st, Lin l, bool *mark, int depth)
{
	for (int i = 0; i < l.n; i++) {
		const Sym *s = sym_get(st, l.t[i].sym);
		if (s->quot_of >= 0)
			mark[s->quot_of] = true;
		else if (!s->op)
			mark[l.t[i].sym] = true;
		else if (depth < 16)
			mark_free(st, s->of, mark, depth + 1);
		else
			mark[l.t[i].sym] = true; /* too deep: dependent */
	}
}

/* The kinds present among the marked symbols, as a bit set. */
static unsigned
kinds_of(const TileEnv *e, const bool *mark, size_t n)
{
	unsigned k = 0;
	for (size_t i = 0; i < n; i++)
		if (mark[i]) {
			const Sym *s = sym_get(&e->st, (int)i);
			k |= 1u << (s->op || s->quot_of >= 0
					    ? SK_DEP
					    : sym_kind(e, (int)i));
		}
	return k;
}

static bool
lin_kinds(const TileEnv *e, Lin l, bool *mark, unsigned *kinds)
{
	size_t n = e->st.syms.n;
	memset(mark, 0, n + 1);
	if (l.overflow)
		return false;
	mark_free(&e->st, l, mark, 0);
	*kinds = kinds_of(e, mark, n);
	return true;
}

/* The interval an exact thread id really has (a static block), and the
 * axis in its name for the counterexample. */
static void
narrow_exact(const TileEnv *e, Sym *s, int hq)
{
	static const char *const names[3] = {"tid.x", "tid.y", "tid.z"};
	if (hq < HQ_TID_X)
		return;
	s->name = names[hq - HQ_TID_X];
	int64_t hi = e->block[hq - HQ_TID_X] - 1;
	if (s->lo < 0)
		s->lo = 0;
	if (s->hi > hi)
		s->hi = hi;
}

/* A copy of the symbol table for one refutation: exact thread-id
 * intervals, the facts over exact symbols only, and tid < nthreads for
 * the lane and warp in use.  False when the query must give up. */
static bool
refutation_table(const TileEnv *e, Lin g, SymTab *cp)
{
	const SymTab *st = &e->st;
	size_t n = st->syms.n;
	bool *mark = NEWN(st->arena, bool, n + 1);
	bool *used = NEWN(st->arena, bool, n + 1);
	unsigned kinds;
	if (!lin_kinds(e, g, mark, &kinds) || (kinds & ~(1u << SK_EXACT)))
		return false;
	memcpy(used, mark, n + 1);
	memset(cp, 0, sizeof(*cp));
	cp->arena = st->arena;
	for (size_t i = 0; i < st->facts.n; i++) {
		const Fact *f = &st->facts.v[i];
		if (f->dead)
			continue;
		if (!lin_kinds(e, f->f, mark, &kinds) ||
		    (kinds & (1u << SK_DEP)))
			return false;
		if (kinds == 1u << SK_INDEP) {
			int64_t lo, hi; /* only says whether the code runs */
			if (!lin_bounds(st, f->f, &lo, &hi) || hi < 0)
				return false;
			continue;
		}
		if (kinds & (1u << SK_INDEP))
			return false; /* `tid < n`: depends on the argument */
		for (size_t j = 0; j < n; j++)
			used[j] |= mark[j];
		vec_push(st->arena, &cp->facts, *f);
	}
	/* one symbol per hardware quantity; lane/warp not with tid.x/y/z */
	int seen[HQ_COUNT], lane = -1, warp = -1;
	bool tid = false;
	for (int q = 0; q < HQ_COUNT; q++)
		seen[q] = -1;
	for (size_t j = 0; j < n; j++) {
		int q = used[j] ? sym_hq(e, (int)j) : HQ_NONE;
		if (q == HQ_NONE)
			continue;
		if (seen[q] >= 0)
			return false;
		seen[q] = (int)j;
		tid |= q >= HQ_TID_X;
	}
	lane = seen[HQ_LANE];
	warp = seen[HQ_WARP];
	if (tid && (lane >= 0 || warp >= 0))
		return false;
	cp->syms.v = NEWN(st->arena, Sym, n + 1);
	memcpy(cp->syms.v, st->syms.v, sizeof(Sym) * n);
	cp->syms.n = cp->syms.cap = n;
	for (size_t j = 0; j < n; j++)
		if (used[j])
			narrow_exact(e, &cp->syms.v[j], sym_hq(e, (int)j));
	if (lane >= 0 && warp >= 0) { /* nthreads - 1 - 32 warp - lane >= 0 */
		Lin t = lin_add(cp, lin_term(cp, 32, warp), lin_sym(cp, lane));
		Fact f = {lin_sub(cp, lin_const(e->nthreads - 1), t), false};
		vec_push(st->arena, &cp->facts, f);
	}
	return true;
}

/* ---- counterexamples ---- */

enum { ENUM_LIMIT = 1 << 18 }; /* valuations tried exhaustively */

static bool
holds(const SymTab *cp, Lin g, int64_t *vals)
{
	int64_t v;
	if (!lin_eval(cp, g, vals, &v) || v >= 0)
		return false;
	for (size_t i = 0; i < cp->facts.n; i++)
		if (!lin_eval(cp, cp->facts.v[i].f, vals, &v) || v < 0)
			return false;
	return true;
}

/* Every valuation of the free symbols of g and the facts, when there are
 * few (a block of threads times a loop or two): complete, where the
 * prover's local search can miss a counterexample that needs two
 * symbols to move at once.  NULL: none, or too many to try. */
static const char *
enumerate_cex(const SymTab *cp, Lin g, bool *mark, int64_t **vals_out)
{
	size_t n = cp->syms.n;
	int64_t *vals = NEWN(cp->arena, int64_t, n + 1);
	int *ids = NEWN(cp->arena, int, n + 1);
	int nid = 0;
	uint64_t total = 1;
	for (size_t i = 0; i < n; i++) {
		const Sym *s = &cp->syms.v[i];
		vals[i] = s->lo;
		if (!mark[i])
			continue;
		uint64_t cnt =
			(uint64_t)(s->hi - s->lo) / (uint64_t)s->mult + 1;
		if (s->hi < s->lo || s->lo % s->mult || cnt > ENUM_LIMIT ||
		    (total *= cnt) > ENUM_LIMIT)
			return NULL;
		ids[nid++] = (int)i;
	}
	for (;;) {
		if (holds(cp, g, vals))
			break;
		int k = 0;
		for (; k < nid; k++) { /* the next valuation, odometer-wise */
			const Sym *s = &cp->syms.v[ids[k]];
			if (vals[ids[k]] + s->mult <= s->hi) {
				vals[ids[k]] += s->mult;
				break;
			}
			vals[ids[k]] = s->lo;
		}
		if (k == nid)
			return NULL;
	}
	StrBuf b;
	sb_init(&b, cp->arena);
	for (int k = 0; k < nid; k++)
		sb_printf(&b, "%s%s=%lld", k ? ", " : "",
			  cp->syms.v[ids[k]].name, (long long)vals[ids[k]]);
	*vals_out = vals;
	return sb_cstr(&b);
}

static const char *
counterexample(const SymTab *cp, Lin g, int64_t **vals)
{
	size_t n = cp->syms.n;
	bool *mark = NEWN(cp->arena, bool, n + 1);
	memset(mark, 0, n + 1);
	mark_free(cp, g, mark, 0);
	for (size_t i = 0; i < cp->facts.n; i++)
		mark_free(cp, cp->facts.v[i].f, mark, 0);
	const char *cex = enumerate_cex(cp, g, mark, vals);
	if (cex)
		return cex;
	cex = prove_counterexample(cp, g, vals);
	return cex && holds(cp, g, *vals) ? cex : NULL;
}

/* ---- one access ---- */

static const char *
access_text(Ctx *c, const Buffer *b, const ExprVec *idx)
{
	StrBuf sb;
	sb_init(&sb, &c->arena);
	sb_printf(&sb, "%s[", b->name);
	for (size_t i = 0; i < idx->n; i++)
		sb_printf(&sb, "%s%s", i ? ", " : "",
			  ir_expr_text(c, idx->v[i]));
	sb_printf(&sb, "]");
	return sb_cstr(&sb);
}

/* g >= 0 must hold; a refutation reports it.  upper: the index below
 * the extent (else: at least 0). */
static bool
refute(TileEnv *e, const Buffer *b, const ExprVec *idx, int d, Lin g, Lin il,
       bool upper, bool write, Span sp)
{
	int64_t lo, hi;
	if (g.overflow || !lin_bounds(&e->st, g, &lo, &hi) || lo >= 0)
		return true;
	if (prove_nonneg(&e->st, g))
		return true;
	SymTab cp;
	if (!refutation_table(e, g, &cp))
		return true;
	int64_t *vals = NULL, iv;
	const char *cex = counterexample(&cp, g, &vals);
	if (!cex || !lin_eval(&cp, il, vals, &iv))
		return true;
	Ctx *c = e->c;
	const char *it = ir_expr_text(c, idx->v[d]);
	const char *acc = access_text(c, b, idx);
	const char *ex = ir_expr_text(c, b->shape[d]);
	/* an index over arguments (A[n] of n elements) has no one value;
	 * no thread or loop symbol left: it fails every time it runs */
	bool *m = NEWN(&c->arena, bool, e->st.syms.n + 1);
	unsigned kinds = 0;
	lin_kinds(e, il, m, &kinds);
	const char *why =
		kinds & ~(1u << SK_EXACT)
			? *cex ? arena_printf(&c->arena,
					      "counterexample: %s, for every "
					      "value of the arguments",
					      cex)
			       : "whenever it runs, for every value of the "
				 "arguments"
		: *cex ? arena_printf(&c->arena,
				      "counterexample: %s gives %s = %lld", cex,
				      it, (long long)iv)
		       : "whenever it runs";
	if (!upper)
		return diag_error(c, PT_E_BOUNDS_NEGATIVE, sp,
				  "%s %s before the start of %s: %s >= 0 "
				  "fails on axis %d; %s",
				  write ? "store" : "load", acc, b->name, it, d,
				  why);
	return diag_error(c, PT_E_BOUNDS_OVERRUN, sp,
			  "%s %s past the end of %s: %s < %s fails on axis "
			  "%d (extent %s); %s",
			  write ? "store" : "load", acc, b->name, it, ex, d, ex,
			  why);
}

static bool
check_access(TileEnv *e, const Expr *base, const ExprVec *idx, bool write,
	     Span sp)
{
	if (!base || base->kind != EX_BUF)
		return true;
	const Buffer *b = base->u.buf;
	if ((b->kind != BK_PARAM && b->kind != BK_ALLOC) ||
	    idx->n != (size_t)b->ndim || !b->shape)
		return true;
	SymTab *st = &e->st;
	for (int d = 0; d < b->ndim; d++) {
		if (ptx_tainted(e, idx->v[d], 0) ||
		    ptx_tainted(e, b->shape[d], 0))
			continue;
		int64_t k;
		if (ir_const_int(idx->v[d], &k))
			continue; /* a constant index is codegen's E9008 */
		Lin i = tile_lin(e, idx->v[d]);
		Lin ext = tile_lin(e, b->shape[d]);
		Lin up = lin_add_const(st, lin_sub(st, ext, i), -1);
		if (!refute(e, b, idx, d, i, i, false, write, sp) ||
		    !refute(e, b, idx, d, up, i, true, write, sp))
			return false;
	}
	return true;
}

static void walk_expr(TileEnv *e, const Expr *x, int depth);

/* x, evaluated only when cond (negated: neg) holds: the arm of a select,
 * the right side of `and` / `or`. */
static void
walk_under(TileEnv *e, const Expr *cond, bool neg, const Expr *x, int depth)
{
	size_t mark = tile_facts_guard(e, cond, neg);
	int sure = tile_bounds_guard(e, cond, neg, mark);
	if (!e->bounds_unsure)
		walk_expr(e, x, depth + 1);
	tile_bounds_restore(e, sure);
	tile_facts_pop(e, mark);
}

/* Every load in x that runs when x is evaluated; those of a select's arm
 * and of the right side of `and` / `or` under their conditions. */
static void
walk_expr(TileEnv *e, const Expr *x, int depth)
{
	if (!x || ctx_has_errors(e->c))
		return;
	/* deeper than any front end admits (a script about 100 levels,
	 * IR JSON 990); such a tree is refused, never left unchecked */
	if (depth > BOUNDS_MAX_DEPTH) {
		diag_error(e->c, PT_E_DEPTH_BUDGET, x->span,
			   "expression nested deeper than %d levels: the "
			   "bounds check cannot follow its loads",
			   BOUNDS_MAX_DEPTH);
		return;
	}
	switch (x->kind) {
	case EX_LOAD:
		for (size_t i = 0; i < x->u.access.indices.n; i++)
			walk_expr(e, x->u.access.indices.v[i], depth + 1);
		check_access(e, x->u.access.base, &x->u.access.indices, false,
			     x->span);
		return;
	case EX_UNARY:
	case EX_CAST:
	case EX_REINTERPRET:
		walk_expr(e, x->u.op.a, depth + 1);
		return;
	case EX_BINARY:
		walk_expr(e, x->u.op.a, depth + 1);
		if (x->u.op.op == BIN_LAND || x->u.op.op == BIN_LOR)
			walk_under(e, x->u.op.a, x->u.op.op == BIN_LOR,
				   x->u.op.b, depth);
		else
			walk_expr(e, x->u.op.b, depth + 1);
		return;
	case EX_SELECT:
		walk_expr(e, x->u.op.a, depth + 1);
		walk_under(e, x->u.op.a, false, x->u.op.b, depth);
		walk_under(e, x->u.op.a, true, x->u.op.c, depth);
		return;
	case EX_BUILTIN:
		for (size_t i = 0; i < x->u.call.args.n; i++)
			walk_expr(e, x->u.call.args.v[i], depth + 1);
		return;
	case EX_PTX:
		for (size_t i = 0; i < x->u.ptx.args.n; i++)
			walk_expr(e, x->u.ptx.args.v[i], depth + 1);
		return;
	default:
		return;
	}
}

void
tile_bounds_stmt(TileEnv *e, const Stmt *s)
{
	if (e->bounds_unsure)
		return;
	switch (s->kind) {
	case ST_VAR_DECL:
	case ST_ASSIGN:
		walk_expr(e, s->u.var.value, 0);
		break;
	case ST_STORE:
		for (size_t i = 0; i < s->u.store.indices.n; i++)
			walk_expr(e, s->u.store.indices.v[i], 0);
		walk_expr(e, s->u.store.value, 0);
		if (!ctx_has_errors(e->c))
			check_access(e, s->u.store.base, &s->u.store.indices,
				     true, s->span);
		break;
	case ST_EVAL:
		walk_expr(e, s->u.value, 0);
		break;
	case ST_IF:
		walk_expr(e, s->u.cond.cond, 0);
		break;
	case ST_WHILE:
		walk_expr(e, s->u.whil.cond, 0);
		break;
	case ST_FOR:
		walk_expr(e, s->u.loop.begin, 0);
		walk_expr(e, s->u.loop.end, 0);
		break;
	default:
		break;
	}
}

/* ---- where statements certainly run ---- */

/* True when cond (negated: neg) is exactly the conjunction of the facts
 * facts.c pushed for it, none of them dead on arrival. */
static bool
captured(TileEnv *e, const Expr *cond, bool neg)
{
	if (!cond || cond->kind != EX_BINARY)
		return false;
	BinOp op = (BinOp)cond->u.op.op;
	if ((op == BIN_LAND && !neg) || (op == BIN_LOR && neg))
		return captured(e, cond->u.op.a, neg) &&
		       captured(e, cond->u.op.b, neg);
	if (op < BIN_LT || op > BIN_NE)
		return false;
	if (neg)
		op = tile_negate_cmp(op);
	if (op == BIN_NE || ptx_tainted(e, cond->u.op.a, 0) ||
	    ptx_tainted(e, cond->u.op.b, 0))
		return false;
	Lin a = tile_lin(e, cond->u.op.a), b = tile_lin(e, cond->u.op.b);
	Lin d = lin_sub(&e->st, b, a);
	if (d.overflow)
		return false;
	/* fact_push drops constant facts: a false one is a dead branch */
	int64_t k = d.c0;
	return !lin_is_const(d) || (op == BIN_LT   ? k >= 1
				    : op == BIN_LE ? k >= 0
				    : op == BIN_GT ? k <= -1
				    : op == BIN_GE ? k <= 0
						   : k == 0);
}

/* The facts from mark on mention no dependent symbol (it could be
 * reassigned, which kills the fact while the branch still holds). */
static bool
facts_clean(TileEnv *e, size_t mark)
{
	bool *m = NEWN(&e->c->arena, bool, e->st.syms.n + 1);
	for (size_t i = mark; i < e->st.facts.n; i++) {
		unsigned kinds;
		if (!lin_kinds(e, e->st.facts.v[i].f, m, &kinds) ||
		    (kinds & (1u << SK_DEP)))
			return false;
	}
	return true;
}

int
tile_bounds_guard(TileEnv *e, const Expr *cond, bool neg, size_t mark)
{
	int saved = e->bounds_unsure;
	if (!captured(e, cond, neg) || !facts_clean(e, mark))
		e->bounds_unsure++;
	return saved;
}

/* A break or continue of this loop (not of a nested one). */
static bool
leaves_early(const Block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];
		if (s->kind == ST_BREAK || s->kind == ST_CONTINUE ||
		    s->kind == ST_RETURN)
			return true;
		if (s->kind == ST_IF && (leaves_early(&s->u.cond.then) ||
					 leaves_early(&s->u.cond.els)))
			return true;
	}
	return false;
}

static bool
has_return(const Block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];
		if (s->kind == ST_RETURN ||
		    (s->kind == ST_IF && (has_return(&s->u.cond.then) ||
					  has_return(&s->u.cond.els))) ||
		    (s->kind == ST_FOR && has_return(&s->u.loop.body)) ||
		    (s->kind == ST_WHILE && has_return(&s->u.whil.body)))
			return true;
	}
	return false;
}

/* ---- variables a raw PTX call writes ----
 *
 * A declared variable keeps its declaration's value in the tile
 * checker's forms (env.c), but a raw PTX call naming it may overwrite
 * it; an index or guard over such a variable is not refuted. */

static void
mark_ptx_args(TileEnv *e, const Expr *x, int depth)
{
	if (!x || depth > BOUNDS_MAX_DEPTH)
		return;
	switch (x->kind) {
	case EX_PTX:
		for (size_t i = 0; i < x->u.ptx.args.n; i++) {
			const Expr *a = x->u.ptx.args.v[i];
			if (a->kind == EX_VAR) {
				size_t k = tile_slot(e, a->u.var->id);
				while (e->bounds_ptxw.n <= k)
					vec_push(&e->c->arena, &e->bounds_ptxw,
						 false);
				e->bounds_ptxw.v[k] = true;
			}
			mark_ptx_args(e, a, depth + 1);
		}
		return;
	case EX_UNARY:
	case EX_BINARY:
	case EX_CAST:
	case EX_REINTERPRET:
	case EX_SELECT:
		mark_ptx_args(e, x->u.op.a, depth + 1);
		mark_ptx_args(e, x->u.op.b, depth + 1);
		mark_ptx_args(e, x->u.op.c, depth + 1);
		return;
	case EX_LOAD:
		for (size_t i = 0; i < x->u.access.indices.n; i++)
			mark_ptx_args(e, x->u.access.indices.v[i], depth + 1);
		return;
	case EX_BUILTIN:
		for (size_t i = 0; i < x->u.call.args.n; i++)
			mark_ptx_args(e, x->u.call.args.v[i], depth + 1);
		return;
	default:
		return;
	}
}

static void
scan_ptx_writes(TileEnv *e, const Block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];
		switch (s->kind) {
		case ST_VAR_DECL:
		case ST_ASSIGN:
			mark_ptx_args(e, s->u.var.value, 0);
			break;
		case ST_STORE:
			mark_ptx_args(e, s->u.store.value, 0);
			break;
		case ST_EVAL:
		case ST_RETURN:
			mark_ptx_args(e, s->u.value, 0);
			break;
		case ST_FOR:
			scan_ptx_writes(e, &s->u.loop.body);
			break;
		case ST_WHILE:
			mark_ptx_args(e, s->u.whil.cond, 0);
			scan_ptx_writes(e, &s->u.whil.body);
			break;
		case ST_IF:
			mark_ptx_args(e, s->u.cond.cond, 0);
			scan_ptx_writes(e, &s->u.cond.then);
			scan_ptx_writes(e, &s->u.cond.els);
			break;
		default:
			break;
		}
	}
}

/* x mentions a variable a raw PTX call writes, directly or through the
 * declarations of the variables it names. */
static bool
ptx_tainted(const TileEnv *e, const Expr *x, int depth)
{
	if (!x || depth > 32)
		return x != NULL;
	switch (x->kind) {
	case EX_VAR: {
		size_t k = tile_slot_find(e, x->u.var->id);
		if (k < e->bounds_ptxw.n && e->bounds_ptxw.v[k])
			return true;
		return k < e->var_init.n &&
		       ptx_tainted(e, e->var_init.v[k], depth + 1);
	}
	case EX_UNARY:
	case EX_BINARY:
	case EX_CAST:
	case EX_REINTERPRET:
	case EX_SELECT:
		return ptx_tainted(e, x->u.op.a, depth + 1) ||
		       ptx_tainted(e, x->u.op.b, depth + 1) ||
		       ptx_tainted(e, x->u.op.c, depth + 1);
	case EX_BUILTIN:
		for (size_t i = 0; i < x->u.call.args.n; i++)
			if (ptx_tainted(e, x->u.call.args.v[i], depth + 1))
				return true;
		return false;
	default:
		return false; /* loads and PTX values are opaque already */
	}
}

void
tile_bounds_init(TileEnv *e)
{
	e->bounds_unsure = has_return(&e->f->body) ? 1 : 0;
	scan_ptx_writes(e, &e->f->body);
}

/* Called after tile_env_loop and tile_facts_loop (mark: the stack
 * before the loop's facts). */
int
tile_bounds_loop(TileEnv *e, const Stmt *loop, size_t mark)
{
	int saved = e->bounds_unsure;
	if (loop->kind == ST_WHILE) {
		if (!captured(e, loop->u.whil.cond, false) ||
		    !facts_clean(e, mark) || leaves_early(&loop->u.whil.body))
			e->bounds_unsure++;
		return saved;
	}
	if (leaves_early(&loop->u.loop.body)) {
		e->bounds_unsure++;
		return saved;
	}
	const Var *v = loop->u.loop.var;
	int64_t step = 1, b0;
	if (loop->u.loop.step && !ir_const_int(loop->u.loop.step, &step))
		return saved;
	bool begin_const = ir_const_int(loop->u.loop.begin, &b0);
	size_t k = tile_slot_find(e, v->id);
	if (step <= 0 || var_assigned(e, v) || k >= e->var_sym.n ||
	    !e->var_sym.v[k] || (step > 1 && (!begin_const || b0 % step)))
		return saved;
	int s = e->var_sym.v[k] - 1;
	if (step > 1 && sym_get(&e->st, s)->mult != step)
		return saved;
	while (e->bounds_exact.n <= (size_t)s)
		vec_push(&e->c->arena, &e->bounds_exact, false);
	e->bounds_exact.v[s] = true;
	return saved;
}

/* After the loop its variable (and every name declared from it in the
 * body) holds one value, the last one, not each of its range. */
void
tile_bounds_loop_end(TileEnv *e, const Stmt *loop)
{
	size_t k = tile_slot_find(e, loop->u.loop.var->id);
	if (k >= e->var_sym.n || !e->var_sym.v[k])
		return;
	size_t s = (size_t)(e->var_sym.v[k] - 1);
	if (s < e->bounds_exact.n)
		e->bounds_exact.v[s] = false;
}

void
tile_bounds_restore(TileEnv *e, int saved)
{
	e->bounds_unsure = saved;
}
