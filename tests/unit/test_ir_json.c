/*
 * test_ir_json.c - the IR JSON writer and reader: a hand-built module
 * using every node kind goes to JSON and back (same bytes when written
 * again, same structure when read), and malformed documents give the
 * exact PT_E_JSON_* code at the offending byte.
 */
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "ir/ir_json.h"
#include "test.h"

/* ---- a small IR builder (independent of the front end) ---- */

static Expr *
ex(Arena *a, ExprKind k, ExprType ty, DType dt)
{
	Expr *e = NEW(a, Expr);
	e->kind = k;
	e->type = ty;
	e->dtype = dt;
	return e;
}

static Expr *
i32(Arena *a, int64_t v)
{
	Expr *e = ex(a, EX_INT, ET_SCALAR, DT_INT32);
	e->u.ival = v;
	return e;
}

static Expr *
str(Arena *a, const char *s)
{
	Expr *e = ex(a, EX_STR, ET_STR, DT_NONE);
	e->u.str = s;
	return e;
}

static Expr *
var(Arena *a, Var *v)
{
	Expr *e = ex(a, EX_VAR, ET_SCALAR, v->dtype);
	e->u.var = v;
	return e;
}

static Expr *
buf(Arena *a, Buffer *b)
{
	Expr *e = ex(a, EX_BUF, ET_TENSOR, b->dtype);
	e->u.buf = b;
	return e;
}

static Expr *
bin(Arena *a, BinOp op, Expr *x, Expr *y)
{
	Expr *e = ex(a, EX_BINARY, ET_SCALAR, x->dtype);
	e->u.op.op = op;
	e->u.op.a = x;
	e->u.op.b = y;
	return e;
}

static Expr *
builtin(Arena *a, Builtin id, ExprType ty, DType dt, Expr *arg)
{
	Expr *e = ex(a, EX_BUILTIN, ty, dt);
	e->u.call.id = id;
	if (arg)
		vec_push(a, &e->u.call.args, arg);
	return e;
}

static Var *
mkvar(Arena *a, const char *name, DType t, VarKind k)
{
	Var *v = NEW(a, Var);
	v->name = name;
	v->dtype = t;
	v->kind = k;
	v->id = 1000 + (int)(strlen(name) * 7); /* ids need not be dense */
	return v;
}

static Stmt *
st(Arena *a, StmtKind k)
{
	Stmt *s = NEW(a, Stmt);
	s->kind = k;
	return s;
}

static Stmt *
eval(Arena *a, Expr *e)
{
	Stmt *s = st(a, ST_EVAL);
	s->u.value = e;
	return s;
}

static Layout *
lane_layout(Arena *a)
{
	LayoutIter it[4] = {{2, 1, AX_WARPID}, {32, 1, AX_LANEID},
			    {3, 4, AX_M}, {4, 1, AX_M}};
	LayoutIter rep[1] = {{2, 4, AX_WARPID}};
	LayoutOffset off[1] = {{5, AX_WARPID}};
	return layout_make(a, it, 4, rep, 1, off, 1);
}

/* silu(x: float32) -> float32: if x < 0: return 0 else return x*sig(x) */
static Func *
scalar_fn(Arena *a)
{
	Func *f = NEW(a, Func);
	f->name = "silu";
	f->ret = DT_FLOAT32;
	Var *x = mkvar(a, "x", DT_FLOAT32, VK_PARAM);
	vec_push(a, &f->params, ((Param){PK_SCALAR, x, NULL, {0, 0, 0}}));
	Expr *zero = ex(a, EX_FLOAT, ET_SCALAR, DT_FLOAT32);
	zero->u.fval = -0.0;
	Stmt *iff = st(a, ST_IF);
	iff->u.cond.cond = bin(a, BIN_LT, var(a, x), zero);
	iff->u.cond.cond->dtype = DT_BOOL;
	Stmt *r0 = st(a, ST_RETURN);
	Expr *tiny = ex(a, EX_FLOAT, ET_SCALAR, DT_FLOAT32);
	tiny->u.fval = 1e-300 * 1e-300 * 0.0 + 0.1; /* 0.1 exactly as double */
	r0->u.value = tiny;
	vec_push(a, &iff->u.cond.then, r0);
	Stmt *r1 = st(a, ST_RETURN);
	r1->u.value = bin(a, BIN_MUL, var(a, x),
			  builtin(a, BI_SIGMOID, ET_SCALAR, DT_FLOAT32,
				  var(a, x)));
	vec_push(a, &iff->u.cond.els, r1);
	vec_push(a, &f->body, iff);
	return f;
}

