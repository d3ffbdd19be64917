/*
 * env.c - the per-kernel walk state of the tile checker: prover symbols
 * for hardware ids, loop variables and opaque scalars, the active
 * hardware ranges under guards, and the conversions between IR integer
 * expressions and linear forms.
 *
 * Input: expressions of region origins, guard conditions, loop ranges.
 * Output: Lin forms (tile_lin) and IR expressions back (tile_lin_expr).
 * Invariant: every symbol made here records the IR expression it stands
 * for, so any form over them can be emitted; symbols the prover derives
 * (quotients) are emitted through their base symbol.
 *
 * Guards recognised (docs/patterns.md): comparisons of lane_id(),
 * warp_id() or thread_idx("x") (1-D blocks), or of a never-reassigned
 * variable declared as one of them, with constants, joined by `and`; an
 * `else` negates a single ordering comparison.
 */
#include <string.h>

#include "tile/tile.h"

Expr *
tile_int(Ctx *c, int64_t v, Span sp)
{
	Expr *x = ir_new_expr(c, EX_INT, ET_SCALAR, DT_INT32, sp);
	x->u.ival = v;
	if (v < INT32_MIN || v > INT32_MAX)
		x->dtype = DT_INT64;
	return x;
}

Expr *
tile_builtin0(Ctx *c, Builtin b, Span sp)
{
	Expr *x = ir_new_expr(c, EX_BUILTIN, ET_SCALAR, DT_INT32, sp);
	x->u.call.id = b;
	return x;
}

static Expr *
builtin_axis(Ctx *c, Builtin b, const char *axis, Span sp)
{
	Expr *x = tile_builtin0(c, b, sp);
	Expr *s = ir_new_expr(c, EX_STR, ET_STR, DT_NONE, sp);
	s->u.str = axis;
	vec_push(&c->arena, &x->u.call.args, s);
	return x;
}

Expr *
tile_binop(Ctx *c, BinOp op, Expr *a, Expr *b, DType t, Span sp)
{
	Expr *x = ir_new_expr(c, EX_BINARY, ET_SCALAR, t, sp);
	x->u.op.op = op;
	x->u.op.a = a;
	x->u.op.b = b;
	return x;
}

int
tile_new_sym(TileEnv *e, const char *name, int64_t lo, int64_t hi, Expr *x)
{
	int id = sym_new(&e->st, name, lo, hi, 1);
	while (e->sym_expr.n <= (size_t)id)
		vec_push(&e->c->arena, &e->sym_expr, NULL);
	e->sym_expr.v[id] = x;
	return id;
}

static int64_t
const_or(const Expr *x, int64_t dflt)
{
	int64_t v;
	return x && ir_const_int(x, &v) ? v : dflt;
}

size_t
tile_slot(TileEnv *e, int id)
{
	return dense_index(&e->c->arena, &e->ids, id);
}

size_t
tile_slot_find(const TileEnv *e, int id)
{
	return dense_find(&e->ids, id);
}

void
tile_env_init(TileEnv *e, Ctx *c, Module *m, Func *f)
{
	memset(e, 0, sizeof(*e));
	e->c = c;
	e->m = m;
	e->f = f;
	symtab_init(&e->st, &c->arena);
	e->nthreads = 1;
	for (int i = 0; i < 3; i++) {
		e->block[i] = i < f->launch.nblock
				      ? const_or(f->launch.block[i], 0) : 1;
		e->nthreads *= e->block[i];
	}
	e->lane_lo = 0;
	e->lane_hi = 31;
	e->warp_lo = 0;
	e->warp_hi = e->nthreads > 0 ? (e->nthreads + 31) / 32 - 1 : 1023;
	if (e->nthreads > 0 && e->nthreads < 32)
		e->lane_hi = e->nthreads - 1;
	static const char *const names[3] = {"x", "y", "z"};
	for (int i = 0; i < 3; i++) {
		e->cta_sym[i] = -1;
		if (i < f->launch.ncluster)
			e->cta_sym[i] = tile_new_sym(
				e, arena_printf(&c->arena, "cta_%s", names[i]),
				0, f->launch.cluster[i] - 1,
				builtin_axis(c, BI_CLUSTER_CTA_ID, names[i],
					     f->span));
	}
	tile_env_refresh_ids(e);
	tile_facts_init(e);
}

