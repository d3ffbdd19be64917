/*
 * Unit tests of the register families (mov, add/sub/mul, div/rcp/sqrt,
 * min/max, fma, cvt, ex2/lg2, abs/neg) and ewise on hand-built IR: the
 * selected form, the issue count (product of the repeat extents), the
 * lowered PTX operand order, and one negative test per legality rule.
 */
#include "test.h"
#include "tile_build.h"

static Buffer *
regs(TB *b, const char *name, DType t, int64_t n, int64_t k)
{
	int64_t s[] = {n, k};
	return tb_buf(b, name, MS_LOCAL, t, s, 2, NULL, 0);
}

static Expr *
f32(TB *b, double v)
{
	return ir_float(b->c, v, DT_FLOAT32, TB_SP);
}

/* Lowers and returns the EX_PTX of statement i. */
static Expr *
lowered(TB *b, size_t i)
{
	if (b->prog && b->prog->calls.n)
		tile_lower_module(b->c, b->m, b->prog);
	return i < b->f->body.n ? b->f->body.v[i]->u.value : NULL;
}

static int64_t
index_of(const Expr *load, int d)
{
	int64_t k = -1;
	if (load->kind == EX_LOAD && (size_t)d < load->u.access.indices.n)
		ir_const_int(load->u.access.indices.v[d], &k);
	return k;
}

TEST(tile_add_f32_scalar_broadcast)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	Buffer *D = regs(&b, "D", DT_FLOAT32, 8, 1);
	Buffer *A = regs(&b, "A", DT_FLOAT32, 8, 1);
	Expr *ops[] = {tb_ref(&b, D), tb_ref(&b, A), f32(&b, 2.0)};
	tb_apply(&b, "add.rn.f32", ES_THREAD, 3, ops);
	CHECK_INT(tb_check(&b), 0);
	CHECK_INT(b.prog->calls.v[0]->count, 8);
	Expr *p = lowered(&b, 5);
	CHECK_INT(b.f->body.n, 8);
	CHECK_STR(p->u.ptx.spelling, "add.rn.f32");
	CHECK_INT(p->u.ptx.args.n, 3);
	CHECK_INT(index_of(p->u.ptx.args.v[0], 0), 5);
	CHECK(p->u.ptx.args.v[0]->u.access.base->u.buf == D);
	CHECK(p->u.ptx.args.v[2]->kind == EX_FLOAT);
	tb_free(&b);
}

TEST(tile_sub_div_keep_scalar_left)
{
	static const char *const ops_[] = {"sub.f32", "div.rn.f32"};
	for (int k = 0; k < 2; k++) {
		TB b;
		tb_init(&b, 32, 0, 0);
		Buffer *D = regs(&b, "D", DT_FLOAT32, 4, 1);
		Buffer *A = regs(&b, "A", DT_FLOAT32, 4, 1);
		Expr *ops[] = {tb_ref(&b, D), f32(&b, 1.0), tb_ref(&b, A)};
		tb_apply(&b, ops_[k], ES_THREAD, 3, ops);
		CHECK_INT(tb_check(&b), 0);
		Expr *p = lowered(&b, 0);
		CHECK(p->u.ptx.args.v[1]->kind == EX_FLOAT);
		CHECK(p->u.ptx.args.v[2]->kind == EX_LOAD);
		tb_free(&b);
	}
}

TEST(tile_unary_families_counts)
{
	static const char *const ops_[] = {
		"rcp.approx.ftz.f32", "sqrt.rn.f32", "ex2.approx.ftz.f32",
		"lg2.approx.ftz.f32", "abs.f32", "neg.f32",
	};
	for (size_t k = 0; k < countof(ops_); k++) {
		TB b;
		tb_init(&b, 32, 0, 0);
		int64_t s[] = {2, 3, 1};
		Buffer *D = tb_buf(&b, "D", MS_LOCAL, DT_FLOAT32, s, 3, NULL, 0);
		Buffer *A = tb_buf(&b, "A", MS_LOCAL, DT_FLOAT32, s, 3, NULL, 0);
		Expr *ops[] = {tb_ref(&b, D), tb_ref(&b, A)};
		tb_apply(&b, ops_[k], ES_THREAD, 2, ops);
		CHECK_INT(tb_check(&b), 0);
		CHECK_INT(b.prog->calls.v[0]->count, 6);
		Expr *p = lowered(&b, 4);
		CHECK_INT(b.f->body.n, 6);
		CHECK_STR(p->u.ptx.spelling, ops_[k]);
		/* repeat 4 = (1, 1) */
		CHECK_INT(index_of(p->u.ptx.args.v[1], 0), 1);
		CHECK_INT(index_of(p->u.ptx.args.v[1], 1), 1);
		tb_free(&b);
	}
}