static Buffer *
mkbuf(Arena *a, const char *name, BufKind k, DType t, MemScope sc,
      int64_t n0, int64_t n1)
{
	Buffer *b = NEW(a, Buffer);
	b->name = name;
	b->kind = k;
	b->dtype = t;
	b->scope = sc;
	b->ndim = n1 ? 2 : 1;
	b->shape = NEWN(a, Expr *, 2);
	b->shape[0] = i32(a, n0);
	if (n1)
		b->shape[1] = i32(a, n1);
	return b;
}

static Stmt *
buf_def(Arena *a, Buffer *b)
{
	Stmt *s = st(a, ST_BUF_DEF);
	s->u.buf = b;
	return s;
}

/* Tile calls: apply with params, ewise with the lambda. */
static void
add_tile_calls(Arena *a, Block *body, Buffer *R, Buffer *A, Func *silu,
	       Var *tid)
{
	Expr *ap = ex(a, EX_TILE_APPLY, ET_VOID, DT_NONE);
	ap->u.apply.opcode = "cp.async.cg.shared.global.L2::128B";
	Expr *reg = ex(a, EX_REGION, ET_TENSOR, DT_UINT8);
	reg->u.region.base = buf(a, A);
	reg->u.region.sub = true;
	reg->u.region.ndims = 2;
	reg->u.region.dims = NEWN(a, Slice, 2);
	reg->u.region.dims[0].begin = var(a, tid);
	reg->u.region.dims[1].is_slice = true;
	reg->u.region.dims[1].end = i32(a, 16);
	vec_push(a, &ap->u.apply.operands, reg);
	vec_push(a, &ap->u.apply.operands, buf(a, A));
	Expr *sel = ex(a, EX_SELECT, ET_SCALAR, DT_UINT32);
	sel->u.op.a = bin(a, BIN_LT, var(a, tid), i32(a, 3));
	sel->u.op.b = ex(a, EX_INT, ET_SCALAR, DT_UINT32);
	sel->u.op.b->u.ival = 16;
	sel->u.op.c = ex(a, EX_INT, ET_SCALAR, DT_UINT32);
	Expr *box = ex(a, EX_TUPLE, ET_TUPLE, DT_NONE);
	vec_push(a, &box->u.tuple, i32(a, 1));
	vec_push(a, &box->u.tuple, i32(a, 32));
	vec_push(a, &ap->u.apply.params,
		 ((NamedArg){"chunk_bytes", i32(a, 16), {0, 0, 0}}));
	vec_push(a, &ap->u.apply.params, ((NamedArg){"src_size", sel, {0}}));
	vec_push(a, &ap->u.apply.params, ((NamedArg){"box", box, {0}}));
	ap->u.apply.scope = ES_CTA;
	vec_push(a, body, eval(a, ap));

	Expr *ew = ex(a, EX_TILE_EWISE, ET_VOID, DT_NONE);
	ew->u.ewise.fn = silu;
	ew->u.ewise.dst = buf(a, R);
	vec_push(a, &ew->u.ewise.inputs, buf(a, R));
	Expr *half = ex(a, EX_FLOAT, ET_SCALAR, DT_FLOAT32);
	half->u.fval = 0.5;
	vec_push(a, &ew->u.ewise.inputs, half);
	ew->u.ewise.scope = ES_THREAD;
	vec_push(a, body, eval(a, ew));
}

