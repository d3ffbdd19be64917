/*
 * test_codegen.c - code generation on IR built by hand: instruction
 * selection for scalars, control flow, memory and raw PTX calls, every
 * codegen diagnostic, and (when ptxas is installed) that the emitted PTX
 * assembles for its target without warnings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "codegen/codegen.h"
#include "ir/ir.h"
#include "rt/rt.h"

/* ---- a small IR builder ---- */

typedef struct B {
	Ctx *c;
	Module *m;
	Func *f;
	Block *cur;
	int ids;
} B;

static const Span NOSP = {0, 0, 0};

static void
b_init(B *b, Ctx *c, const char *name)
{
	memset(b, 0, sizeof *b);
	b->c = c;
	b->m = NEW(&c->arena, Module);
	b->f = NEW(&c->arena, Func);
	b->f->name = name;
	b->f->is_kernel = true;
	b->f->launch.ngrid = b->f->launch.nblock = 1;
	b->f->launch.grid[0] = ir_int(c, 1, DT_INT32, NOSP);
	b->f->launch.block[0] = ir_int(c, 32, DT_INT32, NOSP);
	b->cur = &b->f->body;
	vec_push(&c->arena, &b->m->funcs, b->f);
}

static Var *
var(B *b, const char *name, DType t, VarKind k)
{
	Var *v = NEW(&b->c->arena, Var);
	v->name = name;
	v->dtype = t;
	v->kind = k;
	v->id = ++b->ids;
	return v;
}

static Expr *
ev(B *b, Var *v)
{
	Expr *e = ir_new_expr(b->c, EX_VAR, ET_SCALAR, v->dtype, NOSP);
	e->u.var = v;
	return e;
}

static Expr *
ei(B *b, int64_t v, DType t)
{
	return ir_int(b->c, v, t, NOSP);
}

static Expr *
ebin(B *b, BinOp op, Expr *x, Expr *y, DType t)
{
	Expr *e = ir_new_expr(b->c, EX_BINARY, ET_SCALAR, t, NOSP);
	e->u.op.op = op;
	e->u.op.a = x;
	e->u.op.b = y;
	return e;
}

static Expr *
ecast(B *b, ExprKind k, Expr *x, DType t)
{
	Expr *e = ir_new_expr(b->c, k, ET_SCALAR, t, NOSP);
	e->u.op.a = x;
	return e;
}

static Buffer *
buf(B *b, const char *name, BufKind k, MemScope s, DType t, int64_t n)
{
	Buffer *x = NEW(&b->c->arena, Buffer);
	x->name = name;
	x->kind = k;
	x->scope = s;
	x->dtype = t;
	x->ndim = 1;
	x->shape = NEWN(&b->c->arena, Expr *, 1);
	x->shape[0] = ei(b, n, DT_INT32);
	x->id = ++b->ids;
	return x;
}

static Expr *
ebuf(B *b, Buffer *x)
{
	Expr *e = ir_new_expr(b->c, EX_BUF, ET_TENSOR, x->dtype, NOSP);
	e->u.buf = x;
	return e;
}

static Expr *
eacc(B *b, ExprKind k, Buffer *x, Expr *i)
{
	Expr *e = ir_new_expr(b->c, k, ET_SCALAR,
			      k == EX_PTR_TO ? DT_UINT64 : x->dtype, NOSP);
	e->u.access.base = ebuf(b, x);
	vec_push(&b->c->arena, &e->u.access.indices, i);
	return e;
}

static Expr *
ecall(B *b, Builtin id, DType t, Expr *a0, Expr *a1)
{
	Expr *e = ir_new_expr(b->c, EX_BUILTIN,
			      t ? ET_SCALAR : ET_VOID, t, NOSP);
	e->u.call.id = id;
	if (a0)
		vec_push(&b->c->arena, &e->u.call.args, a0);
	if (a1)
		vec_push(&b->c->arena, &e->u.call.args, a1);
	return e;
}

static Expr *
estr(B *b, const char *s)
{
	Expr *e = ir_new_expr(b->c, EX_STR, ET_STR, DT_NONE, NOSP);
	e->u.str = s;
	return e;
}

/* A raw call built by hand, selected before codegen as the checker
 * selects a raw call (broad reading: the arguments are built here, not
 * written in a script); codegen never selects. */
static Expr *
eptx(B *b, const char *sp, Expr **args, int n, Expr *pred)
{
	Expr *p = ir_new_expr(b->c, EX_PTX, ET_VOID, DT_NONE, NOSP);
	p->u.ptx.spelling = sp;
	p->u.ptx.pred = pred;
	for (int i = 0; i < n; i++)
		vec_push(&b->c->arena, &p->u.ptx.args, args[i]);
	ir_select_ptx(b->c, p, true);
	return p;
}

static void
add(B *b, Stmt *s)
{
	vec_push(&b->c->arena, b->cur, s);
}

static void
s_decl(B *b, Var *v, Expr *init)
{
	Stmt *s = ir_new_stmt(b->c, ST_VAR_DECL, NOSP);
	s->u.var.var = v;
	s->u.var.value = init;
	add(b, s);
}

static void
s_store(B *b, Buffer *x, Expr *i, Expr *val)
{
	Stmt *s = ir_new_stmt(b->c, ST_STORE, NOSP);
	s->u.store.base = ebuf(b, x);
	vec_push(&b->c->arena, &s->u.store.indices, i);
	s->u.store.value = val;
	add(b, s);
}

static void
s_def(B *b, Buffer *x)
{
	Stmt *s = ir_new_stmt(b->c, ST_BUF_DEF, NOSP);
	s->u.buf = x;
	add(b, s);
}

static void
s_eval(B *b, Expr *e)
{
	Stmt *s = ir_new_stmt(b->c, ST_EVAL, NOSP);
	s->u.value = e;
	add(b, s);
}

/* Opens a for loop; returns the enclosing block to restore. */
static Block *
s_for(B *b, Var *i, int64_t lo, Expr *hi, ForKind k)
{
	Stmt *s = ir_new_stmt(b->c, ST_FOR, NOSP);
	s->u.loop.var = i;
	s->u.loop.begin = ei(b, lo, DT_INT32);
	s->u.loop.end = hi;
	s->u.loop.kind = k;
	add(b, s);
	Block *outer = b->cur;
	b->cur = &s->u.loop.body;
	return outer;
}

static Stmt *
s_if(B *b, Expr *cond)
{
	Stmt *s = ir_new_stmt(b->c, ST_IF, NOSP);
	s->u.cond.cond = cond;
	add(b, s);
	return s;
}

static void
tensor_param(B *b, Buffer *x)
{
	Param p = {0};
	p.kind = PK_TENSOR;
	p.buf = x;
	vec_push(&b->c->arena, &b->f->params, p);
}

