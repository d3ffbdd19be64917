/*
 * lower.c - tile_lower_module: rewrites every checked tile call into
 * plain IR that codegen emits directly.
 *
 * Input: a module after check_module without errors (each tile call
 * node carries its TileCall, Expr.u.apply.tile / u.ewise.tile: the form
 * its checker chose; here a repeat is issued on that row with its
 * arguments, through ir_ptx_issue, never fitted again).  Output: each
 * ST_EVAL(tile call) replaced, in place in its block, by
 *   apply: one ST_EVAL(EX_PTX) per row-major repeat coordinate, its
 *     arguments in the selected form's PTX order: register slots as
 *     element references of the per-thread storage (EX_LOAD, also the
 *     lvalue of an output), memory atoms as EX_PTR_TO at the atom start
 *     (thread-dependent parts are lane_id()/warp_id() expressions),
 *     scalar operands as written, a register group as one tuple,
 *     cache_policy last;
 *   ewise: per element a result variable, the scalar function body
 *     inlined with its parameters replaced by the element references
 *     (if/else with returns become if/else assigning the result), and
 *     a store of the result into the destination slot.
 * Element references use the operand's own view expression with its
 * logical (group, repeat, atom) index, so codegen applies the same
 * layouts: register operands with group coordinate 0 (every thread's
 * slot is the same, checked), memory operands with the hardware ids
 * minus the guard origin.  A view chain codegen cannot index logically
 * (reshape, width-changing dtype view) is addressed through its m axis
 * instead: `buf.view(N)[.view(dtype)]` at the checked slot / offset.
 */
#include <string.h>

#include "tile/tile.h"

typedef struct Lower {
	Ctx *c;
	Module *m;
	int next_var;  /* next free Var.id */
} Lower;

/* ---- element references ---- */

static Expr *
storage_len(Ctx *c, const Buffer *b, Span sp)
{
	int64_t shape[16];
	bool st = b->ndim <= 16;
	for (int d = 0; st && d < b->ndim; d++)
		st = ir_const_int(b->shape[d], &shape[d]);
	if (st)
		return tile_int(c, layout_alloc_elems(b->layout, shape,
						      b->ndim), sp);
	Expr *n = NULL;
	for (int d = 0; d < b->ndim; d++)
		n = n ? tile_binop(c, BIN_MUL, n, b->shape[d],
				   b->shape[d]->dtype, sp)
		      : b->shape[d];
	return n;
}

/* The storage of op's buffer as a flat vector of op elements (the m
 * axis): `buf.view(N)` then `.view(dtype)` where needed.  Used when
 * the operand's view chain has a reshape or a width-changing dtype
 * view, which codegen resolves only through the m axis. */
static Expr *
storage(Ctx *c, const TileOperand *op, Span sp)
{
	Buffer *b = op->root;
	Expr *x = ir_new_expr(c, EX_BUF, ET_TENSOR, b->dtype, sp);
	x->u.buf = b;
	if (b->ndim != 1 || b->layout) {
		Expr *r = ir_new_expr(c, EX_VIEW_RESHAPE, ET_TENSOR, b->dtype,
				      sp);
		r->u.view.base = x;
		vec_push(&c->arena, &r->u.view.shape, storage_len(c, b, sp));
		x = r;
	}
	if (op->dtype != b->dtype) {
		Expr *v = ir_new_expr(c, EX_VIEW_DTYPE, ET_TENSOR, op->dtype,
				      sp);
		v->u.view.base = x;
		x = v;
	}
	return x;
}

/* Logical index of op at repeat r, atom word a: group axes from
 * `group` (NULL: coordinate 0), repeat axes unflattened from r. */