/* Views, loads, casts, raw PTX and control flow. */
static void
add_misc(Arena *a, Block *body, Buffer *R, Buffer *S, Var *tid)
{
	Buffer *v = mkbuf(a, "Rw", BK_VIEW, DT_UINT32, MS_LOCAL, 12, 0);
	Expr *vd = ex(a, EX_VIEW_DTYPE, ET_TENSOR, DT_UINT32);
	vd->u.view.base = buf(a, R);
	v->view = vd;
	vec_push(a, body, buf_def(a, v));
	Expr *rs = ex(a, EX_VIEW_RESHAPE, ET_TENSOR, DT_FLOAT32);
	rs->u.view.base = buf(a, S);
	vec_push(a, &rs->u.view.shape, i32(a, 8));
	vec_push(a, &rs->u.view.shape, i32(a, 8));
	rs->u.view.layout = layout_compose(a, 2, 3, 3, lane_layout(a));

	Expr *p = ex(a, EX_PTX, ET_VOID, DT_NONE);
	p->u.ptx.spelling = "mov.b32";
	Expr *ld = ex(a, EX_LOAD, ET_SCALAR, DT_UINT32);
	ld->u.access.base = buf(a, v);
	vec_push(a, &ld->u.access.indices, i32(a, 0));
	Expr *pt = ex(a, EX_PTR_TO, ET_SCALAR, DT_UINT64);
	pt->u.access.base = rs;
	vec_push(a, &pt->u.access.indices, i32(a, 1));
	vec_push(a, &pt->u.access.indices, i32(a, 2));
	vec_push(a, &p->u.ptx.args, ld);
	vec_push(a, &p->u.ptx.args, pt);
	Expr *cast = ex(a, EX_CAST, ET_SCALAR, DT_UINT32);
	cast->u.op.a = var(a, tid);
	Expr *re = ex(a, EX_REINTERPRET, ET_SCALAR, DT_FLOAT32);
	re->u.op.a = cast;
	vec_push(a, &p->u.ptx.args, re);
	Expr *neg = ex(a, EX_UNARY, ET_SCALAR, DT_BOOL);
	neg->u.op.op = UN_LNOT;
	neg->u.op.a = ex(a, EX_BOOL, ET_SCALAR, DT_BOOL);
	p->u.ptx.pred = neg;
	p->u.ptx.preserve_dst = true;
	vec_push(a, body, eval(a, p));
	vec_push(a, body, eval(a, builtin(a, BI_CTA_SYNC, ET_VOID, DT_NONE,
					 NULL)));
}

/* for i in T.unroll(4): while i < n: x = x + 1; break / continue */
static void
add_loops(Arena *a, Block *body, Var *n, Buffer *B)
{
	Var *x = mkvar(a, "x", DT_INT32, VK_LOCAL);
	Stmt *d = st(a, ST_VAR_DECL);
	d->u.var.var = x;
	d->u.var.value = i32(a, 0);
	vec_push(a, body, d);
	Stmt *f = st(a, ST_FOR);
	Var *i = mkvar(a, "i", DT_INT32, VK_LOOP);
	f->u.loop.var = i;
	f->u.loop.begin = i32(a, 0);
	f->u.loop.end = var(a, n);
	f->u.loop.step = i32(a, 2);
	f->u.loop.kind = FOR_UNROLL;
	Stmt *w = st(a, ST_WHILE);
	w->u.whil.cond = bin(a, BIN_LT, var(a, i), var(a, n));
	Stmt *as = st(a, ST_ASSIGN);
	as->u.var.var = x;
	as->u.var.value = bin(a, BIN_FLOORDIV, var(a, x), i32(a, -3));
	vec_push(a, &w->u.whil.body, as);
	vec_push(a, &w->u.whil.body, st(a, ST_BREAK));
	vec_push(a, &f->u.loop.body, w);
	vec_push(a, &f->u.loop.body, st(a, ST_CONTINUE));
	vec_push(a, body, f);
	Stmt *sto = st(a, ST_STORE);
	sto->u.store.base = buf(a, B);
	vec_push(a, &sto->u.store.indices, var(a, x));
	sto->u.store.value = ex(a, EX_FLOAT, ET_SCALAR, DT_FLOAT32);
	sto->u.store.value->u.fval = 3.25;
	vec_push(a, body, sto);
}