static void
scalar_param(B *b, Var *v)
{
	Param p = {0};
	p.kind = PK_SCALAR;
	p.var = v;
	vec_push(&b->c->arena, &b->f->params, p);
}

static void
select_builtin(void *ud, Expr *x)
{
	if (x->kind == EX_BUILTIN)
		(void)ir_select_builtin(ud, x); /* a miss is a diagnostic */
}

/* What the checker does before codegen for a hand-built module: each
 * builtin's instruction forms selected for the target (raw calls are
 * selected by eptx). */
static const char *
compile(B *b, const char *target, const char **meta)
{
	const char *ptx = NULL, *mt = NULL;
	PT_ASSERT(target_parse(target, &b->c->target));
	for (size_t i = 0; i < b->m->funcs.n; i++)
		ir_visit_block(&b->m->funcs.v[i]->body, select_builtin, b->c);
	codegen_module(b->c, b->m, &ptx, &mt);
	if (meta)
		*meta = mt;
	if (getenv("PTXTILE_DUMP") && ptx) /* for reviewing by hand */
		fprintf(stderr, "%s\n%s\n", ptx, mt);
	return ptx;
}

static bool
has_code(const Ctx *c, int code)
{
	for (const Diag *d = c->diags; d; d = d->next)
		if (d->code == code)
			return true;
	return false;
}

/* 0: assembled without output; 1: ptxas failed or warned; -1: no ptxas. */
static int
assemble(const char *ptx, const char *target)
{
	const char *px = getenv("PTXAS");
	char cmd[512];
	if (!px || !*px)
		px = access("/usr/local/cuda/bin/ptxas", X_OK) == 0
			? "/usr/local/cuda/bin/ptxas" : "ptxas";
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", px);
	if (system(cmd) != 0)
		return -1;
	char in[] = "/tmp/ptxtile_cg_XXXXXX";
	int fd = mkstemp(in);
	if (fd < 0)
		return 1;
	size_t n = strlen(ptx);
	bool ok = write(fd, ptx, n) == (ssize_t)n;
	close(fd);
	char log[64];
	snprintf(log, sizeof log, "%s.log", in);
	snprintf(cmd, sizeof cmd, "%s -arch=%s %s -o /dev/null >%s 2>&1", px,
		 target, in, log);
	int rc = ok ? system(cmd) : 1;
	FILE *f = fopen(log, "r");
	char line[512];
	bool quiet = true;
	while (f && fgets(line, sizeof line, f)) {
		fprintf(stderr, "    ptxas: %s", line);
		quiet = false;
	}
	if (f)
		fclose(f);
	remove(log);
	remove(in);
	return rc == 0 && quiet ? 0 : 1;
}

#define CHECK_ASM(ptx, tgt)                                                \
	do {                                                               \
		int r_ = assemble(ptx, tgt);                               \
		if (r_ < 0)                                                \
			fprintf(stderr, "  SKIP ptxas check: no ptxas\n"); \
		else                                                       \
			CHECK(r_ == 0);                                    \
	} while (0)

static bool
contains(const char *s, const char *sub)
{
	return s && strstr(s, sub) != NULL;
}

/* ---- tests ---- */

/* A: float32[64], n: int32.  Every dtype family through arithmetic,
 * casts and a store. */
TEST(codegen_scalars)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "scalars");
	Buffer *A = buf(&b, "A", BK_PARAM, MS_GLOBAL, DT_FLOAT32, 64);
	Var *n = var(&b, "n", DT_INT32, VK_PARAM);
	tensor_param(&b, A);
	scalar_param(&b, n);
	Var *q = var(&b, "q", DT_INT32, VK_LOCAL);
	Var *u = var(&b, "u", DT_UINT32, VK_LOCAL);
	Var *h = var(&b, "h", DT_FLOAT16, VK_LOCAL);
	Var *bf = var(&b, "bf", DT_BFLOAT16, VK_LOCAL);
	Var *i8 = var(&b, "i8", DT_INT8, VK_LOCAL);
	Var *d = var(&b, "d", DT_FLOAT64, VK_LOCAL);
	s_decl(&b, q, ebin(&b, BIN_FLOORDIV, ev(&b, n), ei(&b, 3, DT_INT32),
			   DT_INT32));
	s_decl(&b, u, ebin(&b, BIN_MOD, ecast(&b, EX_CAST, ev(&b, n), DT_UINT32),
			   ei(&b, 5, DT_UINT32), DT_UINT32));
	s_decl(&b, h, ecast(&b, EX_CAST, ev(&b, q), DT_FLOAT16));
	s_decl(&b, bf, ebin(&b, BIN_MUL, ecast(&b, EX_CAST, ev(&b, h),
					       DT_BFLOAT16),
			    ecast(&b, EX_CAST, ev(&b, u), DT_BFLOAT16),
			    DT_BFLOAT16));
	s_decl(&b, i8, ebin(&b, BIN_ADD, ecast(&b, EX_CAST, ev(&b, n), DT_INT8),
			    ei(&b, 100, DT_INT8), DT_INT8));
	s_decl(&b, d, ecast(&b, EX_CAST, ev(&b, i8), DT_FLOAT64));
	Expr *sum = ebin(&b, BIN_ADD, ecast(&b, EX_CAST, ev(&b, bf), DT_FLOAT32),
			 ecast(&b, EX_CAST, ev(&b, d), DT_FLOAT32), DT_FLOAT32);
	s_store(&b, A, ev(&b, n), ecall(&b, BI_EXP, DT_FLOAT32, sum, NULL));
	s_store(&b, A, ei(&b, 1, DT_INT32),
		ecast(&b, EX_REINTERPRET, ev(&b, u), DT_FLOAT32));
	const char *meta;
	const char *ptx = compile(&b, "sm_80", &meta);
	CHECK(!ctx_has_errors(c));
	CHECK(contains(ptx, ".version 7.0\n.target sm_80"));
	CHECK(contains(ptx, "div.s32"));          /* floor division: */
	CHECK(contains(ptx, "rem.s32"));          /* div + rem + fixup */
	CHECK(contains(ptx, "rem.u32"));          /* unsigned modulo */
	CHECK(contains(ptx, "cvt.rn.f16.s32"));
	CHECK(contains(ptx, "cvt.rn.bf16.f32"));
	CHECK(contains(ptx, "cvt.s16.s8"));       /* int8 wraps */
	CHECK(contains(ptx, "ex2.approx.ftz.f32"));
	CHECK(contains(ptx, "mul.wide.s32"));     /* symbolic global index */
	CHECK(contains(ptx, "st.global.f32 [%rd2+4]"));
	CHECK(contains(meta, "\"kind\": \"tensor\""));
	CHECK(contains(meta, "\"kind\": \"scalar\", \"dtype\": \"int32\""));
	CHECK_ASM(ptx, "sm_80");
	pt_ctx_free(c);
}

