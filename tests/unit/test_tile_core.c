/*
 * Unit tests of the tile contract core and the ld/st family on hand-built
 * IR: the reference's 64-thread ld.global.v4 example (group (2, 32),
 * repeat (3,), atom (4,)), permuted register slots, lowering to one
 * EX_PTX per repeat with the documented operand order, and one negative
 * test per common/ld-st legality rule with its code.  Expected values are
 * hand computed from the reference's coordinate rules.
 */
#include <string.h>

#include "test.h"
#include "tile_build.h"

/* R: (2,32,3,4) float32 registers over 64 threads, m = 4*r + a (or
 * permuted: m = r + 3*a); A: global (2,32,3,4) float32, align 16. */
static Buffer *
regs64(TB *b, bool permuted)
{
	int64_t shape[] = {2, 32, 3, 4};
	LayoutIter it[] = {{2, 1, AX_WARPID}, {32, 1, AX_LANEID},
			   {3, permuted ? 1 : 4, AX_M},
			   {4, permuted ? 3 : 1, AX_M}};
	return tb_buf(b, "R", MS_LOCAL, DT_FLOAT32, shape, 4,
		      tb_layout(b, it, 4), 0);
}

static Buffer *
glob64(TB *b, int64_t align)
{
	int64_t shape[] = {2, 32, 3, 4};
	return tb_buf(b, "A", MS_GLOBAL, DT_FLOAT32, shape, 4, NULL, align);
}

TEST(tile_ld_global_v4_cta_example)
{
	TB b;
	tb_init(&b, 64, 0, 0);
	Buffer *R = regs64(&b, false), *A = glob64(&b, 16);
	Expr *ops[] = {tb_ref(&b, R), tb_ref(&b, A)};
	tb_apply(&b, "ld.global.v4.b32", ES_CTA, 2, ops);
	CHECK_INT(tb_check(&b), 0);
	CHECK_INT(b.prog->calls.n, 1);
	TileCall *tc = b.prog->calls.v[0];
	CHECK(tc->ok);
	CHECK_INT(tc->ngroup, 2);
	CHECK_INT(tc->group[0].ext, 2);
	CHECK_INT(tc->group[1].ext, 32);
	CHECK_INT(tc->nrepeat, 1);
	CHECK_INT(tc->repeat[0], 3);
	CHECK_INT(tc->count, 3);
	CHECK_INT(tc->ops[0].natom, 4);
	for (int i = 0; i < 12; i++)
		CHECK_INT(tc->ops[0].slot[i], i);
	/* atom start m = 384*w + 12*l + 4*r: constant part 4*r */
	CHECK_INT(tc->ops[1].addr[2].c0, 8);
	const char *ex = explain_module(b.c, b.m, b.prog);
	CHECK(strstr(ex, "ld family") != NULL);
	CHECK(strstr(ex, "group (2, 32) repeat (3,) atom (4,)") != NULL);
	CHECK(strstr(ex, "expands to 3 instructions") != NULL);
	tile_lower_module(b.c, b.m, b.prog);
	CHECK_INT(b.f->body.n, 3);
	for (size_t i = 0; i < b.f->body.n; i++) {
		Expr *p = b.f->body.v[i]->u.value;
		CHECK(p->kind == EX_PTX);
		CHECK_STR(p->u.ptx.spelling, "ld.global.v4.b32");
		CHECK_INT(p->u.ptx.args.n, 2);
		/* the register group is one tuple; word 3 of repeat i is
		 * R[0, 0, i, 3] */
		Expr *g = p->u.ptx.args.v[0];
		CHECK(g->kind == EX_TUPLE);
		CHECK_INT(g->u.tuple.n, 4);
		Expr *w3 = g->u.tuple.v[3];
		CHECK(w3->kind == EX_LOAD);
		CHECK_INT(w3->u.access.indices.n, 4);
		int64_t k = -1;
		ir_const_int(w3->u.access.indices.v[2], &k);
		CHECK_INT(k, (int64_t)i);
		ir_const_int(w3->u.access.indices.v[3], &k);
		CHECK_INT(k, 3);
		/* the address is A.ptr_to([warp_id(), lane_id(), 0, 0]) plus
		 * 16*i bytes (4 float32 words per repeat), the [reg+imm]
		 * form sharing repeat 0's pointer */
		Expr *ad = p->u.ptx.args.v[1];
		if (i > 0) {
			CHECK(ad->kind == EX_BINARY &&
			      ad->u.op.op == BIN_ADD);
			CHECK(ir_const_int(ad->u.op.b, &k));
			CHECK_INT(k, 16 * (int64_t)i);
			ad = ad->u.op.a;
		}
		CHECK(ad->kind == EX_PTR_TO);
		CHECK(ir_const_int(ad->u.access.indices.v[2], &k));
		CHECK_INT(k, 0);
		CHECK(ad->u.access.indices.v[0]->kind == EX_BUILTIN &&
		      ad->u.access.indices.v[0]->u.call.id == BI_WARP_ID);
		CHECK(ad->u.access.indices.v[1]->u.call.id == BI_LANE_ID);
	}
	tb_free(&b);
}