static Func *
kernel_fn(Arena *a, Var *n, Func *silu)
{
	Func *k = NEW(a, Func);
	k->name = "everything";
	k->is_kernel = true;
	Buffer *A = mkbuf(a, "A", BK_PARAM, DT_UINT8, MS_GLOBAL, 4, 16);
	A->shape[0] = var(a, n);
	A->align = 16;
	vec_push(a, &k->params, ((Param){PK_TENSOR, NULL, A, {0}}));
	Var *tm = mkvar(a, "tmap", DT_NONE, VK_PARAM);
	vec_push(a, &k->params, ((Param){PK_TENSORMAP, tm, NULL, {0}}));
	k->launch.grid[0] = builtin(a, BI_CEILDIV, ET_SCALAR, DT_INT32,
				    var(a, n));
	vec_push(a, &k->launch.grid[0]->u.call.args, i32(a, 4));
	k->launch.ngrid = 1;
	k->launch.block[0] = i32(a, 32);
	k->launch.block[1] = i32(a, 2);
	k->launch.nblock = 2;
	k->launch.block_tuple = true;
	k->launch.cluster[0] = 2;
	k->launch.ncluster = 1;

	Var *tid = mkvar(a, "tid", DT_INT32, VK_LOCAL);
	Stmt *d = st(a, ST_VAR_DECL);
	d->u.var.var = tid;
	d->u.var.value = builtin(a, BI_THREAD_IDX, ET_SCALAR, DT_INT32,
				 str(a, "x"));
	vec_push(a, &k->body, d);
	Buffer *R = mkbuf(a, "R", BK_ALLOC, DT_FLOAT32, MS_LOCAL, 64, 12);
	R->layout = lane_layout(a);
	vec_push(a, &k->body, buf_def(a, R));
	Buffer *S = mkbuf(a, "S", BK_ALLOC, DT_FLOAT32, MS_SHARED, 64, 0);
	S->align = 128;
	vec_push(a, &k->body, buf_def(a, S));
	Buffer *T = mkbuf(a, "tm", BK_ALLOC, DT_UINT32, MS_TMEM, 128, 32);
	T->allocated_addr = i32(a, 0);
	vec_push(a, &k->body, buf_def(a, T));
	add_tile_calls(a, &k->body, R, A, silu, tid);
	add_misc(a, &k->body, R, S, tid);
	add_loops(a, &k->body, n, S);
	return k;
}

static Module *
everything(Arena *a)
{
	Module *m = NEW(a, Module);
	Var *n = mkvar(a, "n", DT_INT32, VK_DYN);
	vec_push(a, &m->dyn, n);
	Func *silu = scalar_fn(a);
	vec_push(a, &m->funcs, silu);
	vec_push(a, &m->funcs, kernel_fn(a, n, silu));
	return m;
}

static const char *
first_diag(Ctx *c)
{
	return c->diags ? c->diags->msg : "(none)";
}

TEST(ir_json_roundtrip_bytes)
{
	Ctx *c = pt_ctx_new(NULL);
	Module *m = everything(&c->arena);
	const char *j1 = ir_module_to_json(c, m);
	CHECK(j1 != NULL);
	if (!j1) {
		pt_ctx_free(c);
		return;
	}
	Module *m2 = ir_module_from_json(c, j1, strlen(j1), 0);
	if (!m2)
		fprintf(stderr, "  reader: %s\n", first_diag(c));
	CHECK(m2 != NULL);
	CHECK(ir_module_equal(m, m2));
	const char *j2 = m2 ? ir_module_to_json(c, m2) : NULL;
	CHECK_STR(j2, j1);
	/* Deterministic: writing the same module twice gives the same bytes. */
	CHECK_STR(ir_module_to_json(c, m), j1);
	CHECK_INT(pt_diag_count(c), 0);
	pt_ctx_free(c);
}