/* Control flow: serial loop with break, unrolled loop over a register
 * array, if/else, while. */
TEST(codegen_control_flow)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "flow");
	Buffer *A = buf(&b, "A", BK_PARAM, MS_GLOBAL, DT_INT32, 32);
	tensor_param(&b, A);
	Buffer *r = buf(&b, "r", BK_ALLOC, MS_LOCAL, DT_INT32, 4);
	s_def(&b, r);
	Var *i = var(&b, "i", DT_INT32, VK_LOOP);
	Block *outer = s_for(&b, i, 0, ei(&b, 4, DT_INT32), FOR_UNROLL);
	s_store(&b, r, ev(&b, i), ebin(&b, BIN_MUL, ev(&b, i), ev(&b, i),
				       DT_INT32));
	b.cur = outer;
	Var *acc = var(&b, "acc", DT_INT32, VK_LOCAL);
	s_decl(&b, acc, ei(&b, 0, DT_INT32));
	Var *j = var(&b, "j", DT_INT32, VK_LOOP);
	outer = s_for(&b, j, 0, ei(&b, 10, DT_INT32), FOR_SERIAL);
	Stmt *st = s_if(&b, ebin(&b, BIN_GT, ev(&b, acc), ei(&b, 5, DT_INT32),
				 DT_BOOL));
	vec_push(&c->arena, &st->u.cond.then, ir_new_stmt(c, ST_BREAK, NOSP));
	Stmt *as = ir_new_stmt(c, ST_ASSIGN, NOSP);
	as->u.var.var = acc;
	as->u.var.value = ebin(&b, BIN_ADD, ev(&b, acc),
			       eacc(&b, EX_LOAD, r, ei(&b, 3, DT_INT32)),
			       DT_INT32);
	vec_push(&c->arena, &st->u.cond.els, as);
	b.cur = outer;
	s_store(&b, A, ecall(&b, BI_THREAD_IDX, DT_INT32, estr(&b, "x"), NULL),
		ev(&b, acc));
	const char *ptx = compile(&b, "sm_90a", NULL);
	CHECK(!ctx_has_errors(c));
	CHECK(contains(ptx, "mov.b32 %r1, 0;"));  /* r[0] = 0*0 folded */
	CHECK(contains(ptx, "mov.b32 %r4, 9;"));  /* r[3] = 3*3 */
	CHECK(contains(ptx, "setp.ge.s32"));
	CHECK(contains(ptx, "setp.gt.s32"));
	CHECK(contains(ptx, "mov.u32 %r"));
	CHECK(contains(ptx, "%tid.x"));
	CHECK(!contains(ptx, ".local"));
	CHECK_ASM(ptx, "sm_90a");
	pt_ctx_free(c);
}

/* A dynamically indexed local array goes to .local memory; shared and
 * dynamic shared allocations get declarations and offsets. */
TEST(codegen_memory)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "mem");
	Buffer *A = buf(&b, "A", BK_PARAM, MS_GLOBAL, DT_FLOAT16, 256);
	tensor_param(&b, A);
	Buffer *s = buf(&b, "s", BK_ALLOC, MS_SHARED, DT_FLOAT16, 128);
	s->align = 128;
	Buffer *dy = buf(&b, "dy", BK_ALLOC, MS_SHARED_DYN, DT_FLOAT32, 1000);
	Buffer *l = buf(&b, "l", BK_ALLOC, MS_LOCAL, DT_FLOAT16, 8);
	s_def(&b, s);
	s_def(&b, dy);
	s_def(&b, l);
	Expr *tid = ecall(&b, BI_THREAD_IDX, DT_INT32, estr(&b, "x"), NULL);
	Expr *k = ebin(&b, BIN_MOD, tid, ei(&b, 8, DT_INT32), DT_INT32);
	s_store(&b, l, k, eacc(&b, EX_LOAD, A, tid));
	s_store(&b, s, tid, eacc(&b, EX_LOAD, l, k));
	s_eval(&b, ecall(&b, BI_CTA_SYNC, DT_NONE, NULL, NULL));
	s_store(&b, dy, ei(&b, 7, DT_INT32),
		ecast(&b, EX_CAST, eacc(&b, EX_LOAD, s, ei(&b, 5, DT_INT32)),
		      DT_FLOAT32));
	const char *meta;
	const char *ptx = compile(&b, "sm_90a", &meta);
	CHECK(!ctx_has_errors(c));
	CHECK(contains(ptx, ".shared .align 128 .b8 smem_s[256];"));
	CHECK(contains(ptx, ".local .align 16 .b8 lmem_l[16];"));
	CHECK(contains(ptx, ".extern .shared .align 16 .b8 dyn_smem[];"));
	CHECK(contains(ptx, "st.shared.f32 [dyn_smem+28]"));
	CHECK(contains(ptx, "ld.shared.b16 %rs"));
	CHECK(contains(ptx, "[smem_s+10]"));
	CHECK(contains(ptx, "bar.sync 0;"));
	CHECK(contains(ptx, "and.b32"));          /* % 8 of a signed int */
	CHECK(contains(meta, "\"dynamic_smem\": 4000"));
	CHECK_ASM(ptx, "sm_90a");
	pt_ctx_free(c);
}

