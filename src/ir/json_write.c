/*
 * ir/json_write.c - the IR as JSON text (schema: docs/ir-json.md).
 *
 * Module -> JSON text.  Output is deterministic: variables and
 * buffers are numbered here, in definition order, so the bytes depend
 * only on the IR's structure (never on addresses or the front end's
 * ids).  Statements get a line each; expressions, buffer definitions and
 * layouts are written compactly on one line.  An ewise call carries its
 * scalar function inline as a lambda (params, ret, body).  The reader is
 * json_read.c; json_schema.h holds what both use.
 */
#include "ir/json_schema.h"

enum { W_LIMIT = JSON_MAX_DEPTH };

typedef struct Writer {
	Ctx *c;
	StrBuf b;
	int depth;  /* open containers */
	int indent; /* open pretty containers */
	bool first[W_LIMIT + 2];
	bool pretty[W_LIMIT + 2];
	IdMap vars, bufs;
	int64_t nvars, nbufs;
	bool failed;
} Writer;

static void w_expr(Writer *w, const Expr *e);
static void w_block(Writer *w, const Block *b);
static void w_func(Writer *w, const Func *f, bool lambda);

static int
w_level(const Writer *w)
{
	return w->depth < W_LIMIT + 1 ? w->depth : W_LIMIT + 1;
}

static void
w_newline(Writer *w, int indent)
{
	sb_putc(&w->b, '\n');
	for (int i = 0; i < indent; i++)
		sb_puts(&w->b, "  ");
}

/* Separator before the next member or item of the open container. */
static void
w_sep(Writer *w)
{
	int d = w_level(w);
	if (!w->first[d])
		sb_putc(&w->b, ',');
	if (w->pretty[d])
		w_newline(w, w->indent);
	else if (!w->first[d])
		sb_putc(&w->b, ' ');
	w->first[d] = false;
}

/* Opens an object or array.  Deeper than the reader accepts is an
 * error here rather than a document that cannot be read back. */
static void
w_open(Writer *w, char ch, bool pretty, Span sp)
{
	if (w->depth + 1 > W_LIMIT && !w->failed) {
		w->failed = true;
		diag_error(w->c, PT_E_JSON_DEPTH, sp,
			   "IR nested deeper than JSON allows (%d levels)",
			   W_LIMIT);
	}
	sb_putc(&w->b, ch);
	w->depth++;
	int d = w_level(w);
	w->first[d] = true;
	w->pretty[d] = pretty;
	if (pretty)
		w->indent++;
}

static void
w_close(Writer *w, char ch)
{
	int d = w_level(w);
	if (w->pretty[d]) {
		w->indent--;
		if (!w->first[d])
			w_newline(w, w->indent);
	}
	sb_putc(&w->b, ch);
	w->depth--;
}

static void
w_key(Writer *w, const char *key)
{
	w_sep(w);
	json_write_string(&w->b, key);
	sb_puts(&w->b, ": ");
}

static void
w_str(Writer *w, const char *key, const char *s)
{
	w_key(w, key);
	if (s)
		json_write_string(&w->b, s);
	else
		sb_puts(&w->b, "null");
}

static void
w_int(Writer *w, const char *key, int64_t v)
{
	w_key(w, key);
	json_write_int(&w->b, v);
}

static void
w_bool(Writer *w, const char *key, bool v)
{
	w_key(w, key);
	sb_puts(&w->b, v ? "true" : "false");
}

static void
w_dtype(Writer *w, const char *key, DType t)
{
	w_str(w, key, t == DT_NONE ? NULL : dtype_json(t));
}

static void
w_expr_field(Writer *w, const char *key, const Expr *e)
{
	w_key(w, key);
	w_expr(w, e);
}

static void
w_exprs(Writer *w, const char *key, Expr *const *v, size_t n, Span sp)
{
	w_key(w, key);
	w_open(w, '[', false, sp);
	for (size_t i = 0; i < n; i++) {
		w_sep(w);
		w_expr(w, v[i]);
	}
	w_close(w, ']');
}

#define W_EXPRS(w, key, vec, sp) w_exprs((w), (key), (vec).v, (vec).n, (sp))