TEST(tile_packed_carriers)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	Buffer *D = regs(&b, "D", DT_UINT32, 4, 1);
	Buffer *A = regs(&b, "A", DT_UINT32, 4, 1);
	Expr *ops[] = {tb_ref(&b, D), tb_ref(&b, A), tb_ref(&b, A)};
	tb_apply(&b, "mul.rn.bf16x2", ES_THREAD, 3, ops);
	CHECK_INT(tb_check(&b), 0);
	tb_free(&b);

	/* f16x2 needs a raw-bits carrier, not float16 */
	tb_init(&b, 32, 0, 0);
	Buffer *H = regs(&b, "H", DT_FLOAT16, 4, 1);
	D = regs(&b, "D", DT_UINT32, 4, 1);
	Expr *ops2[] = {tb_ref(&b, D), tb_ref(&b, H), tb_ref(&b, D)};
	tb_apply(&b, "add.rn.f16x2", ES_THREAD, 3, ops2);
	CHECK_INT(tb_check(&b), PT_E_TILE_DTYPE);
	tb_free(&b);

	/* f32x2: uint64 carriers, sm_100 only */
	tb_init(&b, 32, 0, 0);
	Buffer *W = regs(&b, "W", DT_UINT64, 4, 1);
	Expr *ops3[] = {tb_ref(&b, W), tb_ref(&b, W), tb_ref(&b, W),
			tb_ref(&b, W)};
	tb_apply(&b, "fma.rn.f32x2", ES_THREAD, 4, ops3);
	CHECK_INT(tb_check(&b), PT_E_PTX_TARGET_TOO_OLD);
	tb_free(&b);
	tb_init(&b, 32, 0, 0);
	b.c->target = TGT_SM_100A;
	Buffer *W2 = regs(&b, "W", DT_UINT64, 4, 1);
	Buffer *V2 = regs(&b, "V", DT_UINT64, 4, 1);
	Expr *ops4[] = {tb_ref(&b, W2), tb_ref(&b, V2), tb_ref(&b, V2),
			tb_ref(&b, V2)};
	tb_apply(&b, "fma.rn.f32x2", ES_THREAD, 4, ops4);
	CHECK_INT(tb_check(&b), 0);
	CHECK_INT(b.prog->calls.v[0]->count, 4);
	tb_free(&b);

	/* an integer tensor for a float instruction */
	tb_init(&b, 32, 0, 0);
	Buffer *I = regs(&b, "I", DT_INT32, 4, 1);
	D = regs(&b, "D", DT_FLOAT32, 4, 1);
	Expr *ops5[] = {tb_ref(&b, D), tb_ref(&b, I), tb_ref(&b, D)};
	tb_apply(&b, "add.f32", ES_THREAD, 3, ops5);
	CHECK_INT(tb_check(&b), PT_E_TILE_DTYPE);
	tb_free(&b);
}

TEST(tile_mul_wide_destination_width)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	Buffer *D = regs(&b, "D", DT_INT64, 4, 1);
	Buffer *A = regs(&b, "A", DT_INT32, 4, 1);
	Expr *ops[] = {tb_ref(&b, D), tb_ref(&b, A), tb_ref(&b, A)};
	tb_apply(&b, "mul.wide.s32", ES_THREAD, 3, ops);
	CHECK_INT(tb_check(&b), 0);
	tb_free(&b);
	tb_init(&b, 32, 0, 0);
	D = regs(&b, "D", DT_INT32, 4, 1);
	A = regs(&b, "A", DT_INT32, 4, 1);
	Expr *ops2[] = {tb_ref(&b, D), tb_ref(&b, A), tb_ref(&b, A)};
	tb_apply(&b, "mul.wide.s32", ES_THREAD, 3, ops2);
	CHECK_INT(tb_check(&b), PT_E_REG_WIDTH);
	CHECK(strstr(tb_msg(&b), "s64") != NULL);
	tb_free(&b);
}