TEST(tile_st_shared_v4_permuted_slots)
{
	TB b;
	tb_init(&b, 64, 0, 0);
	Buffer *R = regs64(&b, true);
	int64_t shape[] = {2, 32, 3, 4};
	Buffer *S = tb_buf(&b, "S", MS_SHARED, DT_FLOAT32, shape, 4, NULL, 16);
	Expr *ops[] = {tb_ref(&b, S), tb_ref(&b, R)};
	tb_apply(&b, "st.shared.v4.b32", ES_CTA, 2, ops);
	CHECK_INT(tb_check(&b), 0);
	TileCall *tc = b.prog->calls.v[0];
	/* repeat r, word a lives in register r + 3*a */
	for (int r = 0; r < 3; r++)
		for (int a = 0; a < 4; a++)
			CHECK_INT(tc->ops[1].slot[r * 4 + a], r + 3 * a);
	CHECK_INT(tc->count, 3);
	tile_lower_module(b.c, b.m, b.prog);
	Expr *p = b.f->body.v[1]->u.value;
	/* repeat 1 stores 16 bytes (4 float32 words) after repeat 0:
	 * repeat 0's pointer plus an immediate */
	Expr *ad = p->u.ptx.args.v[0];
	int64_t k = 0;
	CHECK(ad->kind == EX_BINARY && ad->u.op.op == BIN_ADD);
	CHECK(ad->u.op.a->kind == EX_PTR_TO);
	CHECK(ir_const_int(ad->u.op.b, &k));
	CHECK_INT(k, 16);
	CHECK(p->u.ptx.args.v[1]->kind == EX_TUPLE);
	CHECK(p->u.ptx.args.v[1]->u.tuple.v[3]->kind == EX_LOAD);
	tb_free(&b);
}

/* A thread-scope ld of V words from global G[lo : lo + V] of a (1, n)
 * tensor into private registers (1, V). */
static int
thread_ld(const char *opcode, int v, int64_t n, Expr *lo, int64_t align,
	  Layout *gl, TB *b)
{
	int64_t rs[] = {1, v}, gs[] = {1, n};
	Buffer *R = tb_buf(b, "R", MS_LOCAL, DT_UINT32, rs, 2, NULL, 0);
	Buffer *G = tb_buf(b, "G", MS_GLOBAL, DT_UINT32, gs, 2, gl, align);
	Expr *los[] = {tb_int(b, 0), lo};
	int64_t ext[] = {1, v};
	Expr *ops[] = {tb_ref(b, R), tb_region(b, tb_ref(b, G), los, ext, 2)};
	tb_apply(b, opcode, ES_THREAD, 2, ops);
	return tb_check(b);
}

TEST(tile_ld_misaligned_atom)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	CHECK_INT(thread_ld("ld.global.v4.b32", 4, 8, tb_int(&b, 1), 16, NULL,
			    &b), PT_E_TILE_ATOM_ALIGN);
	CHECK(strstr(tb_msg(&b), "byte 4") != NULL);
	tb_free(&b);
	tb_init(&b, 32, 0, 0);
	/* base alignment below the vector size */
	CHECK_INT(thread_ld("ld.global.v4.b32", 4, 8, tb_int(&b, 0), 0, NULL,
			    &b), PT_E_TILE_ATOM_ALIGN);
	CHECK(strstr(tb_msg(&b), "align=16") != NULL);
	tb_free(&b);
	tb_init(&b, 32, 0, 0);
	CHECK_INT(thread_ld("ld.global.v4.b32", 4, 8, tb_int(&b, 4), 16, NULL,
			    &b), 0);
	tb_free(&b);
}