/* Records an IR invariant violation (a reference before a definition). */
static void
w_broken(Writer *w, Span sp, const char *what, const char *name)
{
	if (!w->failed)
		diag_error(w->c, PT_E_JSON_UNDEFINED, sp,
			   "cannot write IR: %s '%s' is used before its "
			   "definition",
			   what, name ? name : "?");
	w->failed = true;
}

static void
w_var_ref(Writer *w, const char *key, const Var *v, Span sp)
{
	IdEntry *e = v ? idmap_get(&w->vars, (uintptr_t)v) : NULL;
	if (!e)
		w_broken(w, sp, "variable", v ? v->name : NULL);
	w_int(w, key, e ? e->id : -1);
}

static void
w_buf_ref(Writer *w, const char *key, const Buffer *b, Span sp)
{
	IdEntry *e = b ? idmap_get(&w->bufs, (uintptr_t)b) : NULL;
	if (!e)
		w_broken(w, sp, "buffer", b ? b->name : NULL);
	w_int(w, key, e ? e->id : -1);
}

/* {"id": 3, "name": "i", "dtype": "int32"} as member key (or as the
 * next array item when key is NULL); numbers v from here on. */
static void
w_var_def(Writer *w, const char *key, const Var *v, Span sp)
{
	if (key)
		w_key(w, key);
	else
		w_sep(w);
	if (!v) {
		sb_puts(&w->b, "null");
		return;
	}
	int64_t id = w->nvars++;
	idmap_put(&w->c->arena, &w->vars, (uintptr_t)v)->id = id;
	w_open(w, '{', false, sp);
	w_int(w, "id", id);
	w_str(w, "name", v->name);
	w_dtype(w, "dtype", v->dtype);
	w_close(w, '}');
}

static void
w_iters(Writer *w, const char *key, const LayoutIter *it, int n, Span sp)
{
	w_key(w, key);
	w_open(w, '[', false, sp);
	for (int i = 0; i < n; i++) {
		w_sep(w);
		w_open(w, '{', false, sp);
		w_int(w, "extent", it[i].extent);
		w_int(w, "stride", it[i].stride);
		w_str(w, "axis", axis_name(it[i].axis));
		w_close(w, '}');
	}
	w_close(w, ']');
}

static void
w_layout(Writer *w, const char *key, const Layout *l, Span sp)
{
	w_key(w, key);
	if (!l) {
		sb_puts(&w->b, "null");
		return;
	}
	w_open(w, '{', false, sp);
	if (l->kind == LAYOUT_COMPOSE) {
		w_str(w, "layout", "compose");
		w_int(w, "sw_m", l->sw_m);
		w_int(w, "sw_b", l->sw_b);
		w_int(w, "sw_s", l->sw_s);
		w_layout(w, "inner", l->inner, sp);
	} else {
		w_str(w, "layout", "tile");
		w_iters(w, "shard", l->shard, l->nshard, sp);
		w_iters(w, "replica", l->replica, l->nreplica, sp);
		w_key(w, "offset");
		w_open(w, '[', false, sp);
		for (int i = 0; i < l->noffset; i++) {
			w_sep(w);
			w_open(w, '{', false, sp);
			w_int(w, "value", l->offset[i].value);
			w_str(w, "axis", axis_name(l->offset[i].axis));
			w_close(w, '}');
		}
		w_close(w, ']');
	}
	w_close(w, '}');
}

/* A buffer definition; numbers b from here on. */
static void
w_buf_def(Writer *w, const char *key, const Buffer *b, Span sp)
{
	w_key(w, key);
	if (!b) {
		sb_puts(&w->b, "null");
		return;
	}
	w_open(w, '{', false, b->span);
	int64_t id = w->nbufs++;
	w_int(w, "id", id);
	w_str(w, "name", b->name);
	w_str(w, "kind", ENUM_NAME(bufkind_names, b->kind));
	w_dtype(w, "dtype", b->dtype);
	w_exprs(w, "shape", b->shape, b->ndim > 0 ? (size_t)b->ndim : 0, sp);
	w_str(w, "scope", ENUM_NAME(memscope_names, b->scope));
	w_layout(w, "layout", b->layout, sp);
	w_int(w, "align", b->align);
	w_expr_field(w, "allocated_addr", b->allocated_addr);
	w_expr_field(w, "view", b->view);
	w_close(w, '}');
	/* Defined after its own fields, which cannot refer to it. */
	idmap_put(&w->c->arena, &w->bufs, (uintptr_t)b)->id = id;
}