TEST(tile_min_max_two_and_three_inputs)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	Buffer *D = regs(&b, "D", DT_FLOAT32, 4, 1);
	Expr *ops[] = {tb_ref(&b, D), tb_ref(&b, D), f32(&b, 0.0)};
	tb_apply(&b, "max.f32", ES_THREAD, 3, ops);
	CHECK_INT(tb_check(&b), 0);
	CHECK_INT(b.prog->calls.v[0]->inst.nops, 3);
	tb_free(&b);
	/* the three-input form is an sm_100 form */
	tb_init(&b, 32, 0, 0);
	D = regs(&b, "D", DT_FLOAT32, 4, 1);
	Buffer *A = regs(&b, "A", DT_FLOAT32, 4, 1);
	Expr *ops2[] = {tb_ref(&b, D), tb_ref(&b, A), tb_ref(&b, A),
			f32(&b, 0.0)};
	tb_apply(&b, "max.f32", ES_THREAD, 4, ops2);
	CHECK_INT(tb_check(&b), PT_E_PTX_TARGET_TOO_OLD);
	tb_free(&b);
	tb_init(&b, 32, 0, 0);
	b.c->target = TGT_SM_100A;
	D = regs(&b, "D", DT_FLOAT32, 4, 1);
	A = regs(&b, "A", DT_FLOAT32, 4, 1);
	Expr *ops3[] = {tb_ref(&b, D), tb_ref(&b, A), tb_ref(&b, A),
			f32(&b, 0.0)};
	tb_apply(&b, "max.f32", ES_THREAD, 4, ops3);
	CHECK_INT(tb_check(&b), 0);
	CHECK_INT(b.prog->calls.v[0]->inst.nops, 4);
	Expr *p = lowered(&b, 0);
	CHECK_INT(p->u.ptx.args.n, 4);
	tb_free(&b);
	/* five operands fit no form */
	tb_init(&b, 32, 0, 0);
	D = regs(&b, "D", DT_FLOAT32, 4, 1);
	Expr *ops4[] = {tb_ref(&b, D), tb_ref(&b, D), tb_ref(&b, D),
			tb_ref(&b, D), tb_ref(&b, D)};
	tb_apply(&b, "min.f32", ES_THREAD, 5, ops4);
	CHECK_INT(tb_check(&b), PT_E_TILE_OPERAND_COUNT);
	tb_free(&b);
}

TEST(tile_cvt_forms)
{
	TB b;
	/* packed cvt: b32 destination, high source first */
	tb_init(&b, 32, 0, 0);
	Buffer *D = regs(&b, "D", DT_UINT32, 4, 1);
	Buffer *Hi = regs(&b, "Hi", DT_FLOAT32, 4, 1);
	Buffer *Lo = regs(&b, "Lo", DT_FLOAT32, 4, 1);
	Expr *ops[] = {tb_ref(&b, D), tb_ref(&b, Hi), tb_ref(&b, Lo)};
	tb_apply(&b, "cvt.rn.f16x2.f32", ES_THREAD, 3, ops);
	CHECK_INT(tb_check(&b), 0);
	Expr *p = lowered(&b, 0);
	CHECK(p->u.ptx.args.v[1]->u.access.base->u.buf == Hi);
	CHECK(p->u.ptx.args.v[2]->u.access.base->u.buf == Lo);
	tb_free(&b);
	/* missing the low source */
	tb_init(&b, 32, 0, 0);
	D = regs(&b, "D", DT_UINT32, 4, 1);
	Hi = regs(&b, "Hi", DT_FLOAT32, 4, 1);
	Expr *ops2[] = {tb_ref(&b, D), tb_ref(&b, Hi)};
	tb_apply(&b, "cvt.rn.f16x2.f32", ES_THREAD, 2, ops2);
	CHECK_INT(tb_check(&b), PT_E_TILE_OPERAND_COUNT);
	CHECK(strstr(tb_msg(&b), "found 2") != NULL);
	tb_free(&b);
	/* half values in uint16 containers */
	tb_init(&b, 32, 0, 0);
	Buffer *F = regs(&b, "F", DT_FLOAT32, 4, 1);
	Buffer *H = regs(&b, "H", DT_UINT16, 4, 1);
	Expr *ops3[] = {tb_ref(&b, F), tb_ref(&b, H)};
	tb_apply(&b, "cvt.f32.f16", ES_THREAD, 2, ops3);
	Expr *ops4[] = {tb_ref(&b, H), tb_ref(&b, F)};
	tb_apply(&b, "cvt.rn.f16.f32", ES_THREAD, 2, ops4);
	CHECK_INT(tb_check(&b), 0);
	tb_free(&b);
}