TEST(tile_ld_non_consecutive_atom)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	LayoutIter it[] = {{1, 8, AX_M}, {8, 2, AX_M}};
	CHECK_INT(thread_ld("ld.global.v4.b32", 4, 8, tb_int(&b, 0), 16,
			    tb_layout(&b, it, 2), &b), PT_E_TILE_ATOM_CONTIG);
	CHECK(strstr(tb_msg(&b), "word 1 is at offset 2") != NULL);
	tb_free(&b);
}

TEST(tile_ld_wrong_atom_length)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	CHECK_INT(thread_ld("ld.global.v2.b32", 4, 8, tb_int(&b, 0), 16, NULL,
			    &b), PT_E_TILE_ATOM_SHAPE);
	tb_free(&b);
}

TEST(tile_ld_symbolic_alignment)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	/* start 2*lane: 8-byte steps, not provably 16-byte aligned */
	Expr *lo = tb_bin(&b, BIN_MUL, tb_hw(&b, BI_LANE_ID), tb_int(&b, 2));
	CHECK_INT(thread_ld("ld.global.v4.b32", 4, 80, lo, 16, NULL, &b),
		  PT_E_TILE_ALIGN_UNPROVEN);
	tb_free(&b);
	tb_init(&b, 32, 0, 0);
	lo = tb_bin(&b, BIN_MUL, tb_hw(&b, BI_LANE_ID), tb_int(&b, 4));
	CHECK_INT(thread_ld("ld.global.v4.b32", 4, 132, lo, 16, NULL, &b), 0);
	tile_lower_module(b.c, b.m, b.prog);
	Expr *p = b.f->body.v[0]->u.value;
	CHECK(p->u.ptx.args.v[1]->kind == EX_PTR_TO);
	tb_free(&b);
}

TEST(tile_ld_wrong_space_and_order)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	CHECK_INT(thread_ld("ld.shared.v4.b32", 4, 8, tb_int(&b, 0), 16, NULL,
			    &b), PT_E_TILE_SPACE);
	tb_free(&b);
	tb_init(&b, 32, 0, 0);
	int64_t rs[] = {1, 4};
	Buffer *R = tb_buf(&b, "R", MS_LOCAL, DT_UINT32, rs, 2, NULL, 0);
	Buffer *G = tb_buf(&b, "G", MS_GLOBAL, DT_UINT32, rs, 2, NULL, 16);
	Expr *ops[] = {tb_ref(&b, R), tb_ref(&b, G)};
	tb_apply(&b, "st.global.v4.b32", ES_THREAD, 2, ops);
	CHECK_INT(tb_check(&b), PT_E_LDST_ORDER);
	tb_free(&b);
}

TEST(tile_ld_cache_policy)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	int64_t rs[] = {1, 4};
	Buffer *R = tb_buf(&b, "R", MS_LOCAL, DT_UINT32, rs, 2, NULL, 0);
	Buffer *G = tb_buf(&b, "G", MS_GLOBAL, DT_UINT32, rs, 2, NULL, 16);
	Expr *ops[] = {tb_ref(&b, R), tb_ref(&b, G)};
	tb_apply(&b, "ld.global.L2::cache_hint.v4.b32", ES_THREAD, 2, ops);
	CHECK_INT(tb_check(&b), PT_E_TILE_PARAM_REQUIRED);
	tb_free(&b);

	tb_init(&b, 32, 0, 0);
	R = tb_buf(&b, "R", MS_LOCAL, DT_UINT32, rs, 2, NULL, 0);
	G = tb_buf(&b, "G", MS_GLOBAL, DT_UINT32, rs, 2, NULL, 16);
	Expr *ops2[] = {tb_ref(&b, R), tb_ref(&b, G)};
	Expr *call = tb_apply(&b, "ld.global.v4.b32", ES_THREAD, 2, ops2);
	Var *pol = tb_var(&b, "pol", DT_UINT64, VK_PARAM);
	tb_param(&b, call, "cache_policy", tb_vref(&b, pol));
	CHECK_INT(tb_check(&b), PT_E_LDST_CACHE_POLICY);
	tb_free(&b);

	tb_init(&b, 32, 0, 0);
	R = tb_buf(&b, "R", MS_LOCAL, DT_UINT32, rs, 2, NULL, 0);
	G = tb_buf(&b, "G", MS_GLOBAL, DT_UINT32, rs, 2, NULL, 16);
	Expr *ops3[] = {tb_ref(&b, R), tb_ref(&b, G)};
	call = tb_apply(&b, "ld.global.L2::cache_hint.v4.b32", ES_THREAD, 2,
			ops3);
	pol = tb_var(&b, "pol", DT_UINT64, VK_PARAM);
	tb_param(&b, call, "cache_policy", tb_vref(&b, pol));
	CHECK_INT(tb_check(&b), 0);
	tile_lower_module(b.c, b.m, b.prog);
	Expr *p = b.f->body.v[0]->u.value;
	CHECK_INT(p->u.ptx.args.n, 3);
	CHECK(p->u.ptx.args.v[2]->kind == EX_VAR);
	tb_free(&b);
}