/* The values that came back are the ones that went in. */
TEST(ir_json_roundtrip_fields)
{
	Ctx *c = pt_ctx_new(NULL);
	Module *m = everything(&c->arena);
	const char *j = ir_module_to_json(c, m);
	Module *r = j ? ir_module_from_json(c, j, strlen(j), 0) : NULL;
	CHECK(r != NULL);
	if (!r) {
		pt_ctx_free(c);
		return;
	}
	CHECK_INT(r->dyn.n, 1);
	CHECK_STR(r->dyn.v[0]->name, "n");
	CHECK_INT(r->dyn.v[0]->kind, VK_DYN);
	CHECK_INT(r->funcs.n, 2);
	Func *k = r->funcs.v[1];
	CHECK(k->is_kernel);
	CHECK_INT(k->launch.nblock, 2);
	CHECK(k->launch.block_tuple);
	CHECK_INT(k->launch.cluster[0], 2);
	CHECK_INT(k->params.v[1].kind, PK_TENSORMAP);
	Buffer *A = k->params.v[0].buf;
	CHECK_INT(A->kind, BK_PARAM);
	CHECK_INT(A->align, 16);
	/* The shape refers to the dyn variable itself, not a copy. */
	CHECK(A->shape[0]->u.var == r->dyn.v[0]);
	Buffer *R = k->body.v[1]->u.buf;
	CHECK_INT(R->layout->nshard, 4);
	CHECK_INT(R->layout->shard[0].axis, AX_WARPID);
	CHECK_INT(R->layout->replica[0].stride, 4);
	CHECK_INT(R->layout->offset[0].value, 5);
	Expr *ew = k->body.v[5]->u.value;
	CHECK_INT(ew->kind, EX_TILE_EWISE);
	CHECK_STR(ew->u.ewise.fn->name, "silu");
	CHECK_INT(ew->u.ewise.fn->ret, DT_FLOAT32);
	CHECK(ew->u.ewise.inputs.v[1]->u.fval == 0.5);
	Expr *ap = k->body.v[4]->u.value;
	CHECK_STR(ap->u.apply.params.v[1].name, "src_size");
	CHECK_INT(ap->u.apply.scope, ES_CTA);
	CHECK(ap->u.apply.operands.v[0]->u.region.sub);
	/* -0.0 keeps its sign. */
	Expr *lt = r->funcs.v[0]->body.v[0]->u.cond.cond;
	CHECK(lt->u.op.b->u.fval == 0.0 && 1 / lt->u.op.b->u.fval < 0);
	pt_ctx_free(c);
}

/* ---- malformed documents ---- */

static const char base_doc[] =
	"{\"format\": \"ptxtile-ir\", \"version\": 1,\n"
	" \"dyn\": [{\"id\": 0, \"name\": \"n\", \"dtype\": \"int32\"}],\n"
	" \"funcs\": [{\"name\": \"k\", \"kernel\": true, \"params\": [\n"
	"   {\"param\": \"scalar\", \"var\": {\"id\": 1, \"name\": \"x\","
	" \"dtype\": \"int32\"}}],\n"
	"  \"ret\": null, \"launch\": {\"grid\": [{\"expr\": \"int\","
	" \"dtype\": \"int32\", \"value\": 1}], \"grid_tuple\": false,"
	" \"block\": [{\"expr\": \"int\", \"dtype\": \"int32\", \"value\": 32}],"
	" \"block_tuple\": false, \"cluster\": [], \"cluster_tuple\": false},\n"
	"  \"body\": [{\"stmt\": \"var_decl\", \"var\": {\"id\": 2, \"name\":"
	" \"y\", \"dtype\": \"int32\"}, \"value\": {\"expr\": \"binary\","
	" \"dtype\": \"int32\", \"op\": \"add\", \"a\": {\"expr\": \"var\","
	" \"dtype\": \"int32\", \"var\": 1}, \"b\": {\"expr\": \"builtin\","
	" \"dtype\": \"int32\", \"name\": \"T.cuda.thread_idx\", \"args\":"
	" [{\"expr\": \"str\", \"value\": \"x\"}]}}}]}]}\n";

/* Reads base_doc with `from` replaced by `to`; true when the first
 * diagnostic has `code` and points at the first byte of `at` (a string
 * that occurs in the edited text; NULL: do not check the offset). */