TEST(tile_mov_forms)
{
	TB b;
	/* scalar broadcast fill */
	tb_init(&b, 32, 0, 0);
	Buffer *D = regs(&b, "D", DT_FLOAT32, 8, 1);
	Expr *ops[] = {tb_ref(&b, D), f32(&b, 0.5)};
	tb_apply(&b, "mov.f32", ES_THREAD, 2, ops);
	CHECK_INT(tb_check(&b), 0);
	CHECK_INT(b.prog->calls.v[0]->count, 8);
	tb_free(&b);
	/* pack two b32 words into a b64 and unpack them again */
	tb_init(&b, 32, 0, 0);
	Buffer *W = regs(&b, "W", DT_UINT64, 4, 1);
	Buffer *P = regs(&b, "P", DT_UINT32, 4, 2);
	Expr *ops2[] = {tb_ref(&b, W), tb_ref(&b, P)};
	tb_apply(&b, "mov.b64", ES_THREAD, 2, ops2);
	Expr *ops3[] = {tb_ref(&b, P), tb_ref(&b, W)};
	tb_apply(&b, "mov.b64", ES_THREAD, 2, ops3);
	CHECK_INT(tb_check(&b), 0);
	TileCall *pack = b.prog->calls.v[0], *unpack = b.prog->calls.v[1];
	CHECK(pack->inst.ops[1].kind == PTXOP_VEC);
	CHECK(unpack->inst.ops[0].kind == PTXOP_VEC);
	CHECK_INT(pack->count, 4);
	Expr *p = lowered(&b, 2);
	CHECK_INT(p->u.ptx.args.n, 2);
	Expr *grp = p->u.ptx.args.v[1];
	CHECK(grp->kind == EX_TUPLE);
	CHECK_INT(index_of(grp->u.tuple.v[1], 1), 1); /* P[2, 1] */
	CHECK_INT(index_of(grp->u.tuple.v[1], 0), 2);
	tb_free(&b);
	/* a scalar destination */
	tb_init(&b, 32, 0, 0);
	Var *x = tb_var(&b, "x", DT_FLOAT32, VK_LOCAL);
	Buffer *S = regs(&b, "S", DT_FLOAT32, 4, 1);
	Expr *ops4[] = {tb_vref(&b, x), tb_ref(&b, S)};
	tb_apply(&b, "mov.f32", ES_THREAD, 2, ops4);
	CHECK_INT(tb_check(&b), PT_E_REG_SCALAR_DST);
	tb_free(&b);
}