TEST(tile_params_schema)
{
	TB b;
	int64_t rs[] = {1, 4};
	tb_init(&b, 32, 0, 0);
	Buffer *R = tb_buf(&b, "R", MS_LOCAL, DT_UINT32, rs, 2, NULL, 0);
	Buffer *G = tb_buf(&b, "G", MS_GLOBAL, DT_UINT32, rs, 2, NULL, 16);
	Expr *ops[] = {tb_ref(&b, R), tb_ref(&b, G)};
	Expr *call = tb_apply(&b, "ld.global.v4.b32", ES_THREAD, 2, ops);
	tb_param(&b, call, "vec_bits", tb_int(&b, 128));
	CHECK_INT(tb_check(&b), PT_E_TILE_UNKNOWN_PARAM);
	CHECK(strstr(tb_msg(&b), "vec_bits") != NULL);
	tb_free(&b);

	tb_init(&b, 32, 0, 0);
	R = tb_buf(&b, "R", MS_LOCAL, DT_UINT32, rs, 2, NULL, 0);
	G = tb_buf(&b, "G", MS_GLOBAL, DT_UINT32, rs, 2, NULL, 16);
	Expr *ops2[] = {tb_ref(&b, R), tb_ref(&b, G)};
	call = tb_apply(&b, "ld.global.v4.b32", ES_THREAD, 2, ops2);
	Var *p = tb_var(&b, "p", DT_BOOL, VK_PARAM);
	tb_param(&b, call, "preserve_dst", tb_vref(&b, p));
	CHECK_INT(tb_check(&b), PT_E_TILE_PARAM_NOT_STATIC);
	tb_free(&b);

	tb_init(&b, 32, 0, 0);
	R = tb_buf(&b, "R", MS_LOCAL, DT_UINT32, rs, 2, NULL, 0);
	G = tb_buf(&b, "G", MS_GLOBAL, DT_UINT32, rs, 2, NULL, 16);
	Expr *ops3[] = {tb_ref(&b, R), tb_ref(&b, G)};
	call = tb_apply(&b, "ld.global.v4.b32", ES_THREAD, 2, ops3);
	Var *n = tb_var(&b, "n", DT_INT32, VK_PARAM);
	tb_param(&b, call, "pred", tb_vref(&b, n));
	CHECK_INT(tb_check(&b), PT_E_TILE_PARAM_TYPE);
	tb_free(&b);

	/* cache_policy is an ld/st parameter, not a register one */
	tb_init(&b, 32, 0, 0);
	int64_t r41[] = {4, 1};
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, r41, 2, NULL, 0);
	Expr *ops4[] = {tb_ref(&b, R), tb_ref(&b, R), tb_ref(&b, R)};
	call = tb_apply(&b, "add.f32", ES_THREAD, 3, ops4);
	Var *pol = tb_var(&b, "pol", DT_UINT64, VK_PARAM);
	tb_param(&b, call, "cache_policy", tb_vref(&b, pol));
	CHECK_INT(tb_check(&b), PT_E_TILE_PARAM_NOT_LISTED);
	CHECK(strstr(tb_msg(&b), "accepted: pred, preserve_dst") != NULL);
	tb_free(&b);
}

/* ld with pred / preserve_dst: preserve needs pred and an initialised
 * destination; st has no register result to preserve. */