static void
push_index(Ctx *c, ExprVec *idx, const TileCall *tc, const TileOperand *op,
	   Expr *const *group, int64_t r, int a, Span sp)
{
	for (int i = 0; i < tc->ngroup; i++)
		vec_push(&c->arena, idx, group ? group[i] : tile_int(c, 0, sp));
	int64_t rc[64];
	for (int i = tc->nrepeat - 1; i >= 0 && i < 64; i--) {
		rc[i] = r % tc->repeat[i];
		r /= tc->repeat[i];
	}
	for (int i = 0; i < tc->nrepeat && i < 64; i++)
		vec_push(&c->arena, idx, tile_int(c, rc[i], sp));
	if (tile_atom_axes(op))
		vec_push(&c->arena, idx, tile_int(c, a, sp));
}

Expr *
tile_reg_ref(Ctx *c, const TileCall *tc, const TileOperand *op, int64_t r,
	     int a, Span sp)
{
	Expr *x = ir_new_expr(c, EX_LOAD, ET_SCALAR, op->dtype, sp);
	if (tile_plain_chain(op->expr) && !op->by_slot) {
		/* any group coordinate names the same slot (checked), so
		 * group 0 stands for the executing thread */
		x->u.access.base = op->expr;
		push_index(c, &x->u.access.indices, tc, op, NULL, r, a, sp);
		return x;
	}
	x->u.access.base = storage(c, op, sp);
	vec_push(&c->arena, &x->u.access.indices,
		 tile_int(c, op->slot[r * tile_atom_len(op) + a], sp));
	return x;
}

Expr *
tile_mem_ptr(Ctx *c, const TileCall *tc, const TileOperand *op, int64_t r,
	     Span sp)
{
	if (op->ptr_x)
		return op->ptr_x[r];
	Expr *x = ir_new_expr(c, EX_PTR_TO, ET_SCALAR, DT_UINT64, sp);
	if (tile_plain_chain(op->expr)) {
		Expr *g[TILE_MAX_GROUP];
		for (int i = 0; i < tc->ngroup; i++) {
			g[i] = tc->group[i].hw;
			if (tc->group[i].lo)
				g[i] = tile_binop(c, BIN_SUB, g[i],
						  tile_int(c, tc->group[i].lo,
							   sp),
						  DT_INT32, sp);
		}
		x->u.access.base = op->expr;
		push_index(c, &x->u.access.indices, tc, op, g, r, 0, sp);
		return x;
	}
	x->u.access.base = storage(c, op, sp);
	vec_push(&c->arena, &x->u.access.indices, op->addr_x[r]);
	return x;
}

/* The address operand of op at repeat r: where the checker split the
 * address (tile.h: base_x, off, rel), `ptr_to(base) + constant bytes`,
 * which codegen prints [reg+imm]; repeats that differ by constants
 * then share one base expression, on the m axis also calls that
 * differ by constants (pipeline stages).  The base is
 * `storage[symbolic part]` on the m axis, repeat 0's logical pointer
 * otherwise; either way the byte address is the checker's addr[r]. */
static Expr *
mem_addr(Ctx *c, const TileCall *tc, const TileOperand *op, int64_t r,
	 Span sp)
{
	Expr *x;
	if (op->ptr_x || !op->off) {
		return tile_mem_ptr(c, tc, op, r, sp);
	} else if (op->rel[r]) {
		x = tile_mem_ptr(c, tc, op, 0, sp);
	} else if (op->base_x[r]) {
		x = ir_new_expr(c, EX_PTR_TO, ET_SCALAR, DT_UINT64, sp);
		x->u.access.base = storage(c, op, sp);
		vec_push(&c->arena, &x->u.access.indices, op->base_x[r]);
	} else {
		return tile_mem_ptr(c, tc, op, r, sp);
	}
	if (!op->off[r])
		return x;
	return tile_binop(c, BIN_ADD, x, tile_int(c, op->off[r], sp),
			  DT_UINT64, sp);
}

/* ---- apply ---- */

/* A register group (a PTX {..} operand) is passed as one tuple, so that
 * the emitter cannot match its words to other operands. */