void
tile_env_refresh_ids(TileEnv *e)
{
	Span sp = e->f->span;
	e->lane_sym = tile_new_sym(e, "lane", e->lane_lo, e->lane_hi,
				   tile_builtin0(e->c, BI_LANE_ID, sp));
	e->warp_sym = tile_new_sym(e, "warp", e->warp_lo, e->warp_hi,
				   tile_builtin0(e->c, BI_WARP_ID, sp));
}

/* ---- guards ---- */

enum { HW_NONE, HW_LANE, HW_WARP, HW_TID };

static int
hw_of(const Expr *x)
{
	if (!x || x->kind != EX_BUILTIN)
		return HW_NONE;
	if (x->u.call.id == BI_LANE_ID)
		return HW_LANE;
	if (x->u.call.id == BI_WARP_ID)
		return HW_WARP;
	if (x->u.call.id == BI_THREAD_IDX && x->u.call.args.n == 1 &&
	    x->u.call.args.v[0]->kind == EX_STR &&
	    strcmp(x->u.call.args.v[0]->u.str, "x") == 0)
		return HW_TID;
	return HW_NONE;
}

static BinOp
flip(BinOp op)
{
	switch (op) {
	case BIN_LT: return BIN_GT;
	case BIN_LE: return BIN_GE;
	case BIN_GT: return BIN_LT;
	case BIN_GE: return BIN_LE;
	default: return op;
	}
}

BinOp
tile_negate_cmp(BinOp op)
{
	switch (op) {
	case BIN_LT: return BIN_GE;
	case BIN_LE: return BIN_GT;
	case BIN_GT: return BIN_LE;
	case BIN_GE: return BIN_LT;
	case BIN_EQ: return BIN_NE;
	default: return BIN_EQ; /* != negated */
	}
}

static void
narrow(int64_t *lo, int64_t *hi, BinOp op, int64_t k)
{
	switch (op) {
	/* lo and hi are hardware id bounds, so lo - 1 and hi + 1 cannot
	 * overflow where k +- 1 could (k is any int64 constant). */
	case BIN_LT:
		if (k <= *lo) *hi = *lo - 1;
		else if (k <= *hi) *hi = k - 1;
		break;
	case BIN_LE: if (k < *hi) *hi = k; break;
	case BIN_GT:
		if (k >= *hi) *lo = *hi + 1;
		else if (k >= *lo) *lo = k + 1;
		break;
	case BIN_GE: if (k > *lo) *lo = k; break;
	case BIN_EQ:
		if (k > *lo) *lo = k;
		if (k < *hi) *hi = k;
		break;
	default: break; /* != narrows nothing */
	}
}

/* A thread range [lo, hi] of a 1-D block as warp and lane ranges, when
 * it is whole warps or lies inside one warp. */
static void
narrow_tid(TileEnv *e, int64_t lo, int64_t hi)
{
	if (e->block[1] != 1 || e->block[2] != 1 || lo > hi)
		return;
	if (lo % 32 == 0 && (hi + 1) % 32 == 0) {
		narrow(&e->warp_lo, &e->warp_hi, BIN_GE, lo / 32);
		narrow(&e->warp_lo, &e->warp_hi, BIN_LE, hi / 32);
	} else if (lo / 32 == hi / 32) {
		narrow(&e->warp_lo, &e->warp_hi, BIN_EQ, lo / 32);
		narrow(&e->lane_lo, &e->lane_hi, BIN_GE, lo % 32);
		narrow(&e->lane_lo, &e->lane_hi, BIN_LE, hi % 32);
	}
}

/* A never-reassigned variable stands for its declared value, so that
 * `lane = T.cuda.lane_id()` then `if lane == 0:` is a guard. */