TEST(tile_preserve_dst_rules)
{
	int64_t rs[] = {1, 4};
	for (int k = 0; k < 4; k++) {
		TB b;
		tb_init(&b, 32, 0, 0);
		Buffer *R = tb_buf(&b, "R", MS_LOCAL, DT_UINT32, rs, 2, NULL, 0);
		Buffer *G = tb_buf(&b, "G", MS_GLOBAL, DT_UINT32, rs, 2, NULL,
				   16);
		if (k == 3) {
			/* initialise R[0, 0..3] with a mov first */
			Expr *mv[] = {tb_ref(&b, R),
				      ir_int(b.c, 0, DT_UINT32, TB_SP)};
			int64_t e4[] = {1, 4};
			(void)e4;
			Expr *dst = tb_reshape(&b, tb_ref(&b, R),
					       (int64_t[]){4, 1}, 2, NULL);
			mv[0] = dst;
			tb_apply(&b, "mov.b32", ES_THREAD, 2, mv);
		}
		Expr *ops[] = {tb_ref(&b, k == 2 ? G : R),
			       tb_ref(&b, k == 2 ? R : G)};
		Expr *call = tb_apply(&b, k == 2 ? "st.global.v4.b32"
						 : "ld.global.v4.b32",
				      ES_THREAD, 2, ops);
		Var *p = tb_var(&b, "p", DT_BOOL, VK_PARAM);
		if (k != 0)
			tb_param(&b, call, "pred", tb_vref(&b, p));
		tb_param(&b, call, "preserve_dst", ir_bool(b.c, true, TB_SP));
		static const int want[] = {PT_E_TILE_PRESERVE_NO_PRED,
					   PT_E_TILE_PRESERVE_UNINIT,
					   PT_E_TILE_PRESERVE_NO_RESULT, 0};
		CHECK_INT(tb_check(&b), want[k]);
		if (k == 3) {
			tile_lower_module(b.c, b.m, b.prog);
			Expr *x = b.f->body.v[4]->u.value;
			CHECK(x->u.ptx.preserve_dst);
			CHECK(x->u.ptx.pred != NULL);
		}
		tb_free(&b);
	}
}