/* The reference's cluster copy, built by hand (examples/cluster_copy.py). */
TEST(codegen_cluster_copy)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "cluster_copy");
	b.f->launch.grid[0] = ei(&b, 2, DT_INT32);
	b.f->launch.block[0] = ei(&b, 1, DT_INT32);
	b.f->launch.ncluster = 1;
	b.f->launch.cluster[0] = 2;
	Buffer *A = buf(&b, "A", BK_PARAM, MS_GLOBAL, DT_FLOAT32, 64);
	Buffer *Bt = buf(&b, "B", BK_PARAM, MS_GLOBAL, DT_FLOAT32, 64);
	tensor_param(&b, A);
	tensor_param(&b, Bt);
	Var *rank = var(&b, "rank", DT_INT32, VK_LOCAL);
	s_decl(&b, rank, ecall(&b, BI_CLUSTER_CTA_ID, DT_INT32, estr(&b, "x"),
			       NULL));
	Buffer *src = buf(&b, "src", BK_ALLOC, MS_SHARED, DT_FLOAT32, 64);
	Buffer *dst = buf(&b, "dst", BK_ALLOC, MS_SHARED, DT_FLOAT32, 64);
	Buffer *mbar = buf(&b, "mbar", BK_ALLOC, MS_SHARED, DT_UINT64, 1);
	Buffer *rem = buf(&b, "remote_addresses", BK_ALLOC, MS_LOCAL,
			  DT_UINT64, 2);
	src->align = dst->align = 16;
	mbar->align = 8;
	s_def(&b, src);
	s_def(&b, dst);
	s_def(&b, mbar);
	s_def(&b, rem);
	Expr *a1[] = {eacc(&b, EX_PTR_TO, mbar, ei(&b, 0, DT_INT32)),
		      ei(&b, 1, DT_UINT32)};
	s_eval(&b, eptx(&b, "mbarrier.init.shared.b64", a1, 2, NULL));
	s_eval(&b, eptx(&b, "fence.mbarrier_init.release.cluster", NULL, 0,
			NULL));
	s_eval(&b, ecall(&b, BI_CLUSTER_SYNC, DT_NONE, NULL, NULL));
	Stmt *st = s_if(&b, ebin(&b, BIN_EQ, ev(&b, rank), ei(&b, 0, DT_INT32),
				 DT_BOOL));
	Block *outer = b.cur;
	b.cur = &st->u.cond.then;
	Var *i = var(&b, "i", DT_INT32, VK_LOOP);
	Block *o2 = s_for(&b, i, 0, ei(&b, 64, DT_INT32), FOR_SERIAL);
	s_store(&b, src, ev(&b, i), eacc(&b, EX_LOAD, A, ev(&b, i)));
	b.cur = o2;
	s_eval(&b, eptx(&b, "fence.proxy.async.shared::cta", NULL, 0, NULL));
	Expr *m0[] = {eacc(&b, EX_LOAD, rem, ei(&b, 0, DT_INT32)),
		      eacc(&b, EX_PTR_TO, mbar, ei(&b, 0, DT_INT32)),
		      ei(&b, 1, DT_UINT32)};
	s_eval(&b, eptx(&b, "mapa.u64", m0, 3, NULL));
	Expr *m1[] = {eacc(&b, EX_LOAD, rem, ei(&b, 1, DT_INT32)),
		      eacc(&b, EX_PTR_TO, dst, ei(&b, 0, DT_INT32)),
		      ei(&b, 1, DT_UINT32)};
	s_eval(&b, eptx(&b, "mapa.u64", m1, 3, NULL));
	Expr *cp[] = {ecast(&b, EX_CAST, eacc(&b, EX_LOAD, rem,
					      ei(&b, 1, DT_INT32)), DT_UINT32),
		      eacc(&b, EX_PTR_TO, src, ei(&b, 0, DT_INT32)),
		      ei(&b, 256, DT_UINT32),
		      ecast(&b, EX_CAST, eacc(&b, EX_LOAD, rem,
					      ei(&b, 0, DT_INT32)), DT_UINT32)};
	s_eval(&b, eptx(&b, "cp.async.bulk.shared::cluster.shared::cta."
			"mbarrier::complete_tx::bytes", cp, 4, NULL));
	b.cur = &st->u.cond.els;
	Var *state = var(&b, "state", DT_UINT64, VK_LOCAL);
	s_decl(&b, state, NULL);
	Expr *ex[] = {ev(&b, state),
		      eacc(&b, EX_PTR_TO, mbar, ei(&b, 0, DT_INT32)),
		      ei(&b, 256, DT_UINT32)};
	s_eval(&b, eptx(&b, "mbarrier.arrive.expect_tx.shared.b64", ex, 3,
			NULL));
	s_eval(&b, ecall(&b, BI_MBARRIER_WAIT, DT_NONE,
			 eacc(&b, EX_PTR_TO, mbar, ei(&b, 0, DT_INT32)),
			 ei(&b, 0, DT_INT32)));
	Var *k = var(&b, "k", DT_INT32, VK_LOOP);
	o2 = s_for(&b, k, 0, ei(&b, 64, DT_INT32), FOR_SERIAL);
	s_store(&b, Bt, ev(&b, k), eacc(&b, EX_LOAD, dst, ev(&b, k)));
	b.cur = o2;
	b.cur = outer;
	s_eval(&b, ecall(&b, BI_CLUSTER_SYNC, DT_NONE, NULL, NULL));
	const char *meta;
	const char *ptx = compile(&b, "sm_90a", &meta);
	CHECK(!ctx_has_errors(c));
	CHECK(contains(ptx, ".reqnctapercluster 2, 1, 1\n.explicitcluster"));
	CHECK(contains(ptx, "mbarrier.init.shared.b64 [smem_mbar], 1;"));
	CHECK(contains(ptx, "cvta.shared.u64"));
	CHECK(contains(ptx, "mapa.u64 %rd"));
	CHECK(contains(ptx, "cvt.u32.u64"));
	CHECK(contains(ptx, "mbarrier.try_wait.parity.shared::cta.b64"));
	CHECK(contains(ptx, "barrier.cluster.arrive.aligned;"));
	CHECK(contains(meta, "\"cluster\": [2, 1, 1]"));
	CHECK_ASM(ptx, "sm_90a");
	pt_ctx_free(c);
}

/* Symbolic sizes become hidden .s32 params and "dim" metadata. */
TEST(codegen_symbolic_sizes)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "dyn");
	Var *n = var(&b, "n", DT_INT32, VK_DYN);
	vec_push(&c->arena, &b.m->dyn, n);
	Buffer *A = buf(&b, "A", BK_PARAM, MS_GLOBAL, DT_FLOAT32, 1);
	A->shape[0] = ev(&b, n);
	tensor_param(&b, A);
	b.f->launch.grid[0] = ecall(&b, BI_CEILDIV, DT_INT32, ev(&b, n),
				    ei(&b, 32, DT_INT32));
	Var *i = var(&b, "i", DT_INT32, VK_LOCAL);
	s_decl(&b, i, ecall(&b, BI_BLOCK_IDX, DT_INT32, estr(&b, "x"), NULL));
	Stmt *st = s_if(&b, ebin(&b, BIN_LT, ev(&b, i), ev(&b, n), DT_BOOL));
	b.cur = &st->u.cond.then;
	s_store(&b, A, ev(&b, i), ei(&b, 1, DT_FLOAT32));
	const char *meta;
	const char *ptx = compile(&b, "sm_90", &meta);
	CHECK(!ctx_has_errors(c));
	CHECK(contains(ptx, ".param .s32 dyn_n$dim"));
	CHECK(contains(meta, "{\"name\": \"n$dim\", \"kind\": \"dim\", "
			     "\"dtype\": \"int32\", \"var\": \"n\"}"));
	CHECK(contains(meta, "\"grid\": [{\"op\": \"ceildiv\", \"args\": "
			     "[{\"var\": \"n\"}, 32]}, 1, 1]"));
	CHECK(contains(meta, "\"shape\": [\"n\"]"));
	CHECK_ASM(ptx, "sm_90");
	pt_ctx_free(c);
}