static const Expr *
through_var(const TileEnv *e, const Expr *x)
{
	for (int i = 0; i < 4 && x && x->kind == EX_VAR; i++) {
		size_t id = tile_slot_find(e, x->u.var->id);
		if (id >= e->var_init.n || !e->var_init.v[id])
			break;
		x = e->var_init.v[id];
	}
	return x;
}

static void
guard_cmp(TileEnv *e, const Expr *cond, bool neg)
{
	BinOp op = (BinOp)cond->u.op.op;
	const Expr *a = through_var(e, cond->u.op.a);
	const Expr *b = through_var(e, cond->u.op.b);
	int64_t k;
	if (hw_of(b) != HW_NONE) {
		const Expr *t = a;
		a = b;
		b = t;
		op = flip(op);
	}
	int hw = hw_of(a);
	if (hw == HW_NONE || !ir_const_int(b, &k))
		return;
	if (neg)
		op = tile_negate_cmp(op);
	if (hw == HW_LANE)
		narrow(&e->lane_lo, &e->lane_hi, op, k);
	else if (hw == HW_WARP)
		narrow(&e->warp_lo, &e->warp_hi, op, k);
	else {
		int64_t lo = 0, hi = e->nthreads - 1;
		narrow(&lo, &hi, op, k);
		narrow_tid(e, lo, hi);
	}
}

/* Whether x reads the lane id or threadIdx.x (through never-reassigned
 * variables): a condition on it can split a warp.  Past a depth bound
 * the answer is yes, which only makes the caller more careful. */
static bool
mentions_lane(const TileEnv *e, const Expr *x, int depth)
{
	x = through_var(e, x);
	if (!x)
		return false;
	if (depth > 64)
		return true;
	int hw = hw_of(x);
	if (hw == HW_LANE || hw == HW_TID)
		return true;
	const ExprVec *args = NULL;
	switch (x->kind) {
	case EX_UNARY:
	case EX_BINARY:
	case EX_CAST:
	case EX_REINTERPRET:
	case EX_SELECT:
		return mentions_lane(e, x->u.op.a, depth + 1) ||
		       mentions_lane(e, x->u.op.b, depth + 1) ||
		       mentions_lane(e, x->u.op.c, depth + 1);
	case EX_BUILTIN: args = &x->u.call.args; break;
	case EX_LOAD: args = &x->u.access.indices; break;
	default: return false;
	}
	for (size_t i = 0; i < args->n; i++)
		if (mentions_lane(e, args->v[i], depth + 1))
			return true;
	return false;
}

/* Whether the lane range after guard_cmp is exactly the set of lanes
 * (of each warp) the comparison keeps: lane or threadIdx.x against a
 * constant, in a form narrow and narrow_tid express. */
static bool
cmp_exact(const TileEnv *e, const Expr *cond, bool neg)
{
	BinOp op = (BinOp)cond->u.op.op;
	const Expr *a = through_var(e, cond->u.op.a);
	const Expr *b = through_var(e, cond->u.op.b);
	if (hw_of(b) != HW_NONE) {
		const Expr *t = a;
		a = b;
		b = t;
	}
	int64_t k;
	int hw = hw_of(a);
	if (hw == HW_NONE || !ir_const_int(b, &k) || mentions_lane(e, b, 0))
		return !mentions_lane(e, cond, 0);
	if (hw == HW_WARP)
		return true; /* the warp id is the same on all lanes */
	if (neg)
		op = tile_negate_cmp(op);
	if (hw == HW_TID && e->nthreads <= 0)
		return false; /* guard_cmp narrows nothing then */
	if (op == BIN_NE) /* exact only when no active id equals k */
		return hw == HW_LANE ? k < e->lane_lo || k > e->lane_hi
				     : k < 0 || k >= e->nthreads;
	if (hw == HW_LANE)
		return true;
	int64_t lo = 0, hi = e->nthreads - 1;
	narrow(&lo, &hi, op, k);
	if (lo > hi || (lo == 0 && hi == e->nthreads - 1))
		return true; /* no thread, or every thread */
	return e->block[1] == 1 && e->block[2] == 1 &&
	       ((lo % 32 == 0 && (hi + 1) % 32 == 0) || lo / 32 == hi / 32);
}

