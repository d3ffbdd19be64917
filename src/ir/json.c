/*
 * ir/json.c - the IR as JSON text and back (schema: docs/ir-json.md).
 *
 * Writer: Module -> JSON text.  Output is deterministic: variables and
 * buffers are numbered here, in definition order, so the bytes depend
 * only on the IR's structure (never on addresses or the front end's
 * ids).  Statements get a line each; expressions, buffer definitions and
 * layouts are written compactly on one line.  An ewise call carries its
 * scalar function inline as a lambda (params, ret, body).
 *
 * Reader: JSON text -> Module, built on the generic DOM of base/json.h.
 * It trusts nothing: every node's kind, every field (missing, unknown or
 * of the wrong JSON type), every enum and dtype name, every id (defined
 * once, referenced only after its definition and inside its function)
 * and the result type of each child is checked, and the first problem is
 * reported as a PT_E_JSON_* diagnostic at the offending value's byte
 * offset.  Nesting is bounded by the DOM's JSON_MAX_DEPTH, which also
 * bounds this file's recursion.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ir/ir_json.h"
#include "base/json.h"

/* ---- names of the IR enums in the JSON schema ---- */

#define TY(t) (1u << (t))
#define TY_ANY (TY(ET_SCALAR) | TY(ET_TENSOR) | TY(ET_STR) | TY(ET_TUPLE))
#define TY_ALL (TY_ANY | TY(ET_VOID))

typedef struct ExprInfo {
	const char *name;   /* "expr" value */
	ExprType type;      /* result type when "type" is absent */
	unsigned types;     /* result types the kind may have */
	const char *fields; /* members besides expr/type/dtype */
} ExprInfo;

static const ExprInfo expr_info[] = {
	[EX_INT] = {"int", ET_SCALAR, TY(ET_SCALAR), "value"},
	[EX_FLOAT] = {"float", ET_SCALAR, TY(ET_SCALAR), "value"},
	[EX_BOOL] = {"bool", ET_SCALAR, TY(ET_SCALAR), "value"},
	[EX_STR] = {"str", ET_STR, TY(ET_STR), "value"},
	[EX_VAR] = {"var", ET_SCALAR, TY(ET_SCALAR), "var"},
	[EX_BUF] = {"buf", ET_TENSOR, TY(ET_TENSOR), "buf"},
	[EX_UNARY] = {"unary", ET_SCALAR, TY(ET_SCALAR), "op a"},
	[EX_BINARY] = {"binary", ET_SCALAR, TY(ET_SCALAR), "op a b"},
	[EX_CAST] = {"cast", ET_SCALAR, TY(ET_SCALAR), "a"},
	[EX_REINTERPRET] = {"reinterpret", ET_SCALAR, TY(ET_SCALAR), "a"},
	[EX_SELECT] = {"select", ET_SCALAR, TY(ET_SCALAR), "cond then else"},
	[EX_LOAD] = {"load", ET_SCALAR, TY(ET_SCALAR), "base indices"},
	[EX_PTR_TO] = {"ptr_to", ET_SCALAR, TY(ET_SCALAR), "base indices"},
	[EX_BUILTIN] = {"builtin", ET_SCALAR, TY(ET_SCALAR) | TY(ET_VOID),
			"name args"},
	[EX_REGION] = {"region", ET_TENSOR, TY(ET_TENSOR), "base sub dims"},
	[EX_VIEW_DTYPE] = {"view_dtype", ET_TENSOR, TY(ET_TENSOR), "base"},
	[EX_VIEW_RESHAPE] = {"view_reshape", ET_TENSOR, TY(ET_TENSOR),
			     "base shape layout"},
	[EX_TUPLE] = {"tuple", ET_TUPLE, TY(ET_TUPLE), "items"},
	[EX_PTX] = {"ptx", ET_VOID, TY(ET_VOID),
		    "spelling args pred preserve_dst"},
	[EX_TILE_APPLY] = {"tile_apply", ET_VOID, TY(ET_VOID),
			   "opcode operands params scope"},
	[EX_TILE_EWISE] = {"tile_ewise", ET_VOID, TY(ET_VOID),
			   "fn dst inputs scope"},
};

static const char *const stmt_names[] = {
	[ST_VAR_DECL] = "var_decl", [ST_ASSIGN] = "assign",
	[ST_STORE] = "store",       [ST_BUF_DEF] = "buf_def",
	[ST_FOR] = "for",           [ST_WHILE] = "while",
	[ST_IF] = "if",             [ST_BREAK] = "break",
	[ST_CONTINUE] = "continue", [ST_RETURN] = "return",
	[ST_EVAL] = "eval",
};

/* Members of each statement kind besides "stmt". */
static const char *const stmt_fields[] = {
	[ST_VAR_DECL] = "var value", [ST_ASSIGN] = "var value",
	[ST_STORE] = "base indices value", [ST_BUF_DEF] = "buf",
	[ST_FOR] = "var begin end step kind body", [ST_WHILE] = "cond body",
	[ST_IF] = "cond then else", [ST_BREAK] = "", [ST_CONTINUE] = "",
	[ST_RETURN] = "value", [ST_EVAL] = "value",
};

static const char *const type_names[] = {
	[ET_SCALAR] = "scalar", [ET_TENSOR] = "tensor", [ET_VOID] = "void",
	[ET_STR] = "str",       [ET_TUPLE] = "tuple",
};

static const char *const unop_names[] = {
	[UN_NEG] = "neg", [UN_BNOT] = "bnot", [UN_LNOT] = "lnot",
};

static const char *const binop_names[] = {
	[BIN_ADD] = "add", [BIN_SUB] = "sub", [BIN_MUL] = "mul",
	[BIN_DIV] = "div", [BIN_FLOORDIV] = "floordiv", [BIN_MOD] = "mod",
	[BIN_SHL] = "shl", [BIN_SHR] = "shr", [BIN_BAND] = "band",
	[BIN_BOR] = "bor", [BIN_BXOR] = "bxor", [BIN_LT] = "lt",
	[BIN_LE] = "le",   [BIN_GT] = "gt",   [BIN_GE] = "ge",
	[BIN_EQ] = "eq",   [BIN_NE] = "ne",   [BIN_LAND] = "land",
	[BIN_LOR] = "lor",
};