/* ---- diagnostics ---- */

static void
expect_code(TestCtx *t, B *b, const char *target, int code)
{
	const char *ptx = compile(b, target, NULL);
	CHECK(has_code(b->c, code));
	CHECK(ptx == NULL);
}

TEST(codegen_err_tile_not_lowered)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "k");
	s_eval(&b, ir_new_expr(c, EX_TILE_APPLY, ET_VOID, DT_NONE, NOSP));
	expect_code(t, &b, "sm_90a", PT_E_CODEGEN_TILE_NOT_LOWERED);
	pt_ctx_free(c);
}

TEST(codegen_err_dtype_and_target)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "k");
	Var *d = var(&b, "d", DT_FLOAT64, VK_LOCAL);
	s_decl(&b, d, ecall(&b, BI_TANH, DT_FLOAT64, ir_float(c, 1, DT_FLOAT64,
							     NOSP), NULL));
	expect_code(t, &b, "sm_90a", PT_E_CODEGEN_DTYPE);
	pt_ctx_free(c);

	c = pt_ctx_new(NULL);
	b_init(&b, c, "k");
	s_eval(&b, ecall(&b, BI_ELECT_SYNC, DT_BOOL, NULL, NULL));
	expect_code(t, &b, "sm_80", PT_E_CODEGEN_TARGET);
	pt_ctx_free(c);

	c = pt_ctx_new(NULL);
	b_init(&b, c, "k");
	b.f->launch.ncluster = 1;
	b.f->launch.cluster[0] = 2;
	expect_code(t, &b, "sm_80", PT_E_CODEGEN_TARGET);
	pt_ctx_free(c);
}

TEST(codegen_err_operands)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "k");
	Buffer *m = buf(&b, "m", BK_ALLOC, MS_SHARED, DT_UINT64, 1);
	s_def(&b, m);
	/* an output operand that is a constant */
	Expr *a[] = {ei(&b, 3, DT_UINT64),
		     eacc(&b, EX_PTR_TO, m, ei(&b, 0, DT_INT32)),
		     ei(&b, 1, DT_UINT32)};
	s_eval(&b, eptx(&b, "mapa.u64", a, 3, NULL));
	expect_code(t, &b, "sm_90a", PT_E_CODEGEN_NOT_LVALUE);
	pt_ctx_free(c);

	c = pt_ctx_new(NULL);
	b_init(&b, c, "k");
	Var *x = var(&b, "x", DT_UINT32, VK_LOCAL);
	s_decl(&b, x, ei(&b, 0, DT_UINT32));
	Var *f = var(&b, "f", DT_FLOAT16, VK_LOCAL);
	s_decl(&b, f, NULL);
	m = buf(&b, "m", BK_ALLOC, MS_SHARED, DT_UINT64, 1);
	s_def(&b, m);
	/* a 16-bit destination for the 32-bit mapa.u32 result */
	Expr *w[] = {ev(&b, f), eacc(&b, EX_PTR_TO, m, ei(&b, 0, DT_INT32)),
		     ei(&b, 1, DT_UINT32)};
	s_eval(&b, eptx(&b, "mapa.shared::cluster.u32", w, 3, NULL));
	expect_code(t, &b, "sm_90a", PT_E_CODEGEN_OPERAND_WIDTH);
	pt_ctx_free(c);

	c = pt_ctx_new(NULL);
	b_init(&b, c, "k");
	Buffer *g = buf(&b, "G", BK_PARAM, MS_GLOBAL, DT_UINT64, 4);
	tensor_param(&b, g);
	/* a global tensor for a .shared address */
	Expr *ad[] = {eacc(&b, EX_PTR_TO, g, ei(&b, 0, DT_INT32)),
		      ei(&b, 1, DT_UINT32)};
	s_eval(&b, eptx(&b, "mbarrier.init.shared.b64", ad, 2, NULL));
	expect_code(t, &b, "sm_90a", PT_E_CODEGEN_ADDRESS);
	pt_ctx_free(c);
}

/* Codegen only prints: an EX_PTX that reaches it without a selection
 * (built by hand, not through ir_ptx_issue or the checker) is an
 * internal error with its code, never selected silently. */
TEST(codegen_unselected_ptx_is_internal_error)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "k");
	Expr *e = ir_new_expr(c, EX_PTX, ET_VOID, DT_NONE, NOSP);
	e->u.ptx.spelling = "fence.proxy.async.shared::cta";
	CHECK(e->u.ptx.sel == NULL);
	s_eval(&b, e);
	expect_code(t, &b, "sm_90a", PT_E_PTX_UNSELECTED);
	pt_ctx_free(c);
	/* the same call through the constructor is selected and printed */
	c = pt_ctx_new(NULL);
	b_init(&b, c, "k");
	s_eval(&b, eptx(&b, "fence.proxy.async.shared::cta", NULL, 0, NULL));
	const char *ptx = compile(&b, "sm_90a", NULL);
	CHECK(!ctx_has_errors(c));
	CHECK(ptx && strstr(ptx, "\tfence.proxy.async.shared::cta;\n"));
	pt_ctx_free(c);
}

/* ir_ptx_issue records the row the tile checker chose and never selects
 * or fits one itself: without a row it is E3010 and the node has no
 * form; with the row the node carries it, unfitted (codegen binds its
 * arguments where it prints them). */
TEST(ptx_issue_without_row_is_internal_error)
{
	pt_ctx *c = pt_ctx_new(NULL);
	ExprVec none = {0};
	Expr *p = ir_ptx_issue(c, NULL, none, NULL, NOSP);
	CHECK(p->u.ptx.sel == NULL);
	CHECK(ir_ptx_form(p) == NULL);
	CHECK(has_code(c, PT_E_PTX_UNSELECTED));
	pt_ctx_free(c);
	c = pt_ctx_new(NULL);
	PtxSel row;
	CHECK(ptx_select("fence.proxy.async.shared::cta", NULL, -1, &row) ==
	      PTXM_OK);
	p = ir_ptx_issue(c, &row.inst, none, NULL, NOSP);
	CHECK(ir_ptx_form(p) == &row.inst);
	CHECK(p->u.ptx.sel == NULL); /* nothing fitted at lowering */
	CHECK(!ctx_has_errors(c));
	pt_ctx_free(c);
}

/* mapa.shared::cluster.u32 d, addr, cta issued with args on row: a
 * kernel with a u32 destination and a shared mbarrier word. */