static void
push_operand(Ctx *c, ExprVec *args, const TileCall *tc,
	     const TileOperand *op, int64_t r, Span sp)
{
	if (op->scalar) {
		vec_push(&c->arena, args, op->expr);
	} else if (op->role == ROLE_MEM) {
		/* only an address operand takes the [reg+imm] form; a
		 * register operand needs the whole pointer */
		bool addr = tc->inst.ops[op->ptx_op].kind == PTXOP_ADDR;
		vec_push(&c->arena, args,
			 addr ? mem_addr(c, tc, op, r, sp)
			      : tile_mem_ptr(c, tc, op, r, sp));
	} else if (tc->inst.ops[op->ptx_op].kind == PTXOP_VEC) {
		Expr *t = ir_new_expr(c, EX_TUPLE, ET_TUPLE, op->dtype, sp);
		for (int a = 0; a < op->natom; a++)
			vec_push(&c->arena, &t->u.tuple,
				 tile_reg_ref(c, tc, op, r, a, sp));
		vec_push(&c->arena, args, t);
	} else {
		for (int a = 0; a < op->natom; a++)
			vec_push(&c->arena, args,
				 tile_reg_ref(c, tc, op, r, a, sp));
	}
}

/* An optional PTX operand that no operand or parameter fills is left
 * out; a remaining non-optional one is the cache-policy operand. */
Expr *
tile_lower_issue(Ctx *c, const TileCall *tc, int64_t r, Expr *const *over)
{
	Span sp = tc->span;
	ExprVec argv = {0}, *args = &argv;
	for (int j = 0; j < tc->inst.nops; j++) {
		const TileOperand *op = NULL;
		for (int i = 0; i < tc->nops; i++)
			if (tc->ops[i].ptx_op == j)
				op = &tc->ops[i];
		if (over && over[j])
			vec_push(&c->arena, args, over[j]);
		else if (op)
			push_operand(c, args, tc, op, r, sp);
		else if (tc->fixed[j])
			vec_push(&c->arena, args, tc->fixed[j]);
		else if (tc->cache_policy && !tc->inst.ops[j].optional)
			vec_push(&c->arena, args,
				 tc->cache_policy);
	}
	Expr *p = ir_ptx_issue(c, &tc->inst, argv, tc->pred, sp);
	p->u.ptx.preserve_dst = tc->preserve_dst;
	return p;
}

Var *
tile_lower_var(Ctx *c, const TileCall *tc, const char *name, DType t,
	       Block *out, Span sp)
{
	PT_ASSERT(tc->next_var);
	Var *v = NEW(&c->arena, Var);
	v->id = (*tc->next_var)++;
	v->name = arena_printf(&c->arena, "%s_%d", name, v->id);
	v->dtype = t;
	v->kind = VK_LOCAL;
	v->span = sp;
	Stmt *d = ir_new_stmt(c, ST_VAR_DECL, sp);
	d->u.var.var = v;
	vec_push(&c->arena, out, d);
	return v;
}

static void
lower_apply(Lower *L, const TileCall *tc, Block *out)
{
	Ctx *c = L->c;
	int64_t nrep = tile_repeat_count(tc);
	for (int64_t r = 0; r < nrep; r++) {
		Stmt *s = ir_new_stmt(c, ST_EVAL, tc->span);
		s->u.value = tile_lower_issue(c, tc, r, NULL);
		vec_push(&c->arena, out, s);
	}
}

/* ---- ewise ---- */

typedef struct Subst {
	VEC(const Var *) from;
	VEC(Expr *) to;   /* parameter: the element; local: EX_VAR of copy */
	Lower *L;
	const char *prefix;
	Var *res;
} Subst;

static void
subst_add(Subst *s, const Var *v, Expr *x)
{
	vec_push(&s->L->c->arena, &s->from, v);
	vec_push(&s->L->c->arena, &s->to, x);
}

static Expr *
subst_get(const Subst *s, const Var *v)
{
	for (size_t i = s->from.n; i-- > 0;)
		if (s->from.v[i] == v)
			return s->to.v[i];
	return NULL;
}

static Expr *
subst_lookup(const void *ud, const Var *v)
{
	return subst_get(ud, v);
}

static Expr *
clone(Subst *s, const Expr *x)
{
	return ir_clone_subst(s->L->c, x, subst_lookup, s);
}

