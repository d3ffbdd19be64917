/*
 * facts.c - what the tile checker knows about runtime values: block ids
 * below their (possibly symbolic) grid, guard conditions (`if`, `elif`,
 * `else`, `while`, `pred=`), loop ranges, and the lower bound of
 * variables that only ever grow (grid-stride loops).  Facts are linear
 * forms f >= 0 on the SymTab's fact stack (src/layout/facts.c proves
 * under them).
 *
 * Soundness: a fact holds wherever it is on the stack.  A fact about a
 * reassigned variable dies at the assignment, and every fact about a
 * variable a loop body assigns dies when the loop is entered (the
 * second iteration sees the new value).  Integer arithmetic on indices
 * is assumed not to wrap (int32 sizes, checked at launch).
 */
#include <string.h>

#include "tile/tile.h"

/* ---- block ids ---- */

static const char *const block_names[3] = {"block", "block_y", "block_z"};

int
tile_block_sym(TileEnv *e, int a, const Expr *x)
{
	if (e->block_sym[a])
		return e->block_sym[a] - 1;
	const Launch *l = &e->f->launch;
	Lin g = a < l->ngrid ? tile_lin(e, l->grid[a]) : lin_const(1);
	int64_t glo, ghi;
	if (!lin_bounds(&e->st, g, &glo, &ghi) || ghi < 1 || ghi > INT32_MAX)
		ghi = INT32_MAX;
	Expr *id = (Expr *)x;
	if (!id) {
		id = tile_builtin0(e->c, BI_BLOCK_IDX, e->f->span);
		Expr *s = ir_new_expr(e->c, EX_STR, ET_STR, DT_NONE,
				      e->f->span);
		s->u.str = a == 0 ? "x" : a == 1 ? "y" : "z";
		vec_push(&e->c->arena, &id->u.call.args, s);
	}
	int s = tile_new_sym(e, block_names[a], 0, ghi - 1, id);
	e->block_sym[a] = s + 1;
	if (!lin_is_const(g)) /* grid - 1 - block >= 0 */
		fact_push(&e->st, lin_sub(&e->st, lin_add_const(&e->st, g, -1),
					  lin_sym(&e->st, s)));
	return s;
}

void
tile_facts_init(TileEnv *e)
{
	e->f->assume.n = 0; /* symshape.c records them again */
	for (int a = 0; a < e->f->launch.ngrid && a < 3; a++)
		tile_block_sym(e, a, NULL);
}

/* ---- variables that only grow ---- */

static bool
adds_to(const Expr *x, const Var *v, const Expr **rest)
{
	if (!x || x->kind != EX_BINARY || x->u.op.op != BIN_ADD)
		return false;
	if (x->u.op.a->kind == EX_VAR && x->u.op.a->u.var == v) {
		*rest = x->u.op.b;
		return true;
	}
	if (x->u.op.b->kind == EX_VAR && x->u.op.b->u.var == v) {
		*rest = x->u.op.a;
		return true;
	}
	return false;
}

/* The smallest value any definition of v gives, when every assignment
 * is `v = v + d` (d >= 0) and every declaration has a bounded value;
 * false otherwise. */
static bool
floor_in(TileEnv *e, const Block *b, const Var *v, int64_t *lo, bool *seen)
{
	for (size_t i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];
		const Expr *d;
		int64_t l, h;
		switch (s->kind) {
		case ST_VAR_DECL:
		case ST_ASSIGN:
			if (s->u.var.var != v)
				break;
			if (s->kind == ST_ASSIGN) {
				if (!adds_to(s->u.var.value, v, &d) ||
				    !lin_bounds(&e->st, tile_lin(e, d), &l,
						&h) || l < 0)
					return false;
				break;
			}
			if (!s->u.var.value ||
			    !lin_bounds(&e->st, tile_lin(e, s->u.var.value),
					&l, &h))
				return false;
			*lo = *seen && *lo < l ? *lo : l;
			*seen = true;
			break;
		case ST_FOR:
			if (!floor_in(e, &s->u.loop.body, v, lo, seen))
				return false;
			break;
		case ST_WHILE:
			if (!floor_in(e, &s->u.whil.body, v, lo, seen))
				return false;
			break;
		case ST_IF:
			if (!floor_in(e, &s->u.cond.then, v, lo, seen) ||
			    !floor_in(e, &s->u.cond.els, v, lo, seen))
				return false;
			break;
		default:
			break;
		}
	}
	return true;
}