static const char *
issue_mapa(B *b, pt_ctx *c, const PtxInst *row, int shape)
{
	b_init(b, c, "k");
	Var *x = var(b, "x", DT_UINT32, VK_LOCAL);
	s_decl(b, x, ei(b, 0, DT_UINT32));
	Buffer *m = buf(b, "m", BK_ALLOC, MS_SHARED, DT_UINT64, 1);
	s_def(b, m);
	ExprVec a = {0};
	vec_push(&c->arena, &a, ev(b, x));
	Expr *addr = eacc(b, EX_PTR_TO, m, ei(b, 0, DT_INT32));
	if (shape == 2) { /* a register pair where one address goes */
		addr = ir_new_expr(c, EX_TUPLE, ET_TUPLE, DT_NONE, NOSP);
		vec_push(&c->arena, &addr->u.tuple, ev(b, x));
		vec_push(&c->arena, &addr->u.tuple, ev(b, x));
	}
	vec_push(&c->arena, &a, addr);
	if (shape != 1) /* 1: the cta operand left out */
		vec_push(&c->arena, &a, ei(b, 1, DT_UINT32));
	s_eval(b, ir_ptx_issue(c, row, a, NULL, NOSP));
	return compile(b, "sm_90a", NULL);
}

/* Codegen binds an issued instruction's arguments to its row where it
 * prints them; arguments the row cannot take (a lowering bug: one too
 * few, a tuple for an address) are the internal error E3011, never a
 * print against the wrong operands. */
TEST(codegen_issued_misfit_is_internal_error)
{
	PtxSel row;
	CHECK(ptx_select("mapa.shared::cluster.u32", NULL, -1, &row) ==
	      PTXM_OK);
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	const char *ptx = issue_mapa(&b, c, &row.inst, 0);
	CHECK(!ctx_has_errors(c));
	CHECK(ptx && strstr(ptx, "\tmapa.shared::cluster.u32 %r"));
	CHECK(ptx && strstr(ptx, ", 1;\n"));
	pt_ctx_free(c);
	for (int shape = 1; shape <= 2; shape++) {
		c = pt_ctx_new(NULL);
		ptx = issue_mapa(&b, c, &row.inst, shape);
		CHECK(has_code(c, PT_E_PTX_ISSUE_MISFIT));
		CHECK(ptx == NULL);
		pt_ctx_free(c);
	}
}

/* The same for a builtin: its gated instruction's form is the checker's
 * selection (ir_select_builtin); a node reaching codegen without it is
 * E3010, never selected there. */
TEST(codegen_unselected_builtin_is_internal_error)
{
	static const Builtin ids[] = {BI_ELECT_SYNC, BI_CLUSTER_SYNC};
	for (size_t k = 0; k < countof(ids); k++) {
		pt_ctx *c = pt_ctx_new(NULL);
		B b;
		b_init(&b, c, "k");
		Expr *e = ecall(&b, ids[k], DT_NONE, NULL, NULL);
		s_eval(&b, e);
		const char *ptx = NULL, *mt = NULL;
		PT_ASSERT(target_parse("sm_90a", &c->target));
		codegen_module(c, b.m, &ptx, &mt); /* no checker */
		CHECK(e->u.call.forms == NULL);
		CHECK(has_code(c, PT_E_PTX_UNSELECTED));
		CHECK(ptx == NULL);
		pt_ctx_free(c);
	}
	/* selected, it prints the form's spelling */
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "k");
	Var *p = var(&b, "p", DT_BOOL, VK_LOCAL);
	s_decl(&b, p, ecall(&b, BI_ELECT_SYNC, DT_BOOL, NULL, NULL));
	s_eval(&b, ecall(&b, BI_CLUSTER_SYNC, DT_NONE, NULL, NULL));
	const char *ptx = compile(&b, "sm_90a", NULL);
	CHECK(!ctx_has_errors(c));
	CHECK(contains(ptx, "\telect.sync _|%p"));
	CHECK(contains(ptx, "\tbarrier.cluster.arrive.aligned;\n"
			    "\tbarrier.cluster.wait.aligned;\n"));
	pt_ctx_free(c);
}

/* Every spelling of builtin_forms.def names a form row of its mnemonic,
 * and mbarrier_wait's pick follows the target: try_wait needs sm_90 (PTX
 * ISA, mbarrier.try_wait), so sm_80 waits with test_wait. */
TEST(builtin_forms_name_rows)
{
	int rows = 0;
	for (int id = 0; id < BI_COUNT; id++)
		for (int i = 0; i < 2; i++) {
			const char *sp = builtin_form_spelling((Builtin)id, i);
			if (!sp)
				continue;
			PtxSel s;
			CHECK(ptx_select(sp, NULL, -1, &s) == PTXM_OK);
			const char *mn = ptx_form(s.inst.form)->mnemonic;
			CHECK(!strncmp(sp, mn, strlen(mn)));
			rows++;
		}
	CHECK_INT(rows, 7);
	CHECK_INT(builtin_form_count(BI_CLUSTER_SYNC), 2);
	CHECK_INT(builtin_form_count(BI_MBARRIER_WAIT), 1);
	CHECK_INT(builtin_form_count(BI_THREAD_IDX), 0);
	static const char *const want[][2] = {
		{"sm_80", "mbarrier.test_wait.parity.shared.b64"},
		{"sm_90a", "mbarrier.try_wait.parity.shared::cta.b64"},
		{"sm_100a", "mbarrier.try_wait.parity.shared::cta.b64"},
	};
	for (size_t k = 0; k < countof(want); k++) {
		pt_ctx *c = pt_ctx_new(NULL);
		PT_ASSERT(target_parse(want[k][0], &c->target));
		Expr *e = ir_new_expr(c, EX_BUILTIN, ET_VOID, DT_NONE, NOSP);
		e->u.call.id = BI_MBARRIER_WAIT;
		CHECK(ir_select_builtin(c, e));
		CHECK(e->u.call.forms && e->u.call.forms[0]);
		if (e->u.call.forms && e->u.call.forms[0])
			CHECK_STR(e->u.call.forms[0]->spelling, want[k][1]);
		/* a builtin without gated forms records none */
		e->u.call.id = BI_THREAD_IDX;
		e->u.call.forms = NULL;
		CHECK(ir_select_builtin(c, e) && !e->u.call.forms);
		pt_ctx_free(c);
	}
}

TEST(codegen_err_not_constant)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "k");
	Var *x = var(&b, "x", DT_UINT32, VK_LOCAL);
	s_decl(&b, x, ei(&b, 0, DT_UINT32));
	Expr *a[] = {ev(&b, x)};
	s_eval(&b, eptx(&b, "cp.async.bulk.wait_group", a, 1, NULL));
	expect_code(t, &b, "sm_90a", PT_E_CODEGEN_NOT_CONSTANT);
	pt_ctx_free(c);
}