TEST(tile_register_shape_rules)
{
	TB b;
	/* repeat shapes differ */
	tb_init(&b, 32, 0, 0);
	Buffer *D = regs(&b, "D", DT_FLOAT32, 4, 1);
	Buffer *A = regs(&b, "A", DT_FLOAT32, 2, 1);
	Expr *ops[] = {tb_ref(&b, D), tb_ref(&b, A), tb_ref(&b, D)};
	tb_apply(&b, "add.f32", ES_THREAD, 3, ops);
	CHECK_INT(tb_check(&b), PT_E_TILE_REPEAT_SHAPE);
	CHECK(strstr(tb_msg(&b), "(2,)") != NULL);
	tb_free(&b);
	/* atom must be the one register of a scalar form */
	tb_init(&b, 32, 0, 0);
	int64_t s8[] = {8};
	D = tb_buf(&b, "D", MS_LOCAL, DT_FLOAT32, s8, 1, NULL, 0);
	Expr *ops2[] = {tb_ref(&b, D), f32(&b, 1.0), f32(&b, 1.0)};
	tb_apply(&b, "add.f32", ES_THREAD, 3, ops2);
	CHECK_INT(tb_check(&b), PT_E_TILE_ATOM_SHAPE);
	tb_free(&b);
	/* overlapping destination slots: m = i + j */
	tb_init(&b, 32, 0, 0);
	int64_t s3[] = {2, 2, 1};
	D = tb_buf(&b, "D", MS_LOCAL, DT_FLOAT32, s3, 3,
		   tb_layout(&b, (LayoutIter[]){{2, 1, AX_M}, {2, 1, AX_M},
						{1, 1, AX_M}}, 3), 0);
	Expr *ops3[] = {tb_ref(&b, D), f32(&b, 1.0), f32(&b, 1.0)};
	tb_apply(&b, "add.f32", ES_THREAD, 3, ops3);
	CHECK_INT(tb_check(&b), PT_E_TILE_OVERLAP);
	tb_free(&b);
	/* a zero-stride view is a fine input, but not a destination */
	tb_init(&b, 32, 0, 0);
	D = regs(&b, "D", DT_FLOAT32, 4, 1);
	Buffer *One = regs(&b, "One", DT_FLOAT32, 1, 1);
	Expr *bc = tb_reshape(&b, tb_ref(&b, One), (int64_t[]){4, 1}, 2,
			      tb_layout(&b, (LayoutIter[]){{4, 0, AX_M},
							   {1, 1, AX_M}}, 2));
	Expr *ops4[] = {tb_ref(&b, D), bc, tb_ref(&b, D)};
	tb_apply(&b, "add.f32", ES_THREAD, 3, ops4);
	CHECK_INT(tb_check(&b), 0);
	Expr *p = lowered(&b, 3);
	/* repeat 3 reads One's only register through the flat storage */
	CHECK(p->u.ptx.args.v[1]->kind == EX_LOAD);
	tb_free(&b);
	tb_init(&b, 32, 0, 0);
	One = regs(&b, "One", DT_FLOAT32, 1, 1);
	bc = tb_reshape(&b, tb_ref(&b, One), (int64_t[]){4, 1}, 2,
			tb_layout(&b, (LayoutIter[]){{4, 0, AX_M},
						     {1, 1, AX_M}}, 2));
	Expr *ops5[] = {bc, f32(&b, 1.0), f32(&b, 1.0)};
	tb_apply(&b, "add.f32", ES_THREAD, 3, ops5);
	CHECK_INT(tb_check(&b), PT_E_TILE_BROADCAST_DST);
	tb_free(&b);
	/* register operands must be local */
	tb_init(&b, 32, 0, 0);
	int64_t s41[] = {4, 1};
	Buffer *Sh = tb_buf(&b, "Sh", MS_SHARED, DT_FLOAT32, s41, 2, NULL, 16);
	Expr *ops6[] = {tb_ref(&b, Sh), f32(&b, 1.0), f32(&b, 1.0)};
	tb_apply(&b, "add.f32", ES_THREAD, 3, ops6);
	CHECK_INT(tb_check(&b), PT_E_TILE_NOT_REGISTER);
	tb_free(&b);
	/* a scalar where ld needs memory */
	tb_init(&b, 32, 0, 0);
	D = regs(&b, "D", DT_UINT32, 4, 1);
	Var *q = tb_var(&b, "q", DT_UINT32, VK_LOCAL);
	Expr *ops7[] = {tb_ref(&b, D), tb_vref(&b, q)};
	tb_apply(&b, "ld.global.b32", ES_THREAD, 2, ops7);
	CHECK_INT(tb_check(&b), PT_E_TILE_SCALAR_OPERAND);
	tb_free(&b);
}

/* ---- ewise ---- */

/* silu(x: float32) -> float32: return x * T.sigmoid(x) */
static Func *
silu(TB *b, DType pt, DType rt)
{
	Func *f = NEW(&b->c->arena, Func);
	f->name = "silu";
	f->ret = rt;
	Var *x = tb_var(b, "x", pt, VK_PARAM);
	Param p = {PK_SCALAR, x, NULL, TB_SP};
	vec_push(&b->c->arena, &f->params, p);
	Expr *sg = ir_new_expr(b->c, EX_BUILTIN, ET_SCALAR, pt, TB_SP);
	sg->u.call.id = BI_SIGMOID;
	vec_push(&b->c->arena, &sg->u.call.args, tb_vref(b, x));
	Stmt *r = ir_new_stmt(b->c, ST_RETURN, TB_SP);
	r->u.value = tb_bin(b, BIN_MUL, tb_vref(b, x), sg);
	vec_push(&b->c->arena, &f->body, r);
	vec_push(&b->c->arena, &b->m->funcs, f);
	return f;
}