static void
w_float(Writer *w, double v)
{
	if (isnan(v))
		json_write_string(&w->b, "nan");
	else if (isinf(v))
		json_write_string(&w->b, v > 0 ? "inf" : "-inf");
	else
		json_write_double(&w->b, v);
}

static void
w_dims(Writer *w, const Expr *e)
{
	w_key(w, "dims");
	w_open(w, '[', false, e->span);
	for (int i = 0; i < e->u.region.ndims; i++) {
		const Slice *s = &e->u.region.dims[i];
		w_sep(w);
		w_open(w, '{', false, e->span);
		if (s->is_slice) {
			w_expr_field(w, "begin", s->begin);
			w_expr_field(w, "end", s->end);
		} else {
			w_expr_field(w, "index", s->begin);
		}
		w_close(w, '}');
	}
	w_close(w, ']');
}

static void
w_named_args(Writer *w, const NamedArgVec *v, Span sp)
{
	w_key(w, "params");
	w_open(w, '[', false, sp);
	for (size_t i = 0; i < v->n; i++) {
		w_sep(w);
		w_open(w, '{', false, sp);
		w_str(w, "name", v->v[i].name);
		w_expr_field(w, "value", v->v[i].value);
		w_close(w, '}');
	}
	w_close(w, ']');
}

/* The kind-specific members of an expression. */
static void
w_expr_body(Writer *w, const Expr *e)
{
	Span sp = e->span;
	switch (e->kind) {
	case EX_INT: w_int(w, "value", e->u.ival); break;
	case EX_FLOAT: w_key(w, "value"); w_float(w, e->u.fval); break;
	case EX_BOOL: w_bool(w, "value", e->u.ival != 0); break;
	case EX_STR: w_str(w, "value", e->u.str); break;
	case EX_VAR: w_var_ref(w, "var", e->u.var, sp); break;
	case EX_BUF: w_buf_ref(w, "buf", e->u.buf, sp); break;
	case EX_UNARY:
		w_str(w, "op", ENUM_NAME(unop_names, e->u.op.op));
		w_expr_field(w, "a", e->u.op.a);
		break;
	case EX_BINARY:
		w_str(w, "op", ENUM_NAME(binop_names, e->u.op.op));
		w_expr_field(w, "a", e->u.op.a);
		w_expr_field(w, "b", e->u.op.b);
		break;
	case EX_CAST:
	case EX_REINTERPRET: w_expr_field(w, "a", e->u.op.a); break;
	case EX_SELECT:
		w_expr_field(w, "cond", e->u.op.a);
		w_expr_field(w, "then", e->u.op.b);
		w_expr_field(w, "else", e->u.op.c);
		break;
	case EX_LOAD:
	case EX_PTR_TO:
		w_expr_field(w, "base", e->u.access.base);
		W_EXPRS(w, "indices", e->u.access.indices, sp);
		break;
	case EX_BUILTIN:
		w_str(w, "name", ENUM_NAME(builtin_names, e->u.call.id));
		W_EXPRS(w, "args", e->u.call.args, sp);
		break;
	case EX_REGION:
		w_expr_field(w, "base", e->u.region.base);
		w_bool(w, "sub", e->u.region.sub);
		w_dims(w, e);
		break;
	case EX_VIEW_DTYPE: w_expr_field(w, "base", e->u.view.base); break;
	case EX_VIEW_RESHAPE:
		w_expr_field(w, "base", e->u.view.base);
		W_EXPRS(w, "shape", e->u.view.shape, sp);
		w_layout(w, "layout", e->u.view.layout, sp);
		break;
	case EX_TUPLE: W_EXPRS(w, "items", e->u.tuple, sp); break;
	case EX_PTX:
		w_str(w, "spelling", e->u.ptx.spelling);
		W_EXPRS(w, "args", e->u.ptx.args, sp);
		w_expr_field(w, "pred", e->u.ptx.pred);
		w_bool(w, "preserve_dst", e->u.ptx.preserve_dst);
		break;
	case EX_TILE_APPLY:
		w_str(w, "opcode", e->u.apply.opcode);
		W_EXPRS(w, "operands", e->u.apply.operands, sp);
		w_named_args(w, &e->u.apply.params, sp);
		w_str(w, "scope", ENUM_NAME(execscope_names, e->u.apply.scope));
		break;
	case EX_TILE_EWISE:
		w_key(w, "fn");
		w_func(w, e->u.ewise.fn, true);
		w_expr_field(w, "dst", e->u.ewise.dst);
		W_EXPRS(w, "inputs", e->u.ewise.inputs, sp);
		w_str(w, "scope", ENUM_NAME(execscope_names, e->u.ewise.scope));
		break;
	}
}