void
tile_var_floor(TileEnv *e, const Var *v, int64_t *lo, int64_t hi)
{
	if (e->in_floor || v->kind != VK_LOCAL)
		return;
	e->in_floor = true; /* a definition naming another such variable */
	int64_t l = 0;
	bool seen = false;
	if (floor_in(e, &e->f->body, v, &l, &seen) && seen && l > *lo &&
	    l <= hi)
		*lo = l;
	e->in_floor = false;
}

/* ---- guards ---- */

static void push_cond(TileEnv *e, const Expr *cond, bool neg);

/* a OP b as facts over the forms of a and b. */
static void
push_cmp(TileEnv *e, BinOp op, const Expr *xa, const Expr *xb)
{
	SymTab *st = &e->st;
	Lin a = tile_lin(e, xa), b = tile_lin(e, xb);
	Lin ba = lin_sub(st, b, a), ab = lin_sub(st, a, b);
	switch (op) {
	case BIN_LT: fact_push(st, lin_add_const(st, ba, -1)); break;
	case BIN_LE: fact_push(st, ba); break;
	case BIN_GT: fact_push(st, lin_add_const(st, ab, -1)); break;
	case BIN_GE: fact_push(st, ab); break;
	case BIN_EQ:
		fact_push(st, ba);
		fact_push(st, ab);
		break;
	default: break; /* != is not a range */
	}
}

static void
push_cond(TileEnv *e, const Expr *cond, bool neg)
{
	if (!cond || cond->kind != EX_BINARY)
		return;
	BinOp op = (BinOp)cond->u.op.op;
	if ((op == BIN_LAND && !neg) || (op == BIN_LOR && neg)) {
		/* a and b; not (a or b) = not a and not b */
		push_cond(e, cond->u.op.a, neg);
		push_cond(e, cond->u.op.b, neg);
		return;
	}
	if (op < BIN_LT || op > BIN_NE)
		return;
	if (neg)
		op = tile_negate_cmp(op);
	push_cmp(e, op, cond->u.op.a, cond->u.op.b);
}

size_t
tile_facts_guard(TileEnv *e, const Expr *cond, bool neg)
{
	size_t mark = e->st.facts.n;
	push_cond(e, cond, neg);
	return mark;
}

void
tile_facts_pop(TileEnv *e, size_t mark)
{
	if (mark <= e->st.facts.n)
		e->st.facts.n = mark;
}

/* ---- assignments and loops ---- */

void
tile_facts_assign(TileEnv *e, const Var *v)
{
	size_t k = tile_slot_find(e, v->id);
	if (k < e->var_sym.n && e->var_sym.v[k])
		fact_kill_sym(&e->st, e->var_sym.v[k] - 1);
}

static void
kill_assigned(TileEnv *e, const Block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];
		switch (s->kind) {
		case ST_ASSIGN:
			tile_facts_assign(e, s->u.var.var);
			break;
		case ST_FOR:
			kill_assigned(e, &s->u.loop.body);
			break;
		case ST_WHILE:
			kill_assigned(e, &s->u.whil.body);
			break;
		case ST_IF:
			kill_assigned(e, &s->u.cond.then);
			kill_assigned(e, &s->u.cond.els);
			break;
		default:
			break;
		}
	}
}

size_t
tile_facts_loop(TileEnv *e, const Stmt *loop)
{
	if (loop->kind == ST_WHILE) {
		kill_assigned(e, &loop->u.whil.body);
		return tile_facts_guard(e, loop->u.whil.cond, false);
	}
	kill_assigned(e, &loop->u.loop.body);
	size_t mark = e->st.facts.n;
	const Var *v = loop->u.loop.var;
	size_t k = tile_slot_find(e, v->id);
	if (k >= e->var_sym.n || !e->var_sym.v[k])
		return mark;
	SymTab *st = &e->st;
	Lin i = lin_sym(st, e->var_sym.v[k] - 1);
	Lin b = tile_lin(e, loop->u.loop.begin);
	Lin en = tile_lin(e, loop->u.loop.end);
	int64_t step = 1;
	if (loop->u.loop.step && (!ir_const_int(loop->u.loop.step, &step) ||
				  step <= 0))
		return mark;
	fact_push(st, lin_sub(st, i, b));                          /* i >= b */
	fact_push(st, lin_add_const(st, lin_sub(st, en, i), -1)); /* i < e */
	return mark;
}