/* Narrows the ranges for cond (negated when neg); returns false when
 * cond constrains lanes in a way the ranges cannot hold (an `or`, `!=`,
 * arithmetic on the lane id, a thread range across part of a warp), so
 * that a warp collective under it is not taken as having all lanes. */
static bool
guard_expr(TileEnv *e, const Expr *cond, bool neg)
{
	if (cond->kind != EX_BINARY)
		return !mentions_lane(e, cond, 0);
	BinOp op = (BinOp)cond->u.op.op;
	if (op == BIN_LAND && !neg) {
		bool a = guard_expr(e, cond->u.op.a, false);
		return guard_expr(e, cond->u.op.b, false) && a;
	}
	if (op < BIN_LT || op > BIN_NE)
		return !mentions_lane(e, cond, 0);
	bool exact = cmp_exact(e, cond, neg);
	if (neg && op == BIN_EQ)
		return exact; /* x != k is not a range */
	guard_cmp(e, cond, neg);
	return exact;
}

void
tile_guard_push(TileEnv *e, const Expr *cond, bool neg, GuardSave *save)
{
	save->lane_lo = e->lane_lo;
	save->lane_hi = e->lane_hi;
	save->warp_lo = e->warp_lo;
	save->warp_hi = e->warp_hi;
	save->inexact = !guard_expr(e, cond, neg);
	e->lane_inexact += save->inexact;
	/* A guard no thread of the launch satisfies (`if warp == 5` with
	 * four warps, the else of `if lane < 32`) leaves an empty range: the
	 * region never runs, so it is checked as if unguarded rather than
	 * over an empty (and unrepresentable) symbol range. */
	if (e->lane_lo > e->lane_hi || e->warp_lo > e->warp_hi) {
		e->lane_lo = save->lane_lo;
		e->lane_hi = save->lane_hi;
		e->warp_lo = save->warp_lo;
		e->warp_hi = save->warp_hi;
	}
	if (save->lane_lo != e->lane_lo || save->lane_hi != e->lane_hi ||
	    save->warp_lo != e->warp_lo || save->warp_hi != e->warp_hi)
		tile_env_refresh_ids(e);
}

void
tile_guard_pop(TileEnv *e, const GuardSave *save)
{
	bool changed = save->lane_lo != e->lane_lo ||
		       save->lane_hi != e->lane_hi ||
		       save->warp_lo != e->warp_lo ||
		       save->warp_hi != e->warp_hi;
	e->lane_lo = save->lane_lo;
	e->lane_hi = save->lane_hi;
	e->warp_lo = save->warp_lo;
	e->warp_hi = save->warp_hi;
	e->lane_inexact -= save->inexact;
	if (changed)
		tile_env_refresh_ids(e);
}

/* ---- linear forms of IR expressions ---- */

static void
dtype_range(DType t, int64_t *lo, int64_t *hi)
{
	int bits = dtype_bits(t);
	bool sig = dtype_kind(t) == DK_INT;
	if (bits >= 64 || bits <= 0) {
		*lo = sig ? INT64_MIN / 4 : 0;
		*hi = INT64_MAX / 4;
	} else if (sig) {
		*lo = -((int64_t)1 << (bits - 1));
		*hi = ((int64_t)1 << (bits - 1)) - 1;
	} else {
		*lo = 0;
		*hi = ((int64_t)1 << bits) - 1;
	}
}