static bool
rejects(const char *from, const char *to, int code, const char *at)
{
	char text[4096];
	const char *p = strstr(base_doc, from);
	if (!p || strlen(base_doc) + strlen(to) >= sizeof(text)) {
		fprintf(stderr, "  bad test edit %s\n", from);
		return false;
	}
	size_t pre = (size_t)(p - base_doc);
	memcpy(text, base_doc, pre);
	strcpy(text + pre, to);
	strcat(text, p + strlen(from));
	Ctx *c = pt_ctx_new(NULL);
	Module *m = ir_module_from_json(c, text, strlen(text), 0);
	const char *want = at ? strstr(text, at) : NULL;
	bool ok = !m && c->diags && c->diags->code == code &&
		  (!at || (want && c->diags->span.lo == (uint32_t)(want - text)));
	if (!ok)
		fprintf(stderr, "  edit %s -> %s: got %s E%d at %u: %s\n", from,
			to, m ? "a module" : "error", c->diags ? c->diags->code : 0,
			c->diags ? c->diags->span.lo : 0, first_diag(c));
	pt_ctx_free(c);
	return ok;
}

TEST(ir_json_base_doc_reads)
{
	Ctx *c = pt_ctx_new(NULL);
	Module *m = ir_module_from_json(c, base_doc, strlen(base_doc), 0);
	if (!m)
		fprintf(stderr, "  %s\n", first_diag(c));
	CHECK(m != NULL);
	if (m)
		CHECK_STR(m->funcs.v[0]->body.v[0]->u.var.var->name, "y");
	pt_ctx_free(c);
}

TEST(ir_json_rejects_document)
{
	CHECK(rejects("{\"format\"", "{,\"format\"", PT_E_JSON_SYNTAX, ","));
	CHECK(rejects("\"ptxtile-ir\"", "\"ptxtile-IR\"", PT_E_JSON_FORMAT,
		      "\"ptxtile-IR\""));
	CHECK(rejects("\"version\": 1", "\"version\": 2", PT_E_JSON_VERSION,
		      "2,"));
	CHECK(rejects("\"version\": 1", "\"version\": \"1\"",
		      PT_E_JSON_VERSION, "\"1\""));
	/* A cast without the dtype it converts to. */
	CHECK(rejects("{\"expr\": \"var\", \"dtype\": \"int32\", \"var\": 1}",
		      "{\"expr\": \"cast\", \"a\": {\"expr\": \"int\","
		      " \"value\": 1}}", PT_E_JSON_MISSING,
		      "{\"expr\": \"cast\""));
	CHECK(rejects("\"dyn\": [", "\"extra\": 1, \"dyn\": [",
		      PT_E_JSON_UNKNOWN_FIELD, "1, \"dyn\""));
}