TEST(codegen_err_unroll_and_smem)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "k");
	Var *i = var(&b, "i", DT_INT32, VK_LOOP);
	Block *o = s_for(&b, i, 0, ei(&b, 100000, DT_INT32), FOR_UNROLL);
	b.cur = o;
	expect_code(t, &b, "sm_90a", PT_E_CODEGEN_UNROLL_LIMIT);
	pt_ctx_free(c);

	c = pt_ctx_new(NULL);
	b_init(&b, c, "k");
	s_def(&b, buf(&b, "big", BK_ALLOC, MS_SHARED, DT_FLOAT32, 16384));
	expect_code(t, &b, "sm_90a", PT_E_CODEGEN_SMEM_LIMIT);
	pt_ctx_free(c);
}

TEST(codegen_err_cast_and_access)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "k");
	Var *x = var(&b, "x", DT_FLOAT32, VK_LOCAL);
	s_decl(&b, x, ei(&b, 0, DT_FLOAT32));
	Var *e = var(&b, "e", DT_E4M3, VK_LOCAL);
	s_decl(&b, e, ecast(&b, EX_CAST, ev(&b, x), DT_E4M3));
	expect_code(t, &b, "sm_90a", PT_E_CODEGEN_CAST);
	pt_ctx_free(c);

	c = pt_ctx_new(NULL);
	b_init(&b, c, "k");
	Buffer *r = buf(&b, "r", BK_ALLOC, MS_LOCAL, DT_INT32, 4);
	s_def(&b, r);
	s_store(&b, r, ei(&b, 9, DT_INT32), ei(&b, 1, DT_INT32));
	expect_code(t, &b, "sm_90a", PT_E_INDEX_BOUNDS);
	pt_ctx_free(c);
}

/* Floor division and modulo of immediates follow Python. */
TEST(codegen_fold_python_semantics)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "k");
	Buffer *A = buf(&b, "A", BK_PARAM, MS_GLOBAL, DT_INT32, 4);
	tensor_param(&b, A);
	s_store(&b, A, ei(&b, 0, DT_INT32),
		ebin(&b, BIN_FLOORDIV, ei(&b, -7, DT_INT32), ei(&b, 2, DT_INT32),
		     DT_INT32));
	s_store(&b, A, ei(&b, 1, DT_INT32),
		ebin(&b, BIN_MOD, ei(&b, -7, DT_INT32), ei(&b, 2, DT_INT32),
		     DT_INT32));
	s_store(&b, A, ei(&b, 2, DT_INT32),
		ebin(&b, BIN_DIV, ei(&b, -7, DT_INT32), ei(&b, 2, DT_INT32),
		     DT_INT32));
	const char *ptx = compile(&b, "sm_90a", NULL);
	/* -7 // 2 = -4, -7 % 2 = 1, -7 / 2 = -3 (truncating) */
	CHECK(contains(ptx, "mov.b32 %r1, -4;"));
	CHECK(contains(ptx, "mov.b32 %r2, 1;"));
	CHECK(contains(ptx, "mov.b32 %r3, -3;"));
	pt_ctx_free(c);
}

/* Raw PTX calls: vector outputs into register-array elements of another
 * class (.b32 takes any 32-bit register), pred=, immediates, an output
 * variable, and a 64-bit operand from a 32-bit value. */
TEST(codegen_raw_calls)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "raw");
	Buffer *s = buf(&b, "s", BK_ALLOC, MS_SHARED, DT_FLOAT32, 64);
	Buffer *r = buf(&b, "r", BK_ALLOC, MS_LOCAL, DT_FLOAT32, 4);
	s_def(&b, s);
	s_def(&b, r);
	Var *p = var(&b, "p", DT_BOOL, VK_LOCAL);
	s_decl(&b, p, ebin(&b, BIN_LT, ecall(&b, BI_LANE_ID, DT_INT32, NULL,
					     NULL), ei(&b, 4, DT_INT32),
			   DT_BOOL));
	Expr *ld[] = {eacc(&b, EX_LOAD, r, ei(&b, 0, DT_INT32)),
		      eacc(&b, EX_LOAD, r, ei(&b, 1, DT_INT32)),
		      eacc(&b, EX_LOAD, r, ei(&b, 2, DT_INT32)),
		      eacc(&b, EX_LOAD, r, ei(&b, 3, DT_INT32)),
		      eacc(&b, EX_PTR_TO, s, ei(&b, 8, DT_INT32))};
	Expr *e = eptx(&b, "ld.shared.v4.b32", ld, 5, ev(&b, p));
	s_eval(&b, e);
	Var *x = var(&b, "x", DT_INT32, VK_LOCAL);
	s_decl(&b, x, NULL);
	Expr *add[] = {ev(&b, x), ecast(&b, EX_REINTERPRET,
					eacc(&b, EX_LOAD, r, ei(&b, 2, DT_INT32)),
					DT_INT32), ei(&b, 7, DT_INT32)};
	s_eval(&b, eptx(&b, "add.s32", add, 3, NULL));
	Expr *st[] = {eacc(&b, EX_PTR_TO, s, ev(&b, x)),
		      eacc(&b, EX_LOAD, r, ei(&b, 3, DT_INT32))};
	s_eval(&b, eptx(&b, "st.shared.f32", st, 2, NULL));
	const char *ptx = compile(&b, "sm_90a", NULL);
	CHECK(!ctx_has_errors(c));
	CHECK(contains(ptx, "@%p1 ld.shared.v4.b32 {%f1, %f2, %f3, %f4}, "
			    "[smem_s+32];"));
	CHECK(contains(ptx, "add.s32 %r2, %r3, 7;"));
	CHECK(contains(ptx, "mov.b32 %r3, %f3;"));
	CHECK(contains(ptx, "st.shared.f32 [%r"));
	CHECK_ASM(ptx, "sm_90a");
	pt_ctx_free(c);
}

/* The metadata is read back by the runtime's own parser (src/rt/meta.c). */
static void
check_meta_parses(TestCtx *t, Ctx *c, const char *meta, size_t nparams)
{
	RtMeta rm;
	RtStatus st = {0};
	int rc = meta_parse(&c->arena, meta, strlen(meta), &rm, &st);
	CHECK_INT(rc, PT_OK);
	if (rc == PT_OK) {
		CHECK_INT(rm.nkernels, 1);
		CHECK_INT(rm.kernels[0].nparams, nparams);
	}
}

/* A T.TensorMap parameter: .align 64 .b8[128], addressed through
 * cvta.param as the tensor operand of a TMA load; metadata for every
 * kind of parameter reads back in the runtime. */