static int
var_sym(TileEnv *e, const Var *v, Span sp)
{
	size_t k = tile_slot(e, v->id);
	while (e->var_sym.n <= k)
		vec_push(&e->c->arena, &e->var_sym, 0);
	if (e->var_sym.v[k])
		return e->var_sym.v[k] - 1;
	int64_t lo, hi;
	dtype_range(v->dtype, &lo, &hi);
	if (v->kind == VK_DYN)
		lo = 0; /* a size (the runtime checks 0 <= n <= INT32_MAX) */
	else
		tile_var_floor(e, v, &lo, hi);
	Expr *x = ir_new_expr(e->c, EX_VAR, ET_SCALAR, v->dtype, sp);
	x->u.var = (Var *)v;
	int s = tile_new_sym(e, v->name, lo, hi, x);
	e->var_sym.v[k] = s + 1;
	return s;
}

void
tile_env_decl(TileEnv *e, const Stmt *decl)
{
	const Var *v = decl->u.var.var;
	size_t slot = tile_slot(e, v->id);
	if (!decl->u.var.value ||
	    (slot < e->assigned.n && e->assigned.v[slot]))
		return;
	DTypeKind k = dtype_kind(v->dtype);
	if (k != DK_INT && k != DK_UINT)
		return;
	while (e->var_init.n <= slot)
		vec_push(&e->c->arena, &e->var_init, NULL);
	e->var_init.v[slot] = decl->u.var.value;
	Lin *l = NEW(&e->c->arena, Lin);
	*l = tile_lin(e, decl->u.var.value);
	while (e->var_lin.n <= slot)
		vec_push(&e->c->arena, &e->var_lin, NULL);
	e->var_lin.v[slot] = l;
}

void
tile_env_loop(TileEnv *e, const Stmt *loop)
{
	Var *v = loop->u.loop.var;
	int64_t lo, hi, step = const_or(loop->u.loop.step, 1);
	Lin b = tile_lin(e, loop->u.loop.begin);
	Lin en = tile_lin(e, loop->u.loop.end);
	int64_t blo, bhi, elo, ehi;
	if (!lin_bounds(&e->st, b, &blo, &bhi) ||
	    !lin_bounds(&e->st, en, &elo, &ehi) || step <= 0) {
		dtype_range(v->dtype, &lo, &hi);
	} else {
		lo = blo;
		if (ckd_sub64(&hi, ehi, 1) || hi < lo) /* ehi may be INT64_MIN */
			hi = lo;
	}
	size_t k = tile_slot(e, v->id);
	while (e->var_sym.n <= k)
		vec_push(&e->c->arena, &e->var_sym, 0);
	Expr *x = ir_new_expr(e->c, EX_VAR, ET_SCALAR, v->dtype, loop->span);
	x->u.var = v;
	int s;
	if (lin_is_const(b) && step > 1 && b.c0 % step == 0)
		s = sym_new(&e->st, v->name, lo, hi, step);
	else
		s = sym_new(&e->st, v->name, lo, hi, 1);
	while (e->sym_expr.n <= (size_t)s)
		vec_push(&e->c->arena, &e->sym_expr, NULL);
	e->sym_expr.v[s] = x;
	e->var_sym.v[k] = s + 1;
}

static Lin
opaque(TileEnv *e, const Expr *x)
{
	int64_t lo, hi;
	dtype_range(x->dtype ? x->dtype : DT_INT32, &lo, &hi);
	return lin_sym(&e->st, tile_new_sym(e, "expr", lo, hi, (Expr *)x));
}

/* T.min / T.max: an opaque value, but within the interval its
 * arguments' bounds give, so that a ring slot stepped by the script and
 * read as T.min(slot, STAGES - 1) is provably a slot (a division by a
 * stage count that is not a power of two costs ptxas a reciprocal
 * sequence per k-tile).  The dtype's range still bounds it. */