TEST(ir_json_rejects_nodes)
{
	CHECK(rejects("\"binary\"", "\"trinary\"", PT_E_JSON_KIND,
		      "\"trinary\""));
	CHECK(rejects("\"var_decl\"", "\"let\"", PT_E_JSON_KIND, "\"let\""));
	CHECK(rejects("\"op\": \"add\"", "\"op\": \"pow\"", PT_E_JSON_ENUM,
		      "\"pow\""));
	CHECK(rejects("\"name\": \"T.cuda.thread_idx\"",
		      "\"name\": \"T.cuda.thread_idy\"", PT_E_JSON_ENUM,
		      "\"T.cuda.thread_idy\""));
	CHECK(rejects("\"name\": \"y\", \"dtype\": \"int32\"",
		      "\"name\": \"y\", \"dtype\": \"int33\"", PT_E_JSON_DTYPE,
		      "\"int33\""));
	CHECK(rejects("\"kernel\": true", "\"kernel\": 1", PT_E_JSON_TYPE,
		      "1, \"params\""));
	CHECK(rejects("\"args\": [{\"expr\": \"str\", \"value\": \"x\"}]",
		      "\"args\": {\"x\": 1}", PT_E_JSON_TYPE, "{\"x\""));
	CHECK(rejects("\"ret\": null, ", "", PT_E_JSON_MISSING, NULL));
	CHECK(rejects("\"value\": 32}", "\"value\": 32, \"valu\": 3}",
		      PT_E_JSON_UNKNOWN_FIELD, "3}"));
	/* An int cannot claim to be a tensor; a var is no place for one. */
	CHECK(rejects("\"expr\": \"int\", \"dtype\": \"int32\", \"value\": 1",
		      "\"expr\": \"int\", \"type\": \"tensor\", \"dtype\":"
		      " \"int32\", \"value\": 1",
		      PT_E_JSON_VALUE, "\"tensor\""));
	/* thread_idx takes one argument. */
	CHECK(rejects("[{\"expr\": \"str\", \"value\": \"x\"}]", "[]",
		      PT_E_JSON_VALUE, "[]}}}"));
	/* A binary operand must be a scalar, not a string. */
	CHECK(rejects("\"a\": {\"expr\": \"var\", \"dtype\": \"int32\","
		      " \"var\": 1}",
		      "\"a\": {\"expr\": \"str\", \"value\": \"s\"}",
		      PT_E_JSON_VALUE, "{\"expr\": \"str\", \"value\": \"s\"}"));
	CHECK(rejects("\"grid_tuple\": false", "\"grid_tuple\": null",
		      PT_E_JSON_TYPE, "null, \"block\""));
	CHECK(rejects("\"cluster\": []", "\"cluster\": [0]", PT_E_JSON_VALUE,
		      "0]"));
}

TEST(ir_json_rejects_ids)
{
	/* y reuses x's id. */
	CHECK(rejects("\"id\": 2", "\"id\": 1", PT_E_JSON_DUP_ID,
		      "1, \"name\": \"y\""));
	/* A reference to an id nobody defined. */
	CHECK(rejects("\"var\": 1}", "\"var\": 7}", PT_E_JSON_UNDEFINED,
		      "7}"));
	/* A reference to the variable being defined, in its own value. */
	CHECK(rejects("\"var\": 1}", "\"var\": 2}", PT_E_JSON_UNDEFINED,
		      "2}, \"b\""));
	CHECK(rejects("\"var\": 1}", "\"var\": -1}", PT_E_JSON_VALUE,
		      "-1}"));
}

/* A second function: returns variable `id`. */
static const char *
second_fn(char *buf, size_t n, int id)
{
	snprintf(buf, n, ", {\"name\": \"f\", \"kernel\": false, "
		 "\"params\": [], \"ret\": \"int32\", \"launch\": null, "
		 "\"body\": [{\"stmt\": \"return\", \"value\": {\"expr\": "
		 "\"var\", \"dtype\": \"int32\", \"var\": %d}}]}]}\n", id);
	return buf;
}

/* A variable of one function is out of scope in another; a module-level
 * (dyn) one is visible everywhere. */
TEST(ir_json_function_scopes)
{
	char fn[512], text[4096];
	CHECK(rejects("]}\n", second_fn(fn, sizeof(fn), 2),
		      PT_E_JSON_UNDEFINED, "2}}]}]}"));
	size_t keep = strlen(base_doc) - strlen("]}\n");
	snprintf(text, sizeof(text), "%.*s%s", (int)keep, base_doc,
		 second_fn(fn, sizeof(fn), 0));
	Ctx *c = pt_ctx_new(NULL);
	Module *m = ir_module_from_json(c, text, strlen(text), 0);
	if (!m)
		fprintf(stderr, "  %s\n", first_diag(c));
	CHECK(m != NULL && m->funcs.n == 2);
	CHECK(m && m->funcs.v[1]->body.v[0]->u.value->u.var == m->dyn.v[0]);
	pt_ctx_free(c);
}

TEST(ir_json_rejects_deep_nesting)
{
	char text[JSON_MAX_DEPTH + 64];
	size_t n = 0;
	for (int i = 0; i < JSON_MAX_DEPTH + 10; i++)
		text[n++] = '[';
	text[n] = 0;
	Ctx *c = pt_ctx_new(NULL);
	CHECK(ir_module_from_json(c, text, n, 0) == NULL);
	CHECK(c->diags && c->diags->code == PT_E_JSON_DEPTH);
	pt_ctx_free(c);
}