TEST(codegen_tensormap_and_meta)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "tma");
	Var *n = var(&b, "n", DT_INT32, VK_DYN);
	vec_push(&c->arena, &b.m->dyn, n);
	Buffer *A = buf(&b, "A", BK_PARAM, MS_GLOBAL, DT_FLOAT16, 1);
	A->shape[0] = ev(&b, n);
	A->align = 16;
	tensor_param(&b, A);
	Var *tm = var(&b, "tmap", DT_UINT64, VK_PARAM);
	Param p = {0};
	p.kind = PK_TENSORMAP;
	p.var = tm;
	vec_push(&c->arena, &b.f->params, p);
	scalar_param(&b, var(&b, "alpha", DT_FLOAT32, VK_PARAM));
	Buffer *s = buf(&b, "s", BK_ALLOC, MS_SHARED, DT_FLOAT16, 512);
	Buffer *bar = buf(&b, "bar", BK_ALLOC, MS_SHARED, DT_UINT64, 1);
	s->align = 128;
	s_def(&b, s);
	s_def(&b, bar);
	Expr *x = ebin(&b, BIN_MUL, ecall(&b, BI_BLOCK_IDX, DT_INT32,
					  estr(&b, "x"), NULL),
		       ei(&b, 64, DT_INT32), DT_INT32);
	Expr *a[] = {eacc(&b, EX_PTR_TO, s, ei(&b, 0, DT_INT32)), ev(&b, tm),
		     x, ei(&b, 0, DT_INT32),
		     eacc(&b, EX_PTR_TO, bar, ei(&b, 0, DT_INT32))};
	s_eval(&b, eptx(&b, "cp.async.bulk.tensor.2d.shared::cluster.global."
			"tile.mbarrier::complete_tx::bytes", a, 5, NULL));
	const char *meta;
	const char *ptx = compile(&b, "sm_90a", &meta);
	CHECK(!ctx_has_errors(c));
	CHECK(contains(ptx, ".param .align 64 .b8 tma_tmap[128]"));
	CHECK(contains(ptx, "cvta.param.u64 %rd4, %rd3;"));
	CHECK(contains(ptx, "[smem_s], [%rd4, {%r3, %r4}], [smem_bar];"));
	CHECK(contains(meta, "{\"name\": \"tmap\", \"kind\": \"tensormap\"}"));
	CHECK(contains(meta, "\"align\": 16"));
	CHECK_ASM(ptx, "sm_90a");
	check_meta_parses(t, c, meta, 4);
	pt_ctx_free(c);
}

TEST(codegen_meta_parses_in_runtime)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "dyn");
	Var *n = var(&b, "n", DT_INT32, VK_DYN);
	vec_push(&c->arena, &b.m->dyn, n);
	Buffer *A = buf(&b, "A", BK_PARAM, MS_GLOBAL, DT_FLOAT32, 1);
	A->shape[0] = ev(&b, n);
	tensor_param(&b, A);
	b.f->launch.grid[0] = ecall(&b, BI_CEILDIV, DT_INT32, ev(&b, n),
				    ei(&b, 32, DT_INT32));
	b.f->launch.ncluster = 1;
	b.f->launch.cluster[0] = 1;
	s_def(&b, buf(&b, "d", BK_ALLOC, MS_SHARED_DYN, DT_FLOAT32, 100));
	s_store(&b, A, ecall(&b, BI_THREAD_IDX, DT_INT32, estr(&b, "x"), NULL),
		ev(&b, n));
	const char *meta;
	const char *ptx = compile(&b, "sm_90a", &meta);
	CHECK(ptx != NULL);
	check_meta_parses(t, c, meta, 2);
	CHECK(contains(meta, "\"dynamic_smem\": 400"));
	pt_ctx_free(c);
}

static Expr *
eview(B *b, Buffer *x, DType t)
{
	Expr *v = ir_new_expr(b->c, EX_VIEW_DTYPE, ET_TENSOR, t, NOSP);
	v->u.view.base = ebuf(b, x);
	return v;
}

static Expr *
eload_view(B *b, Expr *base, DType t, int64_t i)
{
	Expr *e = ir_new_expr(b->c, EX_LOAD, ET_SCALAR, t, NOSP);
	e->u.access.base = base;
	vec_push(&b->c->arena, &e->u.access.indices, ei(b, i, DT_INT32));
	return e;
}

/* Width-changing dtype views of a register array (the tile engine's
 * `buf.view(dtype)` storage references): a narrower element is a bit
 * field of one register (read: shift + cvt, write: bfi), a wider one a
 * group of registers (mov.b64 {lo, hi}). */
TEST(codegen_register_views)
{
	pt_ctx *c = pt_ctx_new(NULL);
	B b;
	b_init(&b, c, "views");
	Buffer *O = buf(&b, "O", BK_PARAM, MS_GLOBAL, DT_UINT64, 2);
	tensor_param(&b, O);
	Buffer *r = buf(&b, "r", BK_ALLOC, MS_LOCAL, DT_FLOAT32, 2);
	s_def(&b, r);
	/* r.view("uint16")[3] = 7: the high half of r[1] */
	Stmt *st = ir_new_stmt(c, ST_STORE, NOSP);
	st->u.store.base = eview(&b, r, DT_UINT16);
	vec_push(&c->arena, &st->u.store.indices, ei(&b, 3, DT_INT32));
	st->u.store.value = ei(&b, 7, DT_UINT16);
	add(&b, st);
	/* r.view("uint64")[0] = 5: both registers */
	st = ir_new_stmt(c, ST_STORE, NOSP);
	st->u.store.base = eview(&b, r, DT_UINT64);
	vec_push(&c->arena, &st->u.store.indices, ei(&b, 0, DT_INT32));
	st->u.store.value = ei(&b, 5, DT_UINT64);
	add(&b, st);
	s_store(&b, O, ei(&b, 0, DT_INT32),
		eload_view(&b, eview(&b, r, DT_UINT64), DT_UINT64, 0));
	s_store(&b, O, ei(&b, 1, DT_INT32),
		ecast(&b, EX_CAST, eload_view(&b, eview(&b, r, DT_UINT16),
					      DT_UINT16, 1), DT_UINT64));
	const char *ptx = compile(&b, "sm_90a", NULL);
	CHECK(!ctx_has_errors(c));
	CHECK(contains(ptx, "bfi.b32 %r1, %r2, %r1, 16, 16;"));
	CHECK(contains(ptx, "mov.b32 %f2, %r1;"));
	CHECK(contains(ptx, "mov.b64 {%f1, %f2}, %rd"));
	CHECK(contains(ptx, "mov.b64 %rd"));
	CHECK(contains(ptx, ", {%f1, %f2};"));
	CHECK(contains(ptx, "shr.b32 %r"));
	CHECK_ASM(ptx, "sm_90a");
	pt_ctx_free(c);
}