static void
tb_ewise(TB *b, Func *fn, int n, Expr **ops)
{
	Expr *e = ir_new_expr(b->c, EX_TILE_EWISE, ET_VOID, DT_NONE, TB_SP);
	e->u.ewise.fn = fn;
	e->u.ewise.dst = ops[0];
	e->u.ewise.scope = ES_THREAD;
	for (int i = 1; i < n; i++)
		vec_push(&b->c->arena, &e->u.ewise.inputs, ops[i]);
	Stmt *s = ir_new_stmt(b->c, ST_EVAL, TB_SP);
	s->u.value = e;
	tb_stmt(b, s);
}

TEST(tile_ewise_silu)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	Func *fn = silu(&b, DT_FLOAT32, DT_FLOAT32);
	int64_t s[] = {2, 4};
	Buffer *D = tb_buf(&b, "D", MS_LOCAL, DT_FLOAT32, s, 2, NULL, 0);
	Buffer *X = tb_buf(&b, "X", MS_LOCAL, DT_FLOAT32, s, 2, NULL, 0);
	Expr *ops[] = {tb_ref(&b, D), tb_ref(&b, X)};
	tb_ewise(&b, fn, 2, ops);
	CHECK_INT(tb_check(&b), 0);
	CHECK_INT(b.prog->calls.v[0]->count, 8);
	tile_lower_module(b.c, b.m, b.prog);
	/* per element: a result variable, its assignment, the store */
	CHECK_INT(b.f->body.n, 24);
	Stmt *st = b.f->body.v[3 * 5 + 2];
	CHECK(st->kind == ST_STORE);
	CHECK_INT(st->u.store.indices.n, 2);
	int64_t i0 = -1, i1 = -1;
	ir_const_int(st->u.store.indices.v[0], &i0);
	ir_const_int(st->u.store.indices.v[1], &i1);
	CHECK_INT(i0, 1);
	CHECK_INT(i1, 1);
	Stmt *as = b.f->body.v[3 * 5 + 1];
	CHECK(as->kind == ST_ASSIGN);
	/* x * sigmoid(x) with x replaced by X[1, 1] */
	CHECK(as->u.var.value->u.op.a->kind == EX_LOAD);
	tb_free(&b);
}

TEST(tile_ewise_if_else_returns)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	/* relu(x) = if x > 0: return x  else: return 0 */
	Func *f = NEW(&b.c->arena, Func);
	f->name = "relu";
	f->ret = DT_FLOAT32;
	Var *x = tb_var(&b, "x", DT_FLOAT32, VK_PARAM);
	Param p = {PK_SCALAR, x, NULL, TB_SP};
	vec_push(&b.c->arena, &f->params, p);
	Stmt *iff = ir_new_stmt(b.c, ST_IF, TB_SP);
	iff->u.cond.cond = tb_bin(&b, BIN_GT, tb_vref(&b, x), f32(&b, 0.0));
	Stmt *r1 = ir_new_stmt(b.c, ST_RETURN, TB_SP);
	r1->u.value = tb_vref(&b, x);
	vec_push(&b.c->arena, &iff->u.cond.then, r1);
	vec_push(&b.c->arena, &f->body, iff);
	Stmt *r2 = ir_new_stmt(b.c, ST_RETURN, TB_SP);
	r2->u.value = f32(&b, 0.0);
	vec_push(&b.c->arena, &f->body, r2);
	int64_t s[] = {4};
	Buffer *D = tb_buf(&b, "D", MS_LOCAL, DT_FLOAT32, s, 1, NULL, 0);
	Expr *ops[] = {tb_ref(&b, D), tb_ref(&b, D)};
	tb_ewise(&b, f, 2, ops);
	CHECK_INT(tb_check(&b), 0);
	tile_lower_module(b.c, b.m, b.prog);
	CHECK_INT(b.f->body.n, 12);
	Stmt *c = b.f->body.v[1];
	CHECK(c->kind == ST_IF);
	CHECK_INT(c->u.cond.then.n, 1);
	CHECK_INT(c->u.cond.els.n, 1);
	tb_free(&b);
}