TEST(tile_scopes)
{
	int64_t rs[] = {32, 1};
	TB b;
	/* warp scope wants a (32,) lane group; (16, 1) does not fit */
	tb_init(&b, 32, 0, 0);
	int64_t r16[] = {16, 1};
	Buffer *R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, r16, 2,
			   tb_layout(&b, (LayoutIter[]){{16, 1, AX_LANEID},
							{1, 1, AX_M}}, 2), 0);
	Expr *ops[] = {tb_ref(&b, R), ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_WARP, 2, ops);
	CHECK_INT(tb_check(&b), PT_E_TILE_GROUP_SHAPE);
	tb_free(&b);

	/* ... unless a guard makes 16 lanes active */
	tb_init(&b, 32, 0, 0);
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, r16, 2,
		   tb_layout(&b, (LayoutIter[]){{16, 1, AX_LANEID},
						{1, 1, AX_M}}, 2), 0);
	Stmt *g = ir_new_stmt(b.c, ST_IF, TB_SP);
	g->u.cond.cond = tb_bin(&b, BIN_LT, tb_hw(&b, BI_LANE_ID),
				tb_int(&b, 16));
	tb_stmt(&b, g);
	b.cur = &g->u.cond.then;
	Expr *ops2[] = {tb_ref(&b, R), ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_WARP, 2, ops2);
	CHECK_INT(tb_check(&b), 0);
	tb_free(&b);

	/* ... also through a variable declared as lane_id(); lanes 16..31
	 * are group coordinates 0..15, so the layout places coordinate g
	 * in lane 16 + g */
	tb_init(&b, 32, 0, 0);
	LayoutOffset o16 = {16, AX_LANEID};
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, r16, 2,
		   layout_make(&b.c->arena,
			       (LayoutIter[]){{16, 1, AX_LANEID},
					      {1, 1, AX_M}}, 2,
			       NULL, 0, &o16, 1), 0);
	Var *lane = tb_var(&b, "lane", DT_INT32, VK_LOCAL);
	Stmt *d = ir_new_stmt(b.c, ST_VAR_DECL, TB_SP);
	d->u.var.var = lane;
	d->u.var.value = tb_hw(&b, BI_LANE_ID);
	tb_stmt(&b, d);
	g = ir_new_stmt(b.c, ST_IF, TB_SP);
	g->u.cond.cond = tb_bin(&b, BIN_GE, tb_vref(&b, lane), tb_int(&b, 16));
	tb_stmt(&b, g);
	b.cur = &g->u.cond.then;
	Expr *ops2b[] = {tb_ref(&b, R), ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_WARP, 2, ops2b);
	CHECK_INT(tb_check(&b), 0);
	CHECK_INT(b.prog->calls.v[0]->group[0].lo, 16);
	tb_free(&b);

	/* cluster scope needs a launch cluster */
	tb_init(&b, 32, 0, 0);
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, rs, 2, NULL, 0);
	Expr *ops3[] = {tb_ref(&b, R), ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_CLUSTER, 2, ops3);
	CHECK_INT(tb_check(&b), PT_E_TILE_SCOPE_CLUSTER);
	tb_free(&b);

	/* a 1-D cluster of 2: groups (cta_x, warp, lane) */
	tb_init(&b, 32, 1, 2);
	int64_t rc[] = {2, 1, 32, 1};
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, rc, 4,
		   tb_layout(&b, (LayoutIter[]){{2, 1, AX_CBX},
						{1, 1, AX_WARPID},
						{32, 1, AX_LANEID},
						{1, 1, AX_M}}, 4), 0);
	Expr *ops4[] = {tb_ref(&b, R), ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_CLUSTER, 2, ops4);
	CHECK_INT(tb_check(&b), 0);
	TileCall *tc = b.prog->calls.v[0];
	CHECK_INT(tc->ngroup, 3);
	CHECK(tc->group[0].kind == GK_CTA_X);
	CHECK_INT(tc->count, 1);
	tb_free(&b);

	/* warpgroup scope needs whole warpgroups */
	tb_init(&b, 64, 0, 0);
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, rs, 2, NULL, 0);
	Expr *ops5[] = {tb_ref(&b, R), ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_WARPGROUP, 2, ops5);
	CHECK_INT(tb_check(&b), PT_E_TILE_SCOPE_LAUNCH);
	tb_free(&b);
}

TEST(tile_register_ownership)
{
	TB b;
	int64_t rs[] = {32, 1};
	/* lane l's value placed in lane l + 1 */
	tb_init(&b, 32, 0, 0);
	LayoutOffset off = {1, AX_LANEID};
	LayoutIter it[] = {{32, 1, AX_LANEID}, {1, 1, AX_M}};
	Layout *l = layout_make(&b.c->arena, it, 2, NULL, 0, &off, 1);
	Buffer *R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, rs, 2, l, 0);
	Expr *ops[] = {tb_ref(&b, R), ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_WARP, 2, ops);
	CHECK_INT(tb_check(&b), PT_E_TILE_OWNER);
	CHECK(strstr(tb_msg(&b), "laneid 0") != NULL);
	CHECK(strstr(tb_msg(&b), "laneid 1") != NULL);
	tb_free(&b);

	/* a lane-distributed tensor at thread scope */
	tb_init(&b, 32, 0, 0);
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, rs, 2, tb_layout(&b, it, 2),
		   0);
	Expr *ops2[] = {tb_ref(&b, R), ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_THREAD, 2, ops2);
	CHECK_INT(tb_check(&b), PT_E_TILE_OWNER_AXIS);
	tb_free(&b);

	/* distributed over lanes only, warps in different registers */
	tb_init(&b, 64, 0, 0);
	int64_t r2[] = {2, 32, 1};
	LayoutIter it2[] = {{2, 1, AX_M}, {32, 1, AX_LANEID}, {1, 1, AX_M}};
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, r2, 3, tb_layout(&b, it2, 3),
		   0);
	Expr *ops3[] = {tb_ref(&b, R), ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_CTA, 2, ops3);
	CHECK_INT(tb_check(&b), PT_E_TILE_SLOT_VARIES);
	tb_free(&b);

	/* a register region with a symbolic start */
	tb_init(&b, 32, 0, 0);
	int64_t r8[] = {8, 1};
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, r8, 2, NULL, 0);
	Var *i = tb_var(&b, "i", DT_INT32, VK_PARAM);
	Expr *lo[] = {tb_vref(&b, i), tb_int(&b, 0)};
	int64_t ext[] = {1, 1};
	Expr *ops4[] = {tb_region(&b, tb_ref(&b, R), lo, ext, 2),
			ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_THREAD, 2, ops4);
	int code = tb_check(&b);
	CHECK(code == PT_E_TILE_SLOT_SYMBOLIC || code == PT_E_PROVE_BOUNDS);
	tb_free(&b);

	/* in bounds by a loop range: i in [0, 8) */
	tb_init(&b, 32, 0, 0);
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, r8, 2, NULL, 0);
	Stmt *f = ir_new_stmt(b.c, ST_FOR, TB_SP);
	f->u.loop.var = tb_var(&b, "i", DT_INT32, VK_LOOP);
	f->u.loop.begin = tb_int(&b, 0);
	f->u.loop.end = tb_int(&b, 8);
	f->u.loop.step = tb_int(&b, 1);
	tb_stmt(&b, f);
	b.cur = &f->u.loop.body;
	Expr *lo2[] = {tb_vref(&b, f->u.loop.var), tb_int(&b, 0)};
	Expr *ops5[] = {tb_region(&b, tb_ref(&b, R), lo2, ext, 2),
			ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_THREAD, 2, ops5);
	CHECK_INT(tb_check(&b), PT_E_TILE_SLOT_SYMBOLIC);
	tb_free(&b);
}

