/*
 * tile_build.h - hand-built IR for the tile engine's unit tests: a module
 * with one kernel, buffers, regions, views and tile calls, without the
 * script front end.  Every builder allocates from the context's arena.
 */
#ifndef PT_TILE_BUILD_H
#define PT_TILE_BUILD_H

#include <string.h>

#include "ir/ir.h"
#include "tile/tile.h"

typedef struct TB {
	Ctx *c;
	Module *m;
	Func *f;
	Block *cur;  /* where statements go */
	int nbuf, nvar;
	TileProgram *prog; /* the last tb_check's */
} TB;

static const Span TB_SP = {0, 0, 0};

static inline Expr *
tb_int(TB *b, int64_t v)
{
	return ir_int(b->c, v, DT_INT32, TB_SP);
}

static inline void
tb_init(TB *b, int64_t block, int ncluster, int64_t cluster_x)
{
	memset(b, 0, sizeof(*b));
	b->c = pt_ctx_new(NULL);
	b->c->target = TGT_SM_90A;
	b->m = NEW(&b->c->arena, Module);
	b->f = NEW(&b->c->arena, Func);
	b->f->name = "k";
	b->f->is_kernel = true;
	b->f->launch.nblock = 1;
	b->f->launch.block[0] = tb_int(b, block);
	b->f->launch.ngrid = 1;
	b->f->launch.grid[0] = tb_int(b, 1);
	b->f->launch.ncluster = ncluster;
	b->f->launch.cluster[0] = cluster_x;
	vec_push(&b->c->arena, &b->m->funcs, b->f);
	b->cur = &b->f->body;
}

static inline void
tb_free(TB *b)
{
	pt_ctx_free(b->c);
}

/* A buffer; layout NULL = default.  shape given as int64 array. */
static inline Buffer *
tb_buf(TB *b, const char *name, MemScope sc, DType t, const int64_t *shape,
       int ndim, Layout *l, int64_t align)
{
	Buffer *x = NEW(&b->c->arena, Buffer);
	x->name = name;
	x->kind = sc == MS_GLOBAL ? BK_PARAM : BK_ALLOC;
	x->dtype = t;
	x->ndim = ndim;
	x->shape = NEWN(&b->c->arena, Expr *, ndim);
	for (int i = 0; i < ndim; i++)
		x->shape[i] = tb_int(b, shape[i]);
	x->scope = sc;
	x->layout = l;
	x->align = align;
	x->id = b->nbuf++;
	return x;
}

static inline Expr *
tb_ref(TB *b, Buffer *x)
{
	Expr *e = ir_new_expr(b->c, EX_BUF, ET_TENSOR, x->dtype, TB_SP);
	e->u.buf = x;
	return e;
}

/* base[lo_i : lo_i + ext_i] per dim; ext 0 = an index (dim dropped). */
static inline Expr *
tb_region(TB *b, Expr *base, Expr **lo, const int64_t *ext, int n)
{
	Expr *e = ir_new_expr(b->c, EX_REGION, ET_TENSOR, base->dtype, TB_SP);
	e->u.region.base = base;
	e->u.region.ndims = n;
	e->u.region.dims = NEWN(&b->c->arena, Slice, n);
	for (int i = 0; i < n; i++) {
		Slice *s = &e->u.region.dims[i];
		s->begin = lo[i];
		if (ext[i] > 0) {
			s->is_slice = true;
			s->end = ir_new_expr(b->c, EX_BINARY, ET_SCALAR,
					     DT_INT32, TB_SP);
			s->end->u.op.op = BIN_ADD;
			s->end->u.op.a = lo[i];
			s->end->u.op.b = tb_int(b, ext[i]);
		}
	}
	return e;
}

static inline Expr *
tb_dview(TB *b, Expr *base, DType t)
{
	Expr *e = ir_new_expr(b->c, EX_VIEW_DTYPE, ET_TENSOR, t, TB_SP);
	e->u.view.base = base;
	return e;
}

static inline Expr *
tb_reshape(TB *b, Expr *base, const int64_t *shape, int n, Layout *l)
{
	Expr *e = ir_new_expr(b->c, EX_VIEW_RESHAPE, ET_TENSOR, base->dtype,
			      TB_SP);
	e->u.view.base = base;
	for (int i = 0; i < n; i++)
		vec_push(&b->c->arena, &e->u.view.shape, tb_int(b, shape[i]));
	e->u.view.layout = l;
	return e;
}

static inline Expr *
tb_hw(TB *b, Builtin id)
{
	Expr *e = ir_new_expr(b->c, EX_BUILTIN, ET_SCALAR, DT_INT32, TB_SP);
	e->u.call.id = id;
	return e;
}

static inline Expr *
tb_bin(TB *b, BinOp op, Expr *x, Expr *y)
{
	Expr *e = ir_new_expr(b->c, EX_BINARY, ET_SCALAR, x->dtype, TB_SP);
	e->u.op.op = op;
	e->u.op.a = x;
	e->u.op.b = y;
	if (op >= BIN_LT && op <= BIN_LOR)
		e->dtype = DT_BOOL;
	return e;
}

static inline Var *
tb_var(TB *b, const char *name, DType t, VarKind k)
{
	Var *v = NEW(&b->c->arena, Var);
	v->name = name;
	v->dtype = t;
	v->kind = k;
	v->id = b->nvar++;
	return v;
}

static inline Expr *
tb_vref(TB *b, Var *v)
{
	Expr *e = ir_new_expr(b->c, EX_VAR, ET_SCALAR, v->dtype, TB_SP);
	e->u.var = v;
	return e;
}

static inline void
tb_stmt(TB *b, Stmt *s)
{
	vec_push(&b->c->arena, b->cur, s);
}

/* T.cuda.tile.apply(T.ptx[op], ops..., scope=sc); params added after. */
static inline Expr *
tb_apply(TB *b, const char *opcode, ExecScope sc, int n, Expr **ops)
{
	Expr *e = ir_new_expr(b->c, EX_TILE_APPLY, ET_VOID, DT_NONE, TB_SP);
	e->u.apply.opcode = opcode;
	e->u.apply.scope = sc;
	for (int i = 0; i < n; i++)
		vec_push(&b->c->arena, &e->u.apply.operands, ops[i]);
	Stmt *s = ir_new_stmt(b->c, ST_EVAL, TB_SP);
	s->u.value = e;
	tb_stmt(b, s);
	return e;
}

static inline void
tb_param(TB *b, Expr *call, const char *name, Expr *v)
{
	NamedArg a = {name, v, TB_SP};
	vec_push(&b->c->arena, &call->u.apply.params, a);
}

/* Runs check_module; returns the first diagnostic code (0 = none). */
static inline int
tb_check(TB *b)
{
	b->prog = check_module(b->c, b->m);
	return b->c->diags ? b->c->diags->code : (int)b->c->nerrors;
}

static inline const char *
tb_msg(TB *b)
{
	return b->c->diags ? b->c->diags->msg : "";
}

static inline Layout *
tb_layout(TB *b, const LayoutIter *it, int n)
{
	return layout_make(&b->c->arena, it, n, NULL, 0, NULL, 0);
}

#endif