static void
w_expr(Writer *w, const Expr *e)
{
	if (!e) {
		sb_puts(&w->b, "null");
		return;
	}
	if ((unsigned)e->kind >= countof(expr_info)) {
		if (!w->failed)
			ctx_fail(w->c, PT_E_INTERNAL, "bad IR expression kind %d",
				 (int)e->kind);
		w->failed = true;
		sb_puts(&w->b, "null");
		return;
	}
	const ExprInfo *in = &expr_info[e->kind];
	w_open(w, '{', false, e->span);
	w_str(w, "expr", in->name);
	if (e->type != in->type)
		w_str(w, "type", ENUM_NAME(type_names, e->type));
	if (e->dtype != DT_NONE)
		w_dtype(w, "dtype", e->dtype);
	w_expr_body(w, e);
	w_close(w, '}');
}

static void
w_stmt_body(Writer *w, const Stmt *s)
{
	switch (s->kind) {
	case ST_VAR_DECL:
		w_var_def(w, "var", s->u.var.var, s->span);
		w_expr_field(w, "value", s->u.var.value);
		break;
	case ST_ASSIGN:
		w_var_ref(w, "var", s->u.var.var, s->span);
		w_expr_field(w, "value", s->u.var.value);
		break;
	case ST_STORE:
		w_expr_field(w, "base", s->u.store.base);
		W_EXPRS(w, "indices", s->u.store.indices, s->span);
		w_expr_field(w, "value", s->u.store.value);
		break;
	case ST_BUF_DEF: w_buf_def(w, "buf", s->u.buf, s->span); break;
	case ST_FOR:
		/* Bounds first: they are evaluated before the variable exists. */
		w_expr_field(w, "begin", s->u.loop.begin);
		w_expr_field(w, "end", s->u.loop.end);
		w_expr_field(w, "step", s->u.loop.step);
		w_str(w, "kind", ENUM_NAME(forkind_names, s->u.loop.kind));
		w_var_def(w, "var", s->u.loop.var, s->span);
		w_key(w, "body");
		w_block(w, &s->u.loop.body);
		break;
	case ST_WHILE:
		w_expr_field(w, "cond", s->u.whil.cond);
		w_key(w, "body");
		w_block(w, &s->u.whil.body);
		break;
	case ST_IF:
		w_expr_field(w, "cond", s->u.cond.cond);
		w_key(w, "then");
		w_block(w, &s->u.cond.then);
		w_key(w, "else");
		w_block(w, &s->u.cond.els);
		break;
	case ST_BREAK:
	case ST_CONTINUE: break;
	case ST_RETURN:
	case ST_EVAL: w_expr_field(w, "value", s->u.value); break;
	}
}

static void
w_stmt(Writer *w, const Stmt *s)
{
	if (!s || (unsigned)s->kind >= countof(stmt_names)) {
		if (!w->failed)
			ctx_fail(w->c, PT_E_INTERNAL, "bad IR statement");
		w->failed = true;
		sb_puts(&w->b, "null");
		return;
	}
	w_open(w, '{', false, s->span);
	w_str(w, "stmt", stmt_names[s->kind]);
	w_stmt_body(w, s);
	w_close(w, '}');
}