static Lin
min_max(TileEnv *e, const Expr *x)
{
	int64_t alo, ahi, blo, bhi, dlo, dhi;
	if (!lin_bounds(&e->st, tile_lin(e, x->u.call.args.v[0]), &alo, &ahi) ||
	    !lin_bounds(&e->st, tile_lin(e, x->u.call.args.v[1]), &blo, &bhi))
		return opaque(e, x);
	bool is_min = x->u.call.id == BI_MIN;
	int64_t lo = is_min ? (alo < blo ? alo : blo) : (alo > blo ? alo : blo);
	int64_t hi = is_min ? (ahi < bhi ? ahi : bhi) : (ahi > bhi ? ahi : bhi);
	dtype_range(x->dtype ? x->dtype : DT_INT32, &dlo, &dhi);
	if (lo < dlo)
		lo = dlo;
	if (hi > dhi)
		hi = dhi;
	if (lo > hi)
		return opaque(e, x);
	return lin_sym(&e->st, tile_new_sym(e, "expr", lo, hi, (Expr *)x));
}

/* a * b.  A product of two symbolic forms is a fresh symbol with the
 * product's interval; the same product (by its canonical text) gets the
 * same symbol, which remembers x so that it can be emitted. */
static Lin
product(TileEnv *e, const Expr *x, Lin a, Lin b)
{
	if (lin_is_const(a) || lin_is_const(b))
		return lin_mul(&e->st, a, b);
	const char *sa = lin_str(&e->st, a), *sb = lin_str(&e->st, b);
	const char *key = strcmp(sa, sb) <= 0
				  ? arena_printf(&e->c->arena, "%s|%s", sa, sb)
				  : arena_printf(&e->c->arena, "%s|%s", sb, sa);
	for (size_t i = 0; i < e->products.n; i++)
		if (strcmp(e->products.v[i].key, key) == 0)
			return lin_sym(&e->st, e->products.v[i].sym);
	Lin r = lin_mul(&e->st, a, b);
	if (r.overflow || r.n != 1 || r.c0 != 0 || r.t[0].coef != 1)
		return r;
	int s = r.t[0].sym;
	while (e->sym_expr.n <= (size_t)s)
		vec_push(&e->c->arena, &e->sym_expr, NULL);
	e->sym_expr.v[s] = (Expr *)x;
	TileProduct p = {key, s};
	vec_push(&e->c->arena, &e->products, p);
	return r;
}