/* A left-nested sum too deep for JSON is refused by the writer with
 * PT_E_JSON_DEPTH, not written as a document the reader would reject;
 * one that fits is written and read back. */
TEST(ir_json_writer_depth)
{
	for (int depth = 150; depth <= 1150; depth += 1000) {
		Ctx *c = pt_ctx_new(NULL);
		Arena *a = &c->arena;
		Module *m = everything(a);
		Expr *e = i32(a, 0);
		for (int i = 0; i < depth; i++)
			e = bin(a, BIN_ADD, e, i32(a, i));
		Func *k = m->funcs.v[1];
		Stmt *d = st(a, ST_VAR_DECL);
		d->u.var.var = mkvar(a, "deep", DT_INT32, VK_LOCAL);
		d->u.var.value = e;
		vec_push(a, &k->body, d);
		const char *j = ir_module_to_json(c, m);
		if (depth < JSON_MAX_DEPTH / 2) {
			CHECK(j != NULL);
			Module *r = j ? ir_module_from_json(c, j, strlen(j), 0)
				      : NULL;
			if (!r)
				fprintf(stderr, "  %s\n", first_diag(c));
			CHECK(r != NULL);
		} else {
			CHECK(j == NULL);
			CHECK(c->diags && c->diags->code == PT_E_JSON_DEPTH);
		}
		pt_ctx_free(c);
	}
}

TEST(ir_json_rejects_layouts)
{
	/* Build a document with a buffer and mutate its layout. */
	Ctx *c = pt_ctx_new(NULL);
	Module *m = everything(&c->arena);
	const char *j = ir_module_to_json(c, m);
	CHECK(j != NULL);
	static const struct {
		const char *from, *to;
		int code;
	} cases[] = {
		{"\"extent\": 2,", "\"extent\": 0,", PT_E_JSON_VALUE},
		{"\"axis\": \"laneid\"", "\"axis\": \"lane\"", PT_E_JSON_ENUM},
		{"\"layout\": \"tile\"", "\"layout\": \"tiles\"", PT_E_JSON_KIND},
		{"\"sw_b\": 3", "\"sw_b\": 32", PT_E_JSON_VALUE},
		{"\"scope\": \"cta\"", "\"scope\": \"galaxy\"", PT_E_JSON_ENUM},
		{"\"scope\": \"tmem\"", "\"scope\": \"texture\"",
		 PT_E_JSON_ENUM},
		{"\"kind\": \"unroll\"", "\"kind\": \"parallel\"",
		 PT_E_JSON_ENUM},
		{"\"kind\": \"view\"", "\"kind\": \"alloc\"", PT_E_JSON_VALUE},
		{"\"name\": \"src_size\"", "\"name\": \"chunk_bytes\"",
		 PT_E_JSON_VALUE},
		{"\"value\": 0.5", "\"value\": true", PT_E_JSON_TYPE},
		{"\"kernel\": false", "\"kernel\": true", PT_E_JSON_VALUE},
	};
	for (size_t i = 0; j && i < countof(cases); i++) {
		const char *p = strstr(j, cases[i].from);
		CHECK(p != NULL);
		if (!p)
			continue;
		StrBuf b;
		sb_init(&b, &c->arena);
		sb_putn(&b, j, (size_t)(p - j));
		sb_puts(&b, cases[i].to);
		sb_puts(&b, p + strlen(cases[i].from));
		Ctx *c2 = pt_ctx_new(NULL);
		Module *r = ir_module_from_json(c2, b.s, b.n, 0);
		bool ok = !r && c2->diags && c2->diags->code == cases[i].code;
		if (!ok)
			fprintf(stderr, "  case %s: E%d %s\n", cases[i].to,
				c2->diags ? c2->diags->code : 0, first_diag(c2));
		CHECK(ok);
		pt_ctx_free(c2);
	}
	pt_ctx_free(c);
}