TEST(tile_operand_view_errors)
{
	TB b;
	int64_t r8[] = {8, 1};
	/* a region whose extent is symbolic */
	tb_init(&b, 32, 0, 0);
	Buffer *R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, r8, 2, NULL, 0);
	Var *n = tb_var(&b, "n", DT_INT32, VK_PARAM);
	Expr *reg = ir_new_expr(b.c, EX_REGION, ET_TENSOR, DT_FLOAT32, TB_SP);
	reg->u.region.base = tb_ref(&b, R);
	reg->u.region.ndims = 2;
	reg->u.region.dims = NEWN(&b.c->arena, Slice, 2);
	reg->u.region.dims[0] = (Slice){true, tb_int(&b, 0), tb_vref(&b, n)};
	reg->u.region.dims[1] = (Slice){true, NULL, NULL};
	Expr *ops[] = {reg, ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_THREAD, 2, ops);
	CHECK_INT(tb_check(&b), PT_E_TILE_EXTENT);
	tb_free(&b);

	/* a tuple is not an operand */
	tb_init(&b, 32, 0, 0);
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, r8, 2, NULL, 0);
	Expr *tup = ir_new_expr(b.c, EX_TUPLE, ET_TUPLE, DT_NONE, TB_SP);
	Expr *ops2[] = {tb_ref(&b, R), tup};
	tb_apply(&b, "mov.f32", ES_THREAD, 2, ops2);
	CHECK_INT(tb_check(&b), PT_E_TILE_VIEW);
	tb_free(&b);

	/* warp scope: a rank-1 operand has no room for group + atom */
	tb_init(&b, 32, 0, 0);
	int64_t r32[] = {32};
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, r32, 1,
		   tb_layout(&b, (LayoutIter[]){{32, 1, AX_LANEID}}, 1), 0);
	Expr *ops3[] = {tb_ref(&b, R), ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_WARP, 2, ops3);
	CHECK_INT(tb_check(&b), PT_E_TILE_RANK);
	tb_free(&b);

	/* a product of two loop variables in a reshape view's start: the
	 * same product in begin and end is one symbol, and the address is
	 * written back as IR (i * j) */
	tb_init(&b, 32, 0, 0);
	int64_t g64[] = {64};
	Buffer *G = tb_buf(&b, "G", MS_GLOBAL, DT_UINT32, g64, 1, NULL, 16);
	int64_t r11[] = {1, 1};
	Buffer *R1 = tb_buf(&b, "R", MS_LOCAL, DT_UINT32, r11, 2, NULL, 0);
	Stmt *li = ir_new_stmt(b.c, ST_FOR, TB_SP), *lj;
	li->u.loop.var = tb_var(&b, "i", DT_INT32, VK_LOOP);
	li->u.loop.begin = tb_int(&b, 0);
	li->u.loop.end = tb_int(&b, 4);
	li->u.loop.step = tb_int(&b, 1);
	tb_stmt(&b, li);
	b.cur = &li->u.loop.body;
	lj = ir_new_stmt(b.c, ST_FOR, TB_SP);
	lj->u.loop.var = tb_var(&b, "j", DT_INT32, VK_LOOP);
	lj->u.loop.begin = tb_int(&b, 0);
	lj->u.loop.end = tb_int(&b, 4);
	lj->u.loop.step = tb_int(&b, 1);
	tb_stmt(&b, lj);
	b.cur = &lj->u.loop.body;
	Expr *gv = tb_reshape(&b, tb_ref(&b, G), (int64_t[]){64, 1}, 2, NULL);
	Expr *ij = tb_bin(&b, BIN_MUL, tb_vref(&b, li->u.loop.var),
			  tb_vref(&b, lj->u.loop.var));
	Expr *ij2 = tb_bin(&b, BIN_MUL, tb_vref(&b, lj->u.loop.var),
			   tb_vref(&b, li->u.loop.var));
	Expr *pr = ir_new_expr(b.c, EX_REGION, ET_TENSOR, DT_UINT32, TB_SP);
	pr->u.region.base = gv;
	pr->u.region.ndims = 2;
	pr->u.region.dims = NEWN(&b.c->arena, Slice, 2);
	pr->u.region.dims[0] = (Slice){true, ij,
					tb_bin(&b, BIN_ADD, ij2, tb_int(&b, 1))};
	pr->u.region.dims[1] = (Slice){true, NULL, NULL};
	Expr *ops4[] = {tb_ref(&b, R1), pr};
	tb_apply(&b, "ld.global.b32", ES_THREAD, 2, ops4);
	CHECK_INT(tb_check(&b), 0);
	TileCall *tc = b.prog->calls.v[0];
	CHECK(tc->ops[1].addr_x[0] != NULL);
	CHECK(tc->ops[1].addr_x[0]->kind == EX_BINARY &&
	      tc->ops[1].addr_x[0]->u.op.op == BIN_MUL);
	tb_free(&b);

	/* too many coordinates */
	tb_init(&b, 32, 0, 0);
	int64_t big[] = {1 << 23, 1};
	R = tb_buf(&b, "R", MS_LOCAL, DT_FLOAT32, big, 2, NULL, 0);
	Expr *ops5[] = {tb_ref(&b, R), ir_float(b.c, 1.0, DT_FLOAT32, TB_SP)};
	tb_apply(&b, "mov.f32", ES_THREAD, 2, ops5);
	CHECK_INT(tb_check(&b), PT_E_TILE_TOO_LARGE);
	tb_free(&b);
}