Lin
tile_lin(TileEnv *e, const Expr *x)
{
	int64_t k;
	if (!x)
		return lin_const(0);
	if (ir_const_int(x, &k))
		return lin_const(k);
	switch (x->kind) {
	case EX_VAR: {
		size_t slot = tile_slot_find(e, x->u.var->id);
		if (slot < e->var_lin.n && e->var_lin.v[slot])
			return *e->var_lin.v[slot];
		return lin_sym(&e->st, var_sym(e, x->u.var, x->span));
	}
	case EX_BUILTIN:
		if (x->u.call.id == BI_LANE_ID)
			return lin_sym(&e->st, e->lane_sym);
		if (x->u.call.id == BI_WARP_ID)
			return lin_sym(&e->st, e->warp_sym);
		if (hw_of(x) == HW_TID && e->nthreads > 0 &&
		    e->block[1] == 1 && e->block[2] == 1)
			return lin_add(&e->st,
				       lin_term(&e->st, 32, e->warp_sym),
				       lin_sym(&e->st, e->lane_sym));
		if (x->u.call.id == BI_BLOCK_IDX && x->u.call.args.n == 1 &&
		    x->u.call.args.v[0]->kind == EX_STR) {
			/* block ids range over the grid: [0, grid) */
			int a = x->u.call.args.v[0]->u.str[0] - 'x';
			if (a >= 0 && a < 3)
				return lin_sym(&e->st, tile_block_sym(e, a, x));
		}
		if (x->u.call.id == BI_CEILDIV && x->u.call.args.n == 2) {
			Lin kk = tile_lin(e, x->u.call.args.v[1]);
			if (lin_is_const(kk) && kk.c0 > 0)
				return lin_floordiv(
					&e->st,
					lin_add_const(&e->st,
						      tile_lin(e, x->u.call.args.v[0]),
						      kk.c0 - 1),
					kk.c0);
		}
		if ((x->u.call.id == BI_MIN || x->u.call.id == BI_MAX) &&
		    x->u.call.args.n == 2)
			return min_max(e, x);
		/* before the catch-all below, which would hide the
		 * cluster rank's range [0, cluster) */
		if (x->u.call.id == BI_CLUSTER_CTA_ID &&
		    x->u.call.args.n == 1 &&
		    x->u.call.args.v[0]->kind == EX_STR) {
			int a = x->u.call.args.v[0]->u.str[0] - 'x';
			if (a >= 0 && a < 3 && e->cta_sym[a] >= 0)
				return lin_sym(&e->st, e->cta_sym[a]);
		}
		if (x->u.call.id == BI_THREAD_IDX ||
		    x->u.call.id == BI_BLOCK_IDX ||
		    x->u.call.id == BI_CLUSTER_CTA_ID)
			return lin_sym(&e->st, tile_new_sym(e, "tid", 0,
							    INT32_MAX,
							    (Expr *)x));
		return opaque(e, x);
	case EX_CAST:
		if (dtype_kind(x->dtype) == DK_INT ||
		    dtype_kind(x->dtype) == DK_UINT)
			return tile_lin(e, x->u.op.a);
		return opaque(e, x);
	case EX_UNARY:
		if (x->u.op.op == UN_NEG)
			return lin_scale(&e->st, tile_lin(e, x->u.op.a), -1);
		return opaque(e, x);
	case EX_BINARY: {
		Lin a = tile_lin(e, x->u.op.a);
		Lin b;
		switch ((BinOp)x->u.op.op) {
		case BIN_ADD:
			return lin_add(&e->st, a, tile_lin(e, x->u.op.b));
		case BIN_SUB:
			return lin_sub(&e->st, a, tile_lin(e, x->u.op.b));
		case BIN_MUL:
			return product(e, x, a, tile_lin(e, x->u.op.b));
		case BIN_FLOORDIV:
		case BIN_MOD:
			b = tile_lin(e, x->u.op.b);
			if (!lin_is_const(b) || b.c0 <= 0)
				return opaque(e, x);
			return x->u.op.op == BIN_MOD
				       ? lin_mod(&e->st, a, b.c0)
				       : lin_floordiv(&e->st, a, b.c0);
		case BIN_SHL:
			b = tile_lin(e, x->u.op.b);
			if (!lin_is_const(b) || b.c0 < 0 || b.c0 > 40)
				return opaque(e, x);
			return lin_scale(&e->st, a, (int64_t)1 << b.c0);
		default:
			return opaque(e, x);
		}
	}
	default:
		return opaque(e, x);
	}
}

static Expr *widen(TileEnv *e, Expr *x, DType t, Span sp);

/* `of // by` or `of % by` (by > 0) in u's type.  A dividend the prover
 * bounds to [0, 2^32) divides unsigned, where floor and truncation agree:
 * ptxas turns an unsigned division by a constant into a multiply, while
 * the signed floor form costs a sign fix-up at every use (measured on the
 * H200: a 6-stage TMA ring ran at half the speed of an 8-stage one). */
static Expr *
divmod_expr(TileEnv *e, const Sym *y, Expr *u, Span sp)
{
	BinOp op = y->op == '/' ? BIN_FLOORDIV : BIN_MOD;
	DType t = u->dtype;
	int64_t lo, hi;
	if (!lin_bounds(&e->st, y->of, &lo, &hi) || lo < 0 ||
	    hi > (int64_t)UINT32_MAX)
		return tile_binop(e->c, op, u,
				  widen(e, tile_int(e->c, y->by, sp), t, sp),
				  t, sp);
	Expr *q = tile_binop(e->c, op, widen(e, u, DT_UINT32, sp),
			     widen(e, tile_int(e->c, y->by, sp), DT_UINT32, sp),
			     DT_UINT32, sp);
	return widen(e, q, t, sp);
}

/* A quotient, remainder or swizzled unit index the prover made
 * (Sym.op), rebuilt from its form: `of // by`, `of % by` (floor
 * semantics, as BIN_FLOORDIV/BIN_MOD) or u ^ ((u & mask) >> sw_s). */