TEST(tile_ewise_errors)
{
	TB b;
	int64_t s[] = {4};
	/* parameter dtype differs from the input */
	tb_init(&b, 32, 0, 0);
	Func *fn = silu(&b, DT_FLOAT32, DT_FLOAT32);
	Buffer *D = tb_buf(&b, "D", MS_LOCAL, DT_FLOAT32, s, 1, NULL, 0);
	Buffer *H = tb_buf(&b, "H", MS_LOCAL, DT_FLOAT16, s, 1, NULL, 0);
	Expr *ops[] = {tb_ref(&b, D), tb_ref(&b, H)};
	tb_ewise(&b, fn, 2, ops);
	CHECK_INT(tb_check(&b), PT_E_EWISE_SIGNATURE);
	CHECK(strstr(tb_msg(&b), "float16") != NULL);
	tb_free(&b);
	/* result dtype differs from the destination */
	tb_init(&b, 32, 0, 0);
	fn = silu(&b, DT_FLOAT32, DT_FLOAT32);
	H = tb_buf(&b, "H", MS_LOCAL, DT_FLOAT16, s, 1, NULL, 0);
	D = tb_buf(&b, "D", MS_LOCAL, DT_FLOAT32, s, 1, NULL, 0);
	Expr *ops2[] = {tb_ref(&b, H), tb_ref(&b, D)};
	tb_ewise(&b, fn, 2, ops2);
	CHECK_INT(tb_check(&b), PT_E_EWISE_SIGNATURE);
	tb_free(&b);
	/* wrong number of inputs */
	tb_init(&b, 32, 0, 0);
	fn = silu(&b, DT_FLOAT32, DT_FLOAT32);
	D = tb_buf(&b, "D", MS_LOCAL, DT_FLOAT32, s, 1, NULL, 0);
	Expr *ops3[] = {tb_ref(&b, D), tb_ref(&b, D), tb_ref(&b, D)};
	tb_ewise(&b, fn, 3, ops3);
	CHECK_INT(tb_check(&b), PT_E_EWISE_ARITY);
	tb_free(&b);
	/* a path without a return */
	tb_init(&b, 32, 0, 0);
	fn = silu(&b, DT_FLOAT32, DT_FLOAT32);
	fn->body.n = 0;
	D = tb_buf(&b, "D", MS_LOCAL, DT_FLOAT32, s, 1, NULL, 0);
	Expr *ops4[] = {tb_ref(&b, D), tb_ref(&b, D)};
	tb_ewise(&b, fn, 2, ops4);
	CHECK_INT(tb_check(&b), PT_E_EWISE_BODY);
	tb_free(&b);
	/* repeat shapes differ */
	tb_init(&b, 32, 0, 0);
	fn = silu(&b, DT_FLOAT32, DT_FLOAT32);
	D = tb_buf(&b, "D", MS_LOCAL, DT_FLOAT32, s, 1, NULL, 0);
	int64_t s2[] = {2};
	Buffer *X = tb_buf(&b, "X", MS_LOCAL, DT_FLOAT32, s2, 1, NULL, 0);
	Expr *ops5[] = {tb_ref(&b, D), tb_ref(&b, X)};
	tb_ewise(&b, fn, 2, ops5);
	CHECK_INT(tb_check(&b), PT_E_TILE_REPEAT_SHAPE);
	tb_free(&b);
	/* a scalar input broadcasts */
	tb_init(&b, 32, 0, 0);
	fn = silu(&b, DT_FLOAT32, DT_FLOAT32);
	D = tb_buf(&b, "D", MS_LOCAL, DT_FLOAT32, s, 1, NULL, 0);
	Expr *ops6[] = {tb_ref(&b, D), f32(&b, 3.0)};
	tb_ewise(&b, fn, 2, ops6);
	CHECK_INT(tb_check(&b), 0);
	CHECK_INT(b.prog->calls.v[0]->count, 4);
	tb_free(&b);
}