TEST(tile_no_family)
{
	TB b;
	tb_init(&b, 32, 0, 0);
	tb_apply(&b, "bar.sync", ES_THREAD, 0, NULL);
	CHECK_INT(tb_check(&b), PT_E_TILE_NO_FAMILY);
	tb_free(&b);
}

/* Helper instructions name their form row (helpers.def): each spelling
 * selects a row of the family written beside it, and the row's mnemonic
 * starts the spelling. */
TEST(tile_helpers_name_rows)
{
	pt_ctx *c = pt_ctx_new(NULL);
	for (int h = 0; h < TH_COUNT; h++) {
		const PtxInst *in = tile_helper(c, (TileHelper)h);
		CHECK(in != NULL);
		CHECK_INT(in->family, tile_helper_family((TileHelper)h));
		CHECK(in->form >= 0 && in->form < ptx_form_count());
		CHECK_STR(ptx_form(in->form)->mnemonic, in->mnemonic);
		CHECK(strncmp(in->spelling, in->mnemonic, strlen(in->mnemonic)) == 0);
	}
	/* the two rows the lowerings use, by hand from the table */
	CHECK_INT(tile_helper(c, TH_MAPA_SHARED_U32)->family, PTXF_CLUSTER);
	CHECK_INT(tile_helper(c, TH_MAPA_SHARED_U32)->type, PTY_U32);
	CHECK_INT(tile_helper(c, TH_MOV_U32)->family, PTXF_MOV);
	CHECK_INT(tile_helper(c, TH_MOV_U32)->nops, 2);
	pt_ctx_free(c);
}