static Expr *
derived_expr(TileEnv *e, const Sym *y, Span sp)
{
	Expr *u = tile_lin_expr(e, y->of, sp);
	if (!u)
		return NULL;
	DType t = u->dtype;
	if (y->op == '/' || y->op == '%')
		return divmod_expr(e, y, u, sp);
	int sw_b = (int)(y->by >> 8), sw_s = (int)(y->by & 0xff);
	int64_t mask = (((int64_t)1 << sw_b) - 1) << sw_s;
	Expr *hi = tile_binop(e->c, BIN_BAND, u,
			      widen(e, tile_int(e->c, mask, sp), t, sp), t, sp);
	hi = tile_binop(e->c, BIN_SHR, hi,
			widen(e, tile_int(e->c, sw_s, sp), t, sp), t, sp);
	return tile_binop(e->c, BIN_BXOR, u, hi, t, sp);
}

/* The IR expression of symbol s, or NULL. */
static Expr *
sym_expr(TileEnv *e, int s, Span sp)
{
	if (s < (int)e->sym_expr.n && e->sym_expr.v[s])
		return e->sym_expr.v[s];
	const Sym *y = sym_get(&e->st, s);
	if (y->quot_of >= 0) {
		Expr *base = sym_expr(e, y->quot_of, sp);
		const Sym *b = sym_get(&e->st, y->quot_of);
		if (!base)
			return NULL;
		return tile_binop(e->c, BIN_FLOORDIV, base,
				  tile_int(e->c, b->mult, sp), base->dtype, sp);
	}
	if (y->op)
		return derived_expr(e, y, sp);
	return NULL;
}

static Expr *
widen(TileEnv *e, Expr *x, DType t, Span sp)
{
	if (x->dtype == t)
		return x;
	if (x->kind == EX_INT) {
		Expr *n = tile_int(e->c, x->u.ival, sp);
		n->dtype = t;
		return n;
	}
	Expr *c = ir_new_expr(e->c, EX_CAST, ET_SCALAR, t, sp);
	c->u.op.a = x;
	return c;
}

Expr *
tile_lin_expr(TileEnv *e, Lin l, Span sp)
{
	int64_t lo, hi;
	if (l.overflow || !lin_bounds(&e->st, l, &lo, &hi))
		return NULL;
	DType t = lo >= INT32_MIN && hi <= INT32_MAX ? DT_INT32 : DT_INT64;
	Expr *acc = NULL;
	for (int i = 0; i < l.n; i++) {
		Expr *s = sym_expr(e, l.t[i].sym, sp);
		if (!s)
			return NULL;
		s = widen(e, s, t, sp);
		if (l.t[i].coef != 1)
			s = tile_binop(e->c, BIN_MUL, s,
				       widen(e, tile_int(e->c, l.t[i].coef, sp),
					     t, sp), t, sp);
		acc = acc ? tile_binop(e->c, BIN_ADD, acc, s, t, sp) : s;
	}
	Expr *k = widen(e, tile_int(e->c, l.c0, sp), t, sp);
	if (!acc)
		return k;
	if (l.c0 != 0)
		acc = tile_binop(e->c, BIN_ADD, acc, k, t, sp);
	return acc;
}

static bool
sym_expressible(const TileEnv *e, int s)
{
	if (s < (int)e->sym_expr.n && e->sym_expr.v[s])
		return true;
	const Sym *y = sym_get(&e->st, s);
	if (y->quot_of >= 0)
		return sym_expressible(e, y->quot_of);
	return y->op && tile_lin_expressible(e, y->of);
}

/* Whether tile_lin_expr(e, l) would succeed, without building the
 * expression (the same recursion as sym_expr/derived_expr). */
bool
tile_lin_expressible(const TileEnv *e, Lin l)
{
	int64_t lo, hi;
	if (l.overflow || !lin_bounds(&e->st, l, &lo, &hi))
		return false;
	for (int i = 0; i < l.n; i++)
		if (!sym_expressible(e, l.t[i].sym))
			return false;
	return true;
}