static Var *
fresh_var(Subst *s, const char *name, DType t, Span sp)
{
	Var *v = NEW(&s->L->c->arena, Var);
	v->name = arena_printf(&s->L->c->arena, "%s_%s_%d", s->prefix, name,
			       s->L->next_var);
	v->dtype = t;
	v->kind = VK_LOCAL;
	v->span = sp;
	v->id = s->L->next_var++;
	return v;
}

static Expr *
var_ref(Ctx *c, Var *v, Span sp)
{
	Expr *x = ir_new_expr(c, EX_VAR, ET_SCALAR, v->dtype, sp);
	x->u.var = v;
	return x;
}

typedef VEC(const Stmt *) StmtList;

static void inline_list(Subst *s, const Stmt *const *v, size_t n,
			Block *out);

/* Statements of b followed by rest[0..nrest). */
static void
inline_joined(Subst *s, const Block *b, const Stmt *const *rest, size_t nrest,
	      Block *out)
{
	StmtList l = {0};
	for (size_t i = 0; i < b->n; i++)
		vec_push(&s->L->c->arena, &l, b->v[i]);
	for (size_t i = 0; i < nrest; i++)
		vec_push(&s->L->c->arena, &l, rest[i]);
	inline_list(s, l.v, l.n, out);
}

static void
inline_list(Subst *s, const Stmt *const *v, size_t n, Block *out)
{
	Ctx *c = s->L->c;
	for (size_t i = 0; i < n; i++) {
		const Stmt *st = v[i];
		Stmt *o;
		switch (st->kind) {
		case ST_VAR_DECL: {
			Var *nv = fresh_var(s, st->u.var.var->name,
					    st->u.var.var->dtype, st->span);
			o = ir_new_stmt(c, ST_VAR_DECL, st->span);
			o->u.var.var = nv;
			o->u.var.value = clone(s, st->u.var.value);
			subst_add(s, st->u.var.var, var_ref(c, nv, st->span));
			vec_push(&c->arena, out, o);
			break;
		}
		case ST_ASSIGN: {
			Expr *t = subst_get(s, st->u.var.var);
			o = ir_new_stmt(c, ST_ASSIGN, st->span);
			o->u.var.var = t && t->kind == EX_VAR ? t->u.var
							      : st->u.var.var;
			o->u.var.value = clone(s, st->u.var.value);
			vec_push(&c->arena, out, o);
			break;
		}
		case ST_RETURN:
			o = ir_new_stmt(c, ST_ASSIGN, st->span);
			o->u.var.var = s->res;
			o->u.var.value = clone(s, st->u.value);
			vec_push(&c->arena, out, o);
			return;
		case ST_IF:
			o = ir_new_stmt(c, ST_IF, st->span);
			o->u.cond.cond = clone(s, st->u.cond.cond);
			inline_joined(s, &st->u.cond.then, v + i + 1,
				      n - i - 1, &o->u.cond.then);
			inline_joined(s, &st->u.cond.els, v + i + 1,
				      n - i - 1, &o->u.cond.els);
			vec_push(&c->arena, out, o);
			return;
		default:
			break; /* rejected by the checker */
		}
	}
}

static void
lower_ewise(Lower *L, const TileCall *tc, Block *out)
{
	Ctx *c = L->c;
	Span sp = tc->span;
	Func *fn = tc->fn;
	int64_t nrep = tile_repeat_count(tc);
	const TileOperand *dst = &tc->ops[0];
	for (int64_t r = 0; r < nrep; r++) {
		Subst s = {0};
		s.L = L;
		s.prefix = fn->name;
		for (int i = 1; i < tc->nops; i++) {
			const TileOperand *op = &tc->ops[i];
			Expr *x = op->scalar ? op->expr
					     : tile_reg_ref(c, tc, op, r, 0, sp);
			subst_add(&s, fn->params.v[i - 1].var, x);
		}
		s.res = fresh_var(&s, "ret", fn->ret, sp);
		Stmt *d = ir_new_stmt(c, ST_VAR_DECL, sp);
		d->u.var.var = s.res;
		vec_push(&c->arena, out, d);
		inline_list(&s, (const Stmt *const *)fn->body.v, fn->body.n,
			    out);
		Stmt *st = ir_new_stmt(c, ST_STORE, sp);
		Expr *ref = tile_reg_ref(c, tc, dst, r, 0, sp);
		st->u.store.base = ref->u.access.base;
		st->u.store.indices = ref->u.access.indices;
		st->u.store.value = var_ref(c, s.res, sp);
		vec_push(&c->arena, out, st);
	}
}