static void
w_block(Writer *w, const Block *b)
{
	w_open(w, '[', true, (Span){0, 0, 0});
	for (size_t i = 0; i < b->n; i++) {
		w_sep(w);
		w_stmt(w, b->v[i]);
	}
	w_close(w, ']');
}

static void
w_param(Writer *w, const Param *p)
{
	w_open(w, '{', false, p->span);
	w_str(w, "param", ENUM_NAME(paramkind_names, p->kind));
	if (p->kind == PK_TENSOR)
		w_buf_def(w, "buf", p->buf, p->span);
	else
		w_var_def(w, "var", p->var, p->span);
	w_close(w, '}');
}

static void
w_launch(Writer *w, const Func *f)
{
	const Launch *l = &f->launch;
	w_key(w, "launch");
	if (!f->is_kernel) {
		sb_puts(&w->b, "null");
		return;
	}
	w_open(w, '{', false, f->span);
	w_exprs(w, "grid", l->grid, (size_t)(l->ngrid & 3), f->span);
	w_bool(w, "grid_tuple", l->grid_tuple);
	w_exprs(w, "block", l->block, (size_t)(l->nblock & 3), f->span);
	w_bool(w, "block_tuple", l->block_tuple);
	w_key(w, "cluster");
	w_open(w, '[', false, f->span);
	for (int i = 0; i < l->ncluster && i < 3; i++) {
		w_sep(w);
		json_write_int(&w->b, l->cluster[i]);
	}
	w_close(w, ']');
	w_bool(w, "cluster_tuple", l->cluster_tuple);
	if (l->min_blocks_per_sm || l->max_blocks_per_cluster ||
	    l->max_registers) {
		w_key(w, "kernel_attrs");
		w_open(w, '{', false, f->span);
		w_int(w, "min_blocks_per_sm", l->min_blocks_per_sm);
		w_int(w, "max_blocks_per_cluster", l->max_blocks_per_cluster);
		w_int(w, "max_registers_per_thread", l->max_registers);
		w_close(w, '}');
	}
	w_close(w, '}');
}

/* A function; a lambda (the ewise scalar function) is written on one
 * line inside its call. */
static void
w_func(Writer *w, const Func *f, bool lambda)
{
	if (!f) {
		sb_puts(&w->b, "null");
		return;
	}
	w_open(w, '{', !lambda, f->span);
	w_str(w, "name", f->name);
	w_bool(w, "kernel", f->is_kernel);
	w_key(w, "params");
	w_open(w, '[', !lambda, f->span);
	for (size_t i = 0; i < f->params.n; i++) {
		w_sep(w);
		w_param(w, &f->params.v[i]);
	}
	w_close(w, ']');
	w_dtype(w, "ret", f->ret);
	w_launch(w, f);
	w_key(w, "body");
	if (lambda) {
		/* Statements of a lambda stay on its line. */
		w_open(w, '[', false, f->span);
		for (size_t i = 0; i < f->body.n; i++) {
			w_sep(w);
			w_stmt(w, f->body.v[i]);
		}
		w_close(w, ']');
	} else {
		w_block(w, &f->body);
	}
	w_close(w, '}');
}

const char *
ir_module_to_json(Ctx *c, const Module *m)
{
	Writer *w = NEW(&c->arena, Writer);
	w->c = c;
	sb_init(&w->b, &c->arena);
	w_open(w, '{', true, (Span){0, 0, 0});
	w_str(w, "format", "ptxtile-ir");
	w_int(w, "version", 1);
	w_key(w, "dyn");
	w_open(w, '[', true, (Span){0, 0, 0});
	for (size_t i = 0; i < m->dyn.n; i++)
		w_var_def(w, NULL, m->dyn.v[i], m->dyn.v[i]->span);
	w_close(w, ']');
	w_key(w, "funcs");
	w_open(w, '[', true, (Span){0, 0, 0});
	for (size_t i = 0; i < m->funcs.n; i++) {
		w_sep(w);
		w_func(w, m->funcs.v[i], false);
	}
	w_close(w, ']');
	w_close(w, '}');
	sb_putc(&w->b, '\n');
	return w->failed ? NULL : sb_cstr(&w->b);
}