static const char *const bufkind_names[] = {
	[BK_PARAM] = "param", [BK_ALLOC] = "alloc", [BK_VIEW] = "view",
};

static const char *const paramkind_names[] = {
	[PK_TENSOR] = "tensor", [PK_SCALAR] = "scalar",
	[PK_TENSORMAP] = "tensormap",
};

static const char *const forkind_names[] = {
	[FOR_SERIAL] = "serial", [FOR_UNROLL] = "unroll",
};

/* Index of name in names[0..n), or -1. */
static int
name_index(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/* Name of enum value i, or "?" when out of range. */
static const char *
enum_name(const char *const *names, int n, int i)
{
	return i >= 0 && i < n && names[i] ? names[i] : "?";
}

#define ENUM_NAME(tab, i) enum_name((tab), (int)countof(tab), (int)(i))

/* dtype and builtin names are the script's, expanded from the same .def
 * files; scope names are the IR's own tables (ir.h). */
static const char *const dtype_names[] = {
#define DTYPE(id, name, bits, kind, ptx) [DT_##id] = name,
#include "ir/dtypes.def"
#undef DTYPE
};

static const char *const builtin_names[] = {
#define BUILTIN(id, spelling, nargs, result) [BI_##id] = spelling,
#include "ir/builtins.def"
#undef BUILTIN
};

static const char *
dtype_json(DType t)
{
	return t > DT_NONE && t < DT_COUNT ? dtype_names[t] : "?";
}

/* ---- id maps: pointer -> id (writer) and id -> symbol (reader) ---- */

typedef struct IdEntry {
	uint64_t key;
	int64_t id;   /* writer: the JSON id */
	void *sym;    /* reader: the Var or Buffer */
	int scope;    /* reader: function scope that defined it (0: module) */
	bool used;
} IdEntry;

typedef struct IdMap {
	IdEntry *v;
	size_t cap, n;
} IdMap;

static size_t
idmap_slot(const IdMap *m, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (m->cap - 1);
	while (m->v[i].used && m->v[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static IdEntry *
idmap_get(const IdMap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	IdEntry *e = &m->v[idmap_slot(m, key)];
	return e->used ? e : NULL;
}

/* The entry for key, created (zeroed but for key) when absent. */
static IdEntry *
idmap_put(Arena *a, IdMap *m, uint64_t key)
{
	if (2 * (m->n + 1) > m->cap) {
		IdMap big = {NEWN(a, IdEntry, m->cap ? 2 * m->cap : 64), 0, 0};
		big.cap = m->cap ? 2 * m->cap : 64;
		for (size_t i = 0; i < m->cap; i++)
			if (m->v[i].used)
				big.v[idmap_slot(&big, m->v[i].key)] = m->v[i];
		big.n = m->n;
		*m = big;
	}
	IdEntry *e = &m->v[idmap_slot(m, key)];
	if (!e->used) {
		memset(e, 0, sizeof(*e));
		e->used = true;
		e->key = key;
		m->n++;
	}
	return e;
}

/* ================= writer ================= */

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

/* ================= reader ================= */

typedef struct Reader {
	Ctx *c;
	Arena *a;
	uint32_t file;
	IdMap vars, bufs;
	int scope;   /* function being read; 0 at module level */
	int nscopes; /* functions (and lambdas) opened so far */
} Reader;

static const int builtin_nargs[] = {
#define BUILTIN(id, spelling, nargs, result) [BI_##id] = nargs,
#include "ir/builtins.def"
#undef BUILTIN
};

static Expr *rd_expr(Reader *r, const JsonValue *v, unsigned types);
static Func *rd_func(Reader *r, const JsonValue *v, bool lambda);
static bool rd_block(Reader *r, const JsonValue *obj, const char *key,
		     Block *out);

static Span
rd_span(const Reader *r, const JsonValue *v)
{
	uint32_t off = v ? v->offset : 0;
	return (Span){r->file, off, off + 1};
}

static bool rd_fail(Reader *r, const JsonValue *at, int code,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Reports the first problem at the offending value; always false. */
static bool
rd_fail(Reader *r, const JsonValue *at, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(r->c, code, rd_span(r, at), fmt, ap);
	va_end(ap);
	return false;
}

static const char *
kind_of(const JsonValue *v)
{
	return v ? json_kind_name(v->kind) : "nothing";
}

/* True when key[0..len) is one of the space-separated words. */
static bool
word_in(const char *words, const char *key, size_t len)
{
	const char *p = words;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (n && n == len && memcmp(p, key, n) == 0)
			return true;
		p += n;
	}
	return false;
}

/* v must be an object whose members all appear in `common` or `fields`. */
static bool
rd_object(Reader *r, const JsonValue *v, const char *what,
	  const char *common, const char *fields)
{
	if (!json_is(v, JSON_OBJECT))
		return rd_fail(r, v, PT_E_JSON_TYPE, "%s must be an object, "
			       "not %s", what, kind_of(v));
	for (size_t i = 0; i < v->obj.n; i++) {
		const JsonMember *m = &v->obj.members[i];
		if (!word_in(common, m->key, m->key_len) &&
		    !word_in(fields, m->key, m->key_len))
			return rd_fail(r, m->value, PT_E_JSON_UNKNOWN_FIELD,
				       "unknown field \"%s\" in %s", m->key,
				       what);
	}
	return true;
}

/* Member key of obj; reports it missing. */
static const JsonValue *
rd_field(Reader *r, const JsonValue *obj, const char *key)
{
	const JsonValue *v = json_get(obj, key);
	if (!v)
		rd_fail(r, obj, PT_E_JSON_MISSING, "missing field \"%s\"", key);
	return v;
}

static bool
rd_type_error(Reader *r, const JsonValue *v, const char *key,
	      const char *want)
{
	return rd_fail(r, v, PT_E_JSON_TYPE, "field \"%s\" must be %s, not %s",
		       key, want, kind_of(v));
}

static bool
rd_int(Reader *r, const JsonValue *obj, const char *key, int64_t lo,
       int64_t hi, int64_t *out)
{
	const JsonValue *v = rd_field(r, obj, key);
	if (!v)
		return false;
	if (!json_int(v, out))
		return rd_type_error(r, v, key, "an integer");
	if (*out < lo || *out > hi)
		return rd_fail(r, v, PT_E_JSON_VALUE, "field \"%s\" is %lld, "
			       "outside [%lld, %lld]", key, (long long)*out,
			       (long long)lo, (long long)hi);
	return true;
}

static bool
rd_bool(Reader *r, const JsonValue *obj, const char *key, bool *out)
{
	const JsonValue *v = rd_field(r, obj, key);
	if (!v)
		return false;
	if (!json_bool(v, out))
		return rd_type_error(r, v, key, "true or false");
	return true;
}

/* A string member (NULL for null when nullable); no embedded NUL. */
static bool
rd_string(Reader *r, const JsonValue *obj, const char *key, bool nullable,
	  const char **out)
{
	const JsonValue *v = rd_field(r, obj, key);
	if (!v)
		return false;
	*out = NULL;
	if (nullable && json_is(v, JSON_NULL))
		return true;
	if (!json_is(v, JSON_STRING))
		return rd_type_error(r, v, key,
				     nullable ? "a string or null" : "a string");
	if (strlen(v->str.s) != v->str.len)
		return rd_fail(r, v, PT_E_JSON_VALUE,
			       "field \"%s\" contains a NUL character", key);
	*out = v->str.s;
	return true;
}

/* A non-empty name. */
static bool
rd_name(Reader *r, const JsonValue *obj, const char *key, const char **out)
{
	if (!rd_string(r, obj, key, false, out))
		return false;
	if (!**out)
		return rd_fail(r, json_get(obj, key), PT_E_JSON_VALUE,
			       "field \"%s\" must not be empty", key);
	return true;
}

/* An enum given by name: *out is its index in names. */
static bool
rd_enum(Reader *r, const JsonValue *obj, const char *key,
	const char *const *names, int n, int *out)
{
	const char *s;
	if (!rd_string(r, obj, key, false, &s))
		return false;
	*out = name_index(names, n, s);
	if (*out < 0)
		return rd_fail(r, json_get(obj, key), PT_E_JSON_ENUM,
			       "unknown %s \"%s\"", key, s);
	return true;
}

#define RD_ENUM(r, obj, key, tab, out)                                     \
	rd_enum((r), (obj), (key), (tab), (int)countof(tab), (out))

static bool
rd_dtype(Reader *r, const JsonValue *obj, const char *key, bool nullable,
	 DType *out)
{
	const char *s;
	*out = DT_NONE;
	if (!rd_string(r, obj, key, nullable, &s))
		return false;
	int i = s ? name_index(dtype_names, (int)countof(dtype_names), s) : 0;
	if (i < 0)
		return rd_fail(r, json_get(obj, key), PT_E_JSON_DTYPE,
			       "unknown dtype \"%s\"", s);
	*out = (DType)i;
	return true;
}

static bool
rd_memscope(Reader *r, const JsonValue *obj, MemScope *out)
{
	int i;
	if (!RD_ENUM(r, obj, "scope", memscope_names, &i))
		return false;
	*out = (MemScope)i;
	return true;
}

static bool
rd_execscope(Reader *r, const JsonValue *obj, ExecScope *out)
{
	int i;
	if (!RD_ENUM(r, obj, "scope", execscope_names, &i))
		return false;
	*out = (ExecScope)i;
	return true;
}

static const JsonValue *
rd_array(Reader *r, const JsonValue *obj, const char *key)
{
	const JsonValue *v = rd_field(r, obj, key);
	if (v && !json_is(v, JSON_ARRAY)) {
		rd_type_error(r, v, key, "an array");
		return NULL;
	}
	return v;
}

/* ---- symbols ---- */

static bool
rd_new_id(Reader *r, IdMap *m, const JsonValue *obj, void *sym,
	  int64_t *id)
{
	if (!rd_int(r, obj, "id", 0, INT32_MAX, id))
		return false;
	if (idmap_get(m, (uint64_t)*id))
		return rd_fail(r, json_get(obj, "id"), PT_E_JSON_DUP_ID,
			       "id %lld is defined twice", (long long)*id);
	IdEntry *e = idmap_put(r->a, m, (uint64_t)*id);
	e->sym = sym;
	e->scope = r->scope;
	return true;
}

/* The symbol an id refers to: defined earlier, in this function or at
 * module level. */
static void *
rd_ref(Reader *r, IdMap *m, const JsonValue *obj, const char *key,
       const char *what)
{
	int64_t id;
	if (!rd_int(r, obj, key, 0, INT32_MAX, &id))
		return NULL;
	IdEntry *e = idmap_get(m, (uint64_t)id);
	if (!e || (e->scope != 0 && e->scope != r->scope)) {
		rd_fail(r, json_get(obj, key), PT_E_JSON_UNDEFINED,
			"%s id %lld is not defined %s", what, (long long)id,
			e ? "in this function" : "before this use");
		return NULL;
	}
	return e->sym;
}

static Var *
rd_var_def(Reader *r, const JsonValue *v, VarKind kind)
{
	if (!rd_object(r, v, "a variable", "", "id name dtype"))
		return NULL;
	Var *var = NEW(r->a, Var);
	int64_t id;
	if (!rd_name(r, v, "name", &var->name) ||
	    !rd_dtype(r, v, "dtype", true, &var->dtype) ||
	    !rd_new_id(r, &r->vars, v, var, &id))
		return NULL;
	var->kind = kind;
	var->id = (int)id;
	var->span = rd_span(r, v);
	return var;
}

static Var *
rd_var_def_at(Reader *r, const JsonValue *obj, const char *key,
	      VarKind kind)
{
	const JsonValue *v = rd_field(r, obj, key);
	return v ? rd_var_def(r, v, kind) : NULL;
}

/* ---- layouts ---- */

static bool
rd_iters(Reader *r, const JsonValue *obj, const char *key,
	 LayoutIter **out, int *n)
{
	const JsonValue *arr = rd_array(r, obj, key);
	if (!arr)
		return false;
	*n = (int)arr->arr.n;
	*out = NEWN(r->a, LayoutIter, arr->arr.n);
	for (size_t i = 0; i < arr->arr.n; i++) {
		const JsonValue *it = arr->arr.items[i];
		const char *ax;
		if (!rd_object(r, it, "a layout iter", "", "extent stride axis") ||
		    !rd_int(r, it, "extent", 1, INT64_MAX, &(*out)[i].extent) ||
		    !rd_int(r, it, "stride", INT64_MIN, INT64_MAX,
			    &(*out)[i].stride) ||
		    !rd_string(r, it, "axis", false, &ax))
			return false;
		if (!axis_parse(ax, &(*out)[i].axis))
			return rd_fail(r, json_get(it, "axis"), PT_E_JSON_ENUM,
				       "unknown axis \"%s\"", ax);
	}
	return true;
}

static bool
rd_offsets(Reader *r, const JsonValue *obj, Layout *l)
{
	const JsonValue *arr = rd_array(r, obj, "offset");
	if (!arr)
		return false;
	l->noffset = (int)arr->arr.n;
	l->offset = NEWN(r->a, LayoutOffset, arr->arr.n);
	for (size_t i = 0; i < arr->arr.n; i++) {
		const JsonValue *o = arr->arr.items[i];
		const char *ax;
		if (!rd_object(r, o, "a layout offset", "", "value axis") ||
		    !rd_int(r, o, "value", INT64_MIN, INT64_MAX,
			    &l->offset[i].value) ||
		    !rd_string(r, o, "axis", false, &ax))
			return false;
		if (!axis_parse(ax, &l->offset[i].axis))
			return rd_fail(r, json_get(o, "axis"), PT_E_JSON_ENUM,
				       "unknown axis \"%s\"", ax);
	}
	return true;
}

static Layout *rd_layout(Reader *r, const JsonValue *v);

static bool
rd_compose(Reader *r, const JsonValue *v, Layout *l)
{
	int64_t m, b, s;
	if (!rd_object(r, v, "a compose layout", "layout",
		       "sw_m sw_b sw_s inner") ||
	    !rd_int(r, v, "sw_m", 0, 31, &m) ||
	    !rd_int(r, v, "sw_b", 0, 31, &b) ||
	    !rd_int(r, v, "sw_s", 0, 31, &s))
		return false;
	l->kind = LAYOUT_COMPOSE;
	l->sw_m = (int)m;
	l->sw_b = (int)b;
	l->sw_s = (int)s;
	const JsonValue *in = rd_field(r, v, "inner");
	if (!in || !(l->inner = rd_layout(r, in)))
		return false;
	if (l->inner->kind != LAYOUT_TILE)
		return rd_fail(r, in, PT_E_JSON_VALUE,
			       "the inner layout of a compose must be a tile "
			       "layout");
	return true;
}

static Layout *
rd_layout(Reader *r, const JsonValue *v)
{
	const char *kind;
	if (!json_is(v, JSON_OBJECT)) {
		rd_fail(r, v, PT_E_JSON_TYPE, "a layout must be an object, "
			"not %s", kind_of(v));
		return NULL;
	}
	if (!rd_string(r, v, "layout", false, &kind))
		return NULL;
	Layout *l = NEW(r->a, Layout);
	if (strcmp(kind, "compose") == 0)
		return rd_compose(r, v, l) ? l : NULL;
	if (strcmp(kind, "tile") != 0) {
		rd_fail(r, json_get(v, "layout"), PT_E_JSON_KIND,
			"unknown layout kind \"%s\"", kind);
		return NULL;
	}
	l->kind = LAYOUT_TILE;
	if (!rd_object(r, v, "a tile layout", "layout",
		       "shard replica offset") ||
	    !rd_iters(r, v, "shard", &l->shard, &l->nshard) ||
	    !rd_iters(r, v, "replica", &l->replica, &l->nreplica) ||
	    !rd_offsets(r, v, l))
		return NULL;
	return l;
}

/* A nullable layout member. */
static bool
rd_layout_at(Reader *r, const JsonValue *obj, const char *key,
	     Layout **out)
{
	const JsonValue *v = rd_field(r, obj, key);
	*out = NULL;
	if (!v)
		return false;
	if (json_is(v, JSON_NULL))
		return true;
	return (*out = rd_layout(r, v)) != NULL;
}

/* ---- expressions ---- */

/* An expression member of one of the result types in `types`; null is
 * accepted (as NULL) when nullable. */
static bool
rd_expr_at(Reader *r, const JsonValue *obj, const char *key,
	   unsigned types, bool nullable, Expr **out)
{
	const JsonValue *v = rd_field(r, obj, key);
	*out = NULL;
	if (!v)
		return false;
	if (json_is(v, JSON_NULL)) {
		if (nullable)
			return true;
		return rd_type_error(r, v, key, "an expression");
	}
	return (*out = rd_expr(r, v, types)) != NULL;
}

static bool
rd_expr_list(Reader *r, const JsonValue *obj, const char *key,
	     unsigned types, ExprVec *out)
{
	const JsonValue *arr = rd_array(r, obj, key);
	if (!arr)
		return false;
	for (size_t i = 0; i < arr->arr.n; i++) {
		Expr *e = rd_expr(r, arr->arr.items[i], types);
		if (!e)
			return false;
		vec_push(r->a, out, e);
	}
	return true;
}

static bool
rd_need_dtype(Reader *r, const JsonValue *v, const Expr *e)
{
	if (e->dtype == DT_NONE)
		return rd_fail(r, v, PT_E_JSON_MISSING,
			       "a \"%s\" expression needs a \"dtype\"",
			       expr_info[e->kind].name);
	return true;
}

static bool
rd_float(Reader *r, const JsonValue *v, double *out)
{
	const JsonValue *x = rd_field(r, v, "value");
	const char *s = json_str(x);
	if (!x)
		return false;
	if (json_num(x, out))
		return true;
	if (s && strcmp(s, "nan") == 0)
		*out = NAN;
	else if (s && strcmp(s, "inf") == 0)
		*out = INFINITY;
	else if (s && strcmp(s, "-inf") == 0)
		*out = -INFINITY;
	else
		return rd_type_error(r, x, "value",
				     "a number, \"inf\", \"-inf\" or \"nan\"");
	return true;
}

static bool
rd_builtin(Reader *r, const JsonValue *v, Expr *e)
{
	const char *name;
	if (!rd_string(r, v, "name", false, &name))
		return false;
	int id = name_index(builtin_names, (int)countof(builtin_names), name);
	if (id < 0)
		return rd_fail(r, json_get(v, "name"), PT_E_JSON_ENUM,
			       "unknown builtin \"%s\"", name);
	e->u.call.id = (Builtin)id;
	if (!rd_expr_list(r, v, "args", TY_ANY, &e->u.call.args))
		return false;
	int want = builtin_nargs[id];
	if (want >= 0 && e->u.call.args.n != (size_t)want)
		return rd_fail(r, json_get(v, "args"), PT_E_JSON_VALUE,
			       "%s takes %d arguments, not %zu", name, want,
			       e->u.call.args.n);
	return true;
}

static bool
rd_slice(Reader *r, const JsonValue *d, Slice *s)
{
	if (!rd_object(r, d, "a region dimension", "", "index begin end"))
		return false;
	if (json_get(d, "index")) {
		if (json_get(d, "begin") || json_get(d, "end"))
			return rd_fail(r, d, PT_E_JSON_VALUE, "a region dimension "
				       "is an index or a slice, not both");
		return rd_expr_at(r, d, "index", TY(ET_SCALAR), false,
				  &s->begin);
	}
	s->is_slice = true;
	return rd_expr_at(r, d, "begin", TY(ET_SCALAR), true, &s->begin) &&
	       rd_expr_at(r, d, "end", TY(ET_SCALAR), true, &s->end);
}

static bool
rd_region(Reader *r, const JsonValue *v, Expr *e)
{
	if (!rd_expr_at(r, v, "base", TY(ET_TENSOR), false,
			&e->u.region.base) ||
	    !rd_bool(r, v, "sub", &e->u.region.sub))
		return false;
	const JsonValue *dims = rd_array(r, v, "dims");
	if (!dims)
		return false;
	e->u.region.ndims = (int)dims->arr.n;
	e->u.region.dims = NEWN(r->a, Slice, dims->arr.n);
	for (size_t i = 0; i < dims->arr.n; i++)
		if (!rd_slice(r, dims->arr.items[i], &e->u.region.dims[i]))
			return false;
	return true;
}

static bool
rd_named_args(Reader *r, const JsonValue *v, NamedArgVec *out)
{
	const JsonValue *arr = rd_array(r, v, "params");
	if (!arr)
		return false;
	for (size_t i = 0; i < arr->arr.n; i++) {
		const JsonValue *p = arr->arr.items[i];
		NamedArg na = {0};
		if (!rd_object(r, p, "a tile parameter", "", "name value") ||
		    !rd_name(r, p, "name", &na.name) ||
		    !rd_expr_at(r, p, "value", TY_ANY, false, &na.value))
			return false;
		for (size_t j = 0; j < out->n; j++)
			if (strcmp(out->v[j].name, na.name) == 0)
				return rd_fail(r, p, PT_E_JSON_VALUE,
					       "tile parameter \"%s\" given "
					       "twice", na.name);
		na.span = rd_span(r, p);
		vec_push(r->a, out, na);
	}
	return true;
}

static bool
rd_ptx(Reader *r, const JsonValue *v, Expr *e)
{
	return rd_name(r, v, "spelling", &e->u.ptx.spelling) &&
	       rd_expr_list(r, v, "args", TY_ANY, &e->u.ptx.args) &&
	       rd_expr_at(r, v, "pred", TY(ET_SCALAR), true, &e->u.ptx.pred) &&
	       rd_bool(r, v, "preserve_dst", &e->u.ptx.preserve_dst);
}

static bool
rd_apply(Reader *r, const JsonValue *v, Expr *e)
{
	return rd_name(r, v, "opcode", &e->u.apply.opcode) &&
	       rd_expr_list(r, v, "operands", TY_ANY, &e->u.apply.operands) &&
	       rd_named_args(r, v, &e->u.apply.params) &&
	       rd_execscope(r, v, &e->u.apply.scope);
}

static bool
rd_ewise(Reader *r, const JsonValue *v, Expr *e)
{
	const JsonValue *fn = rd_field(r, v, "fn");
	if (!fn || !(e->u.ewise.fn = rd_func(r, fn, true)))
		return false;
	return rd_expr_at(r, v, "dst", TY(ET_TENSOR), false,
			  &e->u.ewise.dst) &&
	       rd_expr_list(r, v, "inputs", TY_ANY, &e->u.ewise.inputs) &&
	       rd_execscope(r, v, &e->u.ewise.scope);
}

static bool
rd_op(Reader *r, const JsonValue *v, Expr *e, bool binary)
{
	if (binary ? !RD_ENUM(r, v, "op", binop_names, &e->u.op.op)
		   : !RD_ENUM(r, v, "op", unop_names, &e->u.op.op))
		return false;
	return rd_expr_at(r, v, "a", TY(ET_SCALAR), false, &e->u.op.a) &&
	       (!binary ||
		rd_expr_at(r, v, "b", TY(ET_SCALAR), false, &e->u.op.b));
}

/* The kind-specific members of e (kind, type and dtype are set). */
static bool
rd_expr_body(Reader *r, const JsonValue *v, Expr *e)
{
	const unsigned S = TY(ET_SCALAR), T = TY(ET_TENSOR);
	bool b;
	switch (e->kind) {
	/* Literals may lack a dtype: the front end leaves the elements of
	 * a constant tuple parameter (box=(1, 32)) untyped. */
	case EX_INT:
		return rd_int(r, v, "value", INT64_MIN, INT64_MAX, &e->u.ival);
	case EX_FLOAT: return rd_float(r, v, &e->u.fval);
	case EX_BOOL:
		if (!rd_bool(r, v, "value", &b))
			return false;
		e->u.ival = b;
		return true;
	case EX_STR: return rd_string(r, v, "value", false, &e->u.str);
	case EX_VAR:
		return (e->u.var = rd_ref(r, &r->vars, v, "var", "variable"));
	case EX_BUF:
		return (e->u.buf = rd_ref(r, &r->bufs, v, "buf", "buffer"));
	case EX_UNARY: return rd_op(r, v, e, false);
	case EX_BINARY: return rd_op(r, v, e, true);
	case EX_CAST:
	case EX_REINTERPRET:
		return rd_expr_at(r, v, "a", S, false, &e->u.op.a) &&
		       rd_need_dtype(r, v, e);
	case EX_SELECT:
		return rd_expr_at(r, v, "cond", S, false, &e->u.op.a) &&
		       rd_expr_at(r, v, "then", S, false, &e->u.op.b) &&
		       rd_expr_at(r, v, "else", S, false, &e->u.op.c);
	case EX_LOAD:
	case EX_PTR_TO:
		return rd_expr_at(r, v, "base", T, false, &e->u.access.base) &&
		       rd_expr_list(r, v, "indices", S, &e->u.access.indices);
	case EX_BUILTIN: return rd_builtin(r, v, e);
	case EX_REGION: return rd_region(r, v, e);
	case EX_VIEW_DTYPE:
		return rd_expr_at(r, v, "base", T, false, &e->u.view.base) &&
		       rd_need_dtype(r, v, e);
	case EX_VIEW_RESHAPE:
		return rd_expr_at(r, v, "base", T, false, &e->u.view.base) &&
		       rd_expr_list(r, v, "shape", S, &e->u.view.shape) &&
		       rd_layout_at(r, v, "layout", &e->u.view.layout);
	case EX_TUPLE: return rd_expr_list(r, v, "items", TY_ANY, &e->u.tuple);
	case EX_PTX: return rd_ptx(r, v, e);
	case EX_TILE_APPLY: return rd_apply(r, v, e);
	case EX_TILE_EWISE: return rd_ewise(r, v, e);
	}
	return false;
}

/* Kind, "type" (default per kind) and "dtype" of an expression node. */
static Expr *
rd_expr_head(Reader *r, const JsonValue *v)
{
	const char *name;
	if (!json_is(v, JSON_OBJECT)) {
		rd_fail(r, v, PT_E_JSON_TYPE, "an expression must be an "
			"object, not %s", kind_of(v));
		return NULL;
	}
	if (!rd_string(r, v, "expr", false, &name))
		return NULL;
	int k = -1;
	for (size_t i = 0; i < countof(expr_info) && k < 0; i++)
		if (strcmp(expr_info[i].name, name) == 0)
			k = (int)i;
	if (k < 0) {
		rd_fail(r, json_get(v, "expr"), PT_E_JSON_KIND,
			"unknown expression kind \"%s\"", name);
		return NULL;
	}
	const ExprInfo *in = &expr_info[k];
	if (!rd_object(r, v, "an expression", "expr type dtype", in->fields))
		return NULL;
	Expr *e = NEW(r->a, Expr);
	e->kind = (ExprKind)k;
	e->type = in->type;
	e->span = rd_span(r, v);
	if (json_get(v, "type")) {
		int t;
		if (!RD_ENUM(r, v, "type", type_names, &t))
			return NULL;
		e->type = (ExprType)t;
		if (!(in->types & TY(t))) {
			rd_fail(r, json_get(v, "type"), PT_E_JSON_VALUE,
				"a \"%s\" expression cannot have type \"%s\"",
				name, type_names[t]);
			return NULL;
		}
	}
	if (json_get(v, "dtype") && !rd_dtype(r, v, "dtype", true, &e->dtype))
		return NULL;
	return e;
}

static Expr *
rd_expr(Reader *r, const JsonValue *v, unsigned types)
{
	Expr *e = rd_expr_head(r, v);
	if (!e || !rd_expr_body(r, v, e))
		return NULL;
	if (!(types & TY(e->type))) {
		rd_fail(r, v, PT_E_JSON_VALUE, "a %s expression is not allowed "
			"here", type_names[e->type]);
		return NULL;
	}
	return e;
}

/* ---- buffers ---- */

static Buffer *
rd_buf_fields(Reader *r, const JsonValue *v, Buffer *b)
{
	ExprVec shape = {0};
	int64_t align;
	if (!rd_name(r, v, "name", &b->name) ||
	    !rd_dtype(r, v, "dtype", true, &b->dtype) ||
	    !rd_expr_list(r, v, "shape", TY(ET_SCALAR), &shape) ||
	    !rd_memscope(r, v, &b->scope) ||
	    !rd_layout_at(r, v, "layout", &b->layout) ||
	    !rd_int(r, v, "align", 0, INT64_MAX, &align) ||
	    !rd_expr_at(r, v, "allocated_addr", TY(ET_SCALAR), true,
			&b->allocated_addr) ||
	    !rd_expr_at(r, v, "view", TY(ET_TENSOR), true, &b->view))
		return NULL;
	b->ndim = (int)shape.n;
	b->shape = shape.v;
	b->align = align;
	return b;
}

/* A buffer definition: a parameter's (is_param) or an allocation's or
 * named view's.  The buffer is defined after its own fields. */
static Buffer *
rd_buf_def(Reader *r, const JsonValue *obj, const char *key, bool is_param)
{
	const JsonValue *v = rd_field(r, obj, key);
	int kind;
	int64_t id;
	if (!v || !rd_object(r, v, "a buffer", "",
			     "id name kind dtype shape scope layout align "
			     "allocated_addr view") ||
	    !RD_ENUM(r, v, "kind", bufkind_names, &kind))
		return NULL;
	if ((kind == BK_PARAM) != is_param) {
		rd_fail(r, json_get(v, "kind"), PT_E_JSON_VALUE,
			"buffer kind \"%s\" does not belong %s",
			bufkind_names[kind],
			is_param ? "in a parameter" : "in a buf_def");
		return NULL;
	}
	Buffer *b = NEW(r->a, Buffer);
	b->kind = (BufKind)kind;
	b->span = rd_span(r, v);
	if (!rd_buf_fields(r, v, b))
		return NULL;
	if ((b->view != NULL) != (kind == BK_VIEW)) {
		rd_fail(r, json_get(v, "view"), PT_E_JSON_VALUE,
			"a buffer has a \"view\" exactly when its kind is "
			"\"view\"");
		return NULL;
	}
	if (!rd_new_id(r, &r->bufs, v, b, &id))
		return NULL;
	b->id = (int)id;
	return b;
}

/* ---- statements ---- */

static bool
rd_loop(Reader *r, const JsonValue *v, Stmt *s)
{
	const unsigned S = TY(ET_SCALAR);
	int kind;
	if (!rd_expr_at(r, v, "begin", S, true, &s->u.loop.begin) ||
	    !rd_expr_at(r, v, "end", S, false, &s->u.loop.end) ||
	    !rd_expr_at(r, v, "step", S, true, &s->u.loop.step) ||
	    !RD_ENUM(r, v, "kind", forkind_names, &kind) ||
	    !(s->u.loop.var = rd_var_def_at(r, v, "var", VK_LOOP)))
		return false;
	s->u.loop.kind = (ForKind)kind;
	return rd_block(r, v, "body", &s->u.loop.body);
}

static bool
rd_stmt_body(Reader *r, const JsonValue *v, Stmt *s)
{
	const unsigned S = TY(ET_SCALAR), T = TY(ET_TENSOR);
	switch (s->kind) {
	case ST_VAR_DECL:
		/* The initial value cannot refer to the variable itself. */
		if (!rd_expr_at(r, v, "value", S, true, &s->u.var.value))
			return false;
		return (s->u.var.var = rd_var_def_at(r, v, "var", VK_LOCAL));
	case ST_ASSIGN:
		return (s->u.var.var = rd_ref(r, &r->vars, v, "var",
					      "variable")) &&
		       rd_expr_at(r, v, "value", S, false, &s->u.var.value);
	case ST_STORE:
		return rd_expr_at(r, v, "base", T, false, &s->u.store.base) &&
		       rd_expr_list(r, v, "indices", S, &s->u.store.indices) &&
		       rd_expr_at(r, v, "value", S, false, &s->u.store.value);
	case ST_BUF_DEF:
		return (s->u.buf = rd_buf_def(r, v, "buf", false));
	case ST_FOR: return rd_loop(r, v, s);
	case ST_WHILE:
		return rd_expr_at(r, v, "cond", S, false, &s->u.whil.cond) &&
		       rd_block(r, v, "body", &s->u.whil.body);
	case ST_IF:
		return rd_expr_at(r, v, "cond", S, false, &s->u.cond.cond) &&
		       rd_block(r, v, "then", &s->u.cond.then) &&
		       rd_block(r, v, "else", &s->u.cond.els);
	case ST_BREAK:
	case ST_CONTINUE: return true;
	case ST_RETURN:
		return rd_expr_at(r, v, "value", S, true, &s->u.value);
	case ST_EVAL:
		return rd_expr_at(r, v, "value", TY_ALL, false, &s->u.value);
	}
	return false;
}

static Stmt *
rd_stmt(Reader *r, const JsonValue *v)
{
	int k;
	if (!json_is(v, JSON_OBJECT)) {
		rd_fail(r, v, PT_E_JSON_TYPE, "a statement must be an object, "
			"not %s", kind_of(v));
		return NULL;
	}
	const char *name;
	if (!rd_string(r, v, "stmt", false, &name))
		return NULL;
	k = name_index(stmt_names, (int)countof(stmt_names), name);
	if (k < 0) {
		rd_fail(r, json_get(v, "stmt"), PT_E_JSON_KIND,
			"unknown statement kind \"%s\"", name);
		return NULL;
	}
	if (!rd_object(r, v, "a statement", "stmt", stmt_fields[k]))
		return NULL;
	Stmt *s = NEW(r->a, Stmt);
	s->kind = (StmtKind)k;
	s->span = rd_span(r, v);
	return rd_stmt_body(r, v, s) ? s : NULL;
}

static bool
rd_block(Reader *r, const JsonValue *obj, const char *key, Block *out)
{
	const JsonValue *arr = rd_array(r, obj, key);
	if (!arr)
		return false;
	for (size_t i = 0; i < arr->arr.n; i++) {
		Stmt *s = rd_stmt(r, arr->arr.items[i]);
		if (!s)
			return false;
		vec_push(r->a, out, s);
	}
	return true;
}

/* ---- functions and the module ---- */

static bool
rd_param(Reader *r, const JsonValue *v, Param *p)
{
	int kind;
	if (!json_is(v, JSON_OBJECT))
		return rd_fail(r, v, PT_E_JSON_TYPE, "a parameter must be an "
			       "object, not %s", kind_of(v));
	if (!RD_ENUM(r, v, "param", paramkind_names, &kind) ||
	    !rd_object(r, v, "a parameter", "param",
		       kind == PK_TENSOR ? "buf" : "var"))
		return false;
	p->kind = (ParamKind)kind;
	p->span = rd_span(r, v);
	if (kind == PK_TENSOR)
		return (p->buf = rd_buf_def(r, v, "buf", true));
	return (p->var = rd_var_def_at(r, v, "var", VK_PARAM));
}

/* grid/block: 1..3 scalar expressions; a single one unless a tuple. */
static bool
rd_dims3(Reader *r, const JsonValue *v, const char *key, Expr **out,
	 int *n, bool *tuple)
{
	char tkey[16];
	ExprVec dims = {0};
	snprintf(tkey, sizeof(tkey), "%s_tuple", key);
	if (!rd_expr_list(r, v, key, TY(ET_SCALAR), &dims) ||
	    !rd_bool(r, v, tkey, tuple))
		return false;
	if (dims.n < 1 || dims.n > 3 || (!*tuple && dims.n != 1))
		return rd_fail(r, json_get(v, key), PT_E_JSON_VALUE,
			       "\"%s\" has %zu entries; it needs 1 (or 1 to 3 "
			       "as a tuple)", key, dims.n);
	*n = (int)dims.n;
	for (size_t i = 0; i < dims.n; i++)
		out[i] = dims.v[i];
	return true;
}

/* Optional "kernel_attrs": {min_blocks_per_sm, max_blocks_per_cluster,
 * max_registers_per_thread}, 0 meaning not set. */
static bool
rd_kernel_attrs(Reader *r, const JsonValue *v, Launch *l)
{
	const JsonValue *ka = json_get(v, "kernel_attrs");
	if (!ka)
		return true;
	return rd_object(r, ka, "kernel attributes", "",
			 "min_blocks_per_sm max_blocks_per_cluster "
			 "max_registers_per_thread") &&
	       rd_int(r, ka, "min_blocks_per_sm", 0, 1024,
		      &l->min_blocks_per_sm) &&
	       rd_int(r, ka, "max_blocks_per_cluster", 0, 1024,
		      &l->max_blocks_per_cluster) &&
	       rd_int(r, ka, "max_registers_per_thread", 0, 255,
		      &l->max_registers);
}

static bool
rd_cluster(Reader *r, const JsonValue *v, Launch *l)
{
	const JsonValue *arr = rd_array(r, v, "cluster");
	if (!arr || !rd_bool(r, v, "cluster_tuple", &l->cluster_tuple))
		return false;
	if (arr->arr.n > 3 || (!l->cluster_tuple && arr->arr.n > 1))
		return rd_fail(r, arr, PT_E_JSON_VALUE, "\"cluster\" has %zu "
			       "entries", arr->arr.n);
	l->ncluster = (int)arr->arr.n;
	for (size_t i = 0; i < arr->arr.n; i++) {
		const JsonValue *x = arr->arr.items[i];
		if (!json_int(x, &l->cluster[i]))
			return rd_type_error(r, x, "cluster", "integers");
		if (l->cluster[i] < 1 || l->cluster[i] > INT32_MAX)
			return rd_fail(r, x, PT_E_JSON_VALUE,
				       "cluster extent %lld is out of range",
				       (long long)l->cluster[i]);
	}
	return true;
}

static bool
rd_launch(Reader *r, const JsonValue *f, Func *fn)
{
	const JsonValue *v = rd_field(r, f, "launch");
	if (!v)
		return false;
	if (!fn->is_kernel) {
		if (!json_is(v, JSON_NULL))
			return rd_fail(r, v, PT_E_JSON_VALUE, "a scalar "
				       "function has no launch (null)");
		return true;
	}
	Launch *l = &fn->launch;
	return rd_object(r, v, "a launch", "",
			 "grid grid_tuple block block_tuple cluster "
			 "cluster_tuple kernel_attrs") &&
	       rd_dims3(r, v, "grid", l->grid, &l->ngrid, &l->grid_tuple) &&
	       rd_dims3(r, v, "block", l->block, &l->nblock,
			&l->block_tuple) &&
	       rd_cluster(r, v, l) && rd_kernel_attrs(r, v, l);
}

static bool
rd_func_sig(Reader *r, const JsonValue *v, Func *f)
{
	const JsonValue *params = rd_array(r, v, "params");
	if (!params)
		return false;
	for (size_t i = 0; i < params->arr.n; i++) {
		Param p = {0};
		if (!rd_param(r, params->arr.items[i], &p))
			return false;
		vec_push(r->a, &f->params, p);
	}
	if (!rd_dtype(r, v, "ret", true, &f->ret))
		return false;
	if ((f->ret != DT_NONE) == f->is_kernel)
		return rd_fail(r, json_get(v, "ret"), PT_E_JSON_VALUE,
			       f->is_kernel ? "a kernel returns nothing (null)"
					    : "a scalar function needs a "
					      "return dtype");
	return rd_launch(r, v, f);
}

/* A function: a module-level one, or an ewise call's lambda.  Each has a
 * scope of its own; module-level symbols (dyn) are visible in all. */
static Func *
rd_func(Reader *r, const JsonValue *v, bool lambda)
{
	if (!rd_object(r, v, "a function", "",
		       "name kernel params ret launch body"))
		return NULL;
	Func *f = NEW(r->a, Func);
	f->span = rd_span(r, v);
	if (!rd_name(r, v, "name", &f->name) ||
	    !rd_bool(r, v, "kernel", &f->is_kernel))
		return NULL;
	if (lambda && f->is_kernel) {
		rd_fail(r, json_get(v, "kernel"), PT_E_JSON_VALUE,
			"an ewise function must be a scalar function");
		return NULL;
	}
	int saved = r->scope;
	r->scope = ++r->nscopes;
	bool ok = rd_func_sig(r, v, f) && rd_block(r, v, "body", &f->body);
	r->scope = saved;
	return ok ? f : NULL;
}

/* The "format" and "version" members that identify a document. */
static bool
rd_header(Reader *r, const JsonValue *root)
{
	if (!json_is(root, JSON_OBJECT))
		return rd_fail(r, root, PT_E_JSON_FORMAT, "an IR document is "
			       "a JSON object, not %s", kind_of(root));
	const JsonValue *f = json_get(root, "format");
	const char *s = json_str(f);
	if (!s || strcmp(s, "ptxtile-ir") != 0)
		return rd_fail(r, f ? f : root, PT_E_JSON_FORMAT,
			       "not a ptxtile IR document: \"format\" must be "
			       "\"ptxtile-ir\"");
	const JsonValue *ver = json_get(root, "version");
	int64_t n;
	if (!json_int(ver, &n) || n != 1)
		return rd_fail(r, ver ? ver : root, PT_E_JSON_VERSION,
			       "unsupported IR JSON version (this reader "
			       "knows version 1)");
	return rd_object(r, root, "the module", "format version",
			 "dyn funcs");
}

static bool
rd_module(Reader *r, const JsonValue *root, Module *m)
{
	if (!rd_header(r, root))
		return false;
	const JsonValue *dyn = rd_array(r, root, "dyn");
	if (!dyn)
		return false;
	for (size_t i = 0; i < dyn->arr.n; i++) {
		Var *v = rd_var_def(r, dyn->arr.items[i], VK_DYN);
		if (!v)
			return false;
		vec_push(r->a, &m->dyn, v);
	}
	const JsonValue *funcs = rd_array(r, root, "funcs");
	if (!funcs)
		return false;
	for (size_t i = 0; i < funcs->arr.n; i++) {
		Func *f = rd_func(r, funcs->arr.items[i], false);
		if (!f)
			return false;
		vec_push(r->a, &m->funcs, f);
	}
	return true;
}

Module *
ir_module_from_json(Ctx *c, const char *text, size_t len, uint32_t file)
{
	Reader r = {.c = c, .a = &c->arena, .file = file};
	JsonError err;
	JsonValue *root = json_parse(r.a, text, len, &err);
	if (!root) {
		int code = strstr(err.msg, "nesting") ? PT_E_JSON_DEPTH
						      : PT_E_JSON_SYNTAX;
		uint32_t off = (uint32_t)err.offset;
		diag_error(c, code, (Span){file, off, off < len ? off + 1 : off},
			   "%s", err.msg);
		return NULL;
	}
	Module *m = NEW(r.a, Module);
	return rd_module(&r, root, m) ? m : NULL;
}