/* ---- the walk ---- */

/* The checker's record, carried by the call node (no search). */
static const TileCall *
find_call(const Expr *x)
{
	return x->kind == EX_TILE_APPLY ? x->u.apply.tile : x->u.ewise.tile;
}

static void lower_block(Lower *L, Block *b);

static void
lower_stmt(Lower *L, Stmt *s, Block *out)
{
	if (s->kind == ST_EVAL && (s->u.value->kind == EX_TILE_APPLY ||
				   s->u.value->kind == EX_TILE_EWISE)) {
		const TileCall *tc = find_call(s->u.value);
		PT_ASSERT(tc && tc->ok);
		if (tc->lower) {
			/* the record is the module's; the hook draws fresh
			 * variables from this lowering's cursor */
			TileCall *w = (TileCall *)tc;
			w->next_var = &L->next_var;
			tc->lower(L->c, tc, out);
			w->next_var = NULL;
		}
		else if (s->u.value->kind == EX_TILE_APPLY)
			lower_apply(L, tc, out);
		else
			lower_ewise(L, tc, out);
		return;
	}
	switch (s->kind) {
	case ST_FOR:
		lower_block(L, &s->u.loop.body);
		break;
	case ST_WHILE:
		lower_block(L, &s->u.whil.body);
		break;
	case ST_IF:
		lower_block(L, &s->u.cond.then);
		lower_block(L, &s->u.cond.els);
		break;
	default:
		break;
	}
	vec_push(&L->c->arena, out, s);
}

static void
lower_block(Lower *L, Block *b)
{
	Block out = {0};
	for (size_t i = 0; i < b->n; i++)
		lower_stmt(L, b->v[i], &out);
	*b = out;
}

static int
max_var_id_block(const Block *b);

static int
max_id(int a, int b)
{
	return a > b ? a : b;
}

static int
max_var_id_block(const Block *b)
{
	int m = -1;
	for (size_t i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];
		switch (s->kind) {
		case ST_VAR_DECL:
		case ST_ASSIGN:
			m = max_id(m, s->u.var.var->id);
			break;
		case ST_FOR:
			m = max_id(m, s->u.loop.var->id);
			m = max_id(m, max_var_id_block(&s->u.loop.body));
			break;
		case ST_WHILE:
			m = max_id(m, max_var_id_block(&s->u.whil.body));
			break;
		case ST_IF:
			m = max_id(m, max_var_id_block(&s->u.cond.then));
			m = max_id(m, max_var_id_block(&s->u.cond.els));
			break;
		default:
			break;
		}
	}
	return m;
}

static int
max_var_id(const Module *m)
{
	int id = -1;
	for (size_t i = 0; i < m->dyn.n; i++)
		id = max_id(id, m->dyn.v[i]->id);
	for (size_t i = 0; i < m->funcs.n; i++) {
		const Func *f = m->funcs.v[i];
		for (size_t k = 0; k < f->params.n; k++)
			if (f->params.v[k].var)
				id = max_id(id, f->params.v[k].var->id);
		id = max_id(id, max_var_id_block(&f->body));
	}
	return id;
}

void
tile_lower_module(Ctx *c, Module *m, TileProgram *p)
{
	if (p->calls.n == 0)
		return;
	Lower L = {c, m, max_var_id(m) + 1};
	for (size_t i = 0; i < m->funcs.n; i++)
		if (m->funcs.v[i]->is_kernel)
			lower_block(&L, &m->funcs.v[i]->body);
	p->calls.n = 0; /* the calls are gone from the IR */
}
