/* Unit tests of src/ir/lower.c (names, types, folding), ir.c (builders,
 * tables, equality) and print.c details. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"
#include "ir/ir.h"
#include "test.h"

static const char *const HEAD =
	"from tvm_tirx.script import tirx as T\n"
	"@T.function\n"
	"def k(A: T.Tensor((64,), \"float32\"), u: T.uint32, i8: T.int8):\n"
	"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n";

/* Loads HEAD + body; returns the kernel body or NULL (code in *code). */
static Block *
load_body(pt_ctx *c, const char *body, int *code)
{
	char *src = arena_printf(&c->arena, "%s%s", HEAD, body);
	pt_module *m = NULL;
	/* the source must outlive ctx_reset in pt_load: copy it out */
	size_t n = strlen(src);
	char *copy = malloc(n + 1);
	memcpy(copy, src, n + 1);
	*code = pt_load(c, "t.py", copy, n, &m);
	free(copy);
	if (*code || !m)
		return NULL;
	return &m->funcs.v[m->funcs.n - 1]->body;
}

/* The initial value of declaration i of the body. */
static Expr *
decl_value(Block *b, size_t i)
{
	if (!b || i >= b->n || b->v[i]->kind != ST_VAR_DECL)
		return NULL;
	return b->v[i]->u.var.value;
}

static bool
is_int(const Expr *e, int64_t v, DType t)
{
	return e && e->kind == EX_INT && e->u.ival == v && e->dtype == t;
}

TEST(fold_constants_with_wraparound)
{
	pt_ctx *c = pt_ctx_new(NULL);
	int code;
	Block *b = load_body(c,
		"    a = 7 // -2\n"              /* floor: -4 */
		"    b = 7 % -2\n"               /* floor mod: -1 */
		"    d = -7 / 2\n"               /* truncating: -3 */
		"    e = T.uint32(0) - 1\n"      /* wraps to 2^32-1 */
		"    f = T.int8(127) + 1\n"      /* wraps to -128 */
		"    g = T.cast(300, \"uint8\")\n" /* 44: a cast wraps */
		"    h = 1 << 40\n"              /* weak: int64 */
		"    i = T.min(3, 9) + T.ceildiv(10, 4)\n" /* 3 + 3 */
		"    j = T.int32(2147483647) + 1\n"        /* -2^31 */
		"    k2 = u + 5\n"               /* literal adapts: uint32 */
		"    l = ~T.uint16(0)\n"         /* 65535 */
		"    m = T.int64(-9223372036854775807) - 1\n"
		"    n = T.int64(-9223372036854775807 - 1) // -1\n" /* wraps */
		"    o = T.uint32(1) << 31 >> 31\n",
		&code);
	CHECK_INT(code, 0);
	CHECK(is_int(decl_value(b, 0), -4, DT_INT32));
	CHECK(is_int(decl_value(b, 1), -1, DT_INT32));
	CHECK(is_int(decl_value(b, 2), -3, DT_INT32));
	CHECK(is_int(decl_value(b, 3), 4294967295LL, DT_UINT32));
	CHECK(is_int(decl_value(b, 4), -128, DT_INT8));
	CHECK(is_int(decl_value(b, 5), 44, DT_UINT8));
	CHECK(is_int(decl_value(b, 6), 1LL << 40, DT_INT64));
	CHECK(is_int(decl_value(b, 7), 6, DT_INT32));
	CHECK(is_int(decl_value(b, 8), INT32_MIN, DT_INT32));
	Expr *k2 = decl_value(b, 9);
	CHECK(k2 && k2->kind == EX_BINARY && k2->dtype == DT_UINT32 &&
	      is_int(k2->u.op.b, 5, DT_UINT32));
	CHECK(is_int(decl_value(b, 10), 65535, DT_UINT16));
	CHECK(is_int(decl_value(b, 11), INT64_MIN, DT_INT64));
	CHECK(is_int(decl_value(b, 12), INT64_MIN, DT_INT64));
	CHECK(is_int(decl_value(b, 13), 1, DT_UINT32));
	pt_ctx_free(c);
}

TEST(fold_floats_and_bools)
{
	pt_ctx *c = pt_ctx_new(NULL);
	int code;
	Block *b = load_body(c,
		"    a = 0.1 + 0.2\n"
		"    b = T.float64(0.1) + 0.2\n"
		"    c = 3 < 4 and not False\n"
		"    d = T.if_then_else(1 > 2, 5, 6)\n"
		"    e = 1.0 / 0.0\n",
		&code);
	CHECK_INT(code, 0);
	Expr *a = decl_value(b, 0);
	CHECK(a && a->kind == EX_FLOAT && a->dtype == DT_FLOAT32 &&
	      a->u.fval == (double)(float)(0.1 + 0.2));
	Expr *bb = decl_value(b, 1);
	CHECK(bb && bb->dtype == DT_FLOAT64 && bb->u.fval == 0.1 + 0.2);
	Expr *cc = decl_value(b, 2);
	CHECK(cc && cc->kind == EX_BOOL && cc->u.ival == 1);
	CHECK(is_int(decl_value(b, 3), 6, DT_INT32));
	Expr *e = decl_value(b, 4); /* infinite: left unfolded */
	CHECK(e && e->kind == EX_BINARY && e->dtype == DT_FLOAT32);
	pt_ctx_free(c);
}

TEST(lower_type_errors)
{
	static const struct {
		const char *body;
		int code;
	} cases[] = {
		{"    x = u + i8\n", PT_E_TYPE_MISMATCH},
		{"    x = u + 1.5\n", PT_E_TYPE_MISMATCH},
		{"    x: T.int32 = u\n", PT_E_TYPE_MISMATCH},
		{"    x = T.exp(u)\n", PT_E_TYPE_MISMATCH},
		{"    x = T.reinterpret(\"float64\", u)\n", PT_E_TYPE_MISMATCH},
		{"    x = 1.5 << 2\n", PT_E_TYPE_MISMATCH},
		{"    x = (u == 1) + 1\n", PT_E_TYPE_MISMATCH},
		{"    x = u and True\n", PT_E_NOT_BOOL},
		{"    while u:\n        pass\n", PT_E_NOT_BOOL},
		{"    x = 1 // 0\n", PT_E_CONST_DIV},
		{"    x = A[1.5]\n", PT_E_TYPE_MISMATCH},
		{"    x = u\n    x = i8\n", PT_E_TYPE_MISMATCH},
		{"    u = 3\n", PT_E_NOT_ASSIGNABLE},
		{"    A = 3\n", PT_E_REDEFINED},
		{"    x: T.int32 = 1\n    x: T.int32 = 2\n", PT_E_REDEFINED},
		{"    continue\n", PT_E_NOT_IN_LOOP},
		{"    x = A[0:4]\n    x[0:2] = 1.0\n", PT_E_BAD_INDEX},
		{"    A.sub[0] = 1.0\n", PT_E_BAD_INDEX},
		{"    T.ptx[\"a b\"]()\n", PT_E_PTX_SPELLING},
		{"    T.cuda.tile.apply(T.ptx[\"x\"], A, attrs=1)\n", PT_E_UNSUPPORTED},
		{"    T.cuda.tile.apply(A, A)\n", PT_E_TYPE_MISMATCH},
		{"    T.cuda.tile.apply(T.ptx[\"x\"], A, scope=\"grid\")\n", PT_E_UNKNOWN_SCOPE},
		{"    x = T.cuda.thread_idx(\"w\")\n", PT_E_UNKNOWN_AXIS},
		{"    x = T.alloc_shared((4,), \"float32\", layout=T.TileLayout(T.S[(4, 2):(1,)]))\n", PT_E_BAD_LAYOUT},
		{"    x = T.alloc_shared((4,), \"float32\", layout=\"rowmajor\")\n", PT_E_BAD_LAYOUT},
		{"    x = T.alloc_local((4,), \"float32\", layout=T.TileLayout(T.S[4:1@laneid]))\n", PT_E_UNKNOWN_AXIS},
		{"    x = T.alloc_shared((4,), \"float32\", scope=\"global\")\n", PT_E_UNKNOWN_SCOPE},
		{"    x = T.decl_buffer((4,), \"float32\", scope=\"tmem\")\n", PT_E_MISSING_ARG},
		{"    x = T.alloc_local((u,), \"float32\")\n    y = x.ptr_to([0, 1])\n", PT_E_RANK},
		{"    x = 1\n    x()\n", PT_E_UNSUPPORTED},
		{"    x = range(3)\n", PT_E_UNSUPPORTED},
		{"    for i in u:\n        pass\n", PT_E_UNSUPPORTED},
		{"    x = None\n", PT_E_UNSUPPORTED},
		{"    T.device_entry(launch=1)\n", PT_E_DEVICE_ENTRY},
	};
	for (size_t i = 0; i < countof(cases); i++) {
		pt_ctx *c = pt_ctx_new(NULL);
		int code;
		load_body(c, cases[i].body, &code);
		if (code != cases[i].code)
			test_fail(t, __FILE__, __LINE__, "case %zu: code %d: %s",
				  i, code, pt_diag_render(c, PT_DIAG_SHORT));
		pt_ctx_free(c);
	}
}

TEST(lower_builds_expected_ir)
{
	pt_ctx *c = pt_ctx_new(NULL);
	int code;
	Block *b = load_body(c,
		"    s = T.alloc_shared((8, 32), \"float32\", align=16)\n"
		"    v = s[2:6, :]\n"
		"    w = s.view(\"uint32\")\n"
		"    x = s[1, 2]\n"
		"    T.ptx.fence.proxy.async_.shared__cta()\n"
		"    T.cuda.tile.apply(T.ptx[\"ld.global.v4.b32\"], v, *[A, A], k=(1, 2), scope=\"warp\")\n",
		&code);
	CHECK_INT(code, 0);
	CHECK(b && b->n == 6);
	if (!b || b->n != 6) {
		pt_ctx_free(c);
		return;
	}
	Buffer *s = b->v[0]->u.buf;
	CHECK(s->kind == BK_ALLOC && s->scope == MS_SHARED && s->align == 16);
	Buffer *v = b->v[1]->u.buf;
	CHECK(v->kind == BK_VIEW && v->ndim == 2 && v->view->kind == EX_REGION);
	CHECK(is_int(v->shape[0], 4, DT_INT32) && is_int(v->shape[1], 32, DT_INT32));
	Buffer *w = b->v[2]->u.buf;
	CHECK(w->dtype == DT_UINT32 && w->view->kind == EX_VIEW_DTYPE);
	CHECK(decl_value(b, 3) && decl_value(b, 3)->kind == EX_LOAD);
	Expr *ptx = b->v[4]->u.value;
	CHECK(ptx->kind == EX_PTX);
	CHECK_STR(ptx->u.ptx.spelling, "fence.proxy.async.shared::cta");
	Expr *ap = b->v[5]->u.value;
	CHECK(ap->kind == EX_TILE_APPLY && ap->u.apply.operands.n == 3 &&
	      ap->u.apply.params.n == 1 && ap->u.apply.scope == ES_WARP);
	CHECK_STR(ap->u.apply.opcode, "ld.global.v4.b32");
	CHECK_STR(ap->u.apply.params.v[0].name, "k");
	CHECK(ap->u.apply.params.v[0].value->kind == EX_TUPLE);
	pt_ctx_free(c);
}

TEST(lower_layouts)
{
	pt_ctx *c = pt_ctx_new(NULL);
	int code;
	Block *b = load_body(c,
		"    r = T.alloc_local((8, 4), \"float32\", layout=T.TileLayout("
		"T.S[(8, 4):(4@T.Axis.laneid, 1)] + T.R[2:4@T.Axis.warpid] + "
		"5@T.Axis.warpid + 64 + 2@T.Axis.warpid))\n"
		"    q = T.alloc_local((8, 4, 2), \"float32\", layout=T.TileLayout(T.S[8, 4, 2]))\n"
		"    z = T.alloc_shared((64,), \"float16\", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[64:\"m\"])))\n",
		&code);
	CHECK_INT(code, 0);
	if (!b || b->n != 3) {
		CHECK(false);
		pt_ctx_free(c);
		return;
	}
	Layout *l = b->v[0]->u.buf->layout;
	CHECK(l && l->kind == LAYOUT_TILE && l->nshard == 2 && l->nreplica == 1);
	CHECK(l->shard[0].extent == 8 && l->shard[0].stride == 4 &&
	      l->shard[0].axis == AX_LANEID);
	CHECK(l->shard[1].axis == AX_M && l->shard[1].stride == 1);
	CHECK(l->replica[0].extent == 2 && l->replica[0].axis == AX_WARPID);
	CHECK_INT(l->noffset, 2); /* warpid terms merged: 7; m: 64 */
	CHECK(l->offset[0].axis == AX_WARPID && l->offset[0].value == 7);
	CHECK(l->offset[1].axis == AX_M && l->offset[1].value == 64);
	Layout *q = b->v[1]->u.buf->layout;
	CHECK(q && q->shard[0].stride == 8 && q->shard[1].stride == 2 &&
	      q->shard[2].stride == 1);
	Layout *z = b->v[2]->u.buf->layout;
	CHECK(z && z->kind == LAYOUT_COMPOSE && z->sw_m == 3 && z->inner);
	pt_ctx_free(c);
}

TEST(module_equal_detects_differences)
{
	static const char *const pairs[][2] = {
		{"    x = 1\n", "    x = 2\n"},
		{"    x = 1\n", "    y = 1\n"},
		{"    x = u + 1\n", "    x = u - 1\n"},
		{"    x = T.alloc_shared((4,), \"float32\", align=16)\n",
		 "    x = T.alloc_shared((4,), \"float32\", align=8)\n"},
		{"    T.ptx.bar.sync(0)\n", "    T.ptx.bar.arrive(0)\n"},
	};
	for (size_t i = 0; i < countof(pairs); i++) {
		pt_ctx *c1 = pt_ctx_new(NULL), *c2 = pt_ctx_new(NULL);
		int e1, e2;
		load_body(c1, pairs[i][0], &e1);
		load_body(c2, pairs[i][1], &e2);
		CHECK(e1 == 0 && e2 == 0);
		pt_module *m1 = NULL, *m2 = NULL;
		/* reload to get module pointers */
		char *s1 = arena_printf(&c1->arena, "%s%s", HEAD, pairs[i][0]);
		char *s2 = arena_printf(&c2->arena, "%s%s", HEAD, pairs[i][1]);
		char *d1 = strdup(s1), *d2 = strdup(s2);
		pt_load(c1, "a.py", d1, strlen(d1), &m1);
		pt_load(c2, "b.py", d2, strlen(d2), &m2);
		CHECK(m1 && m2 && !ir_module_equal(m1, m2));
		CHECK(ir_module_equal(m1, m1));
		free(d1);
		free(d2);
		pt_ctx_free(c1);
		pt_ctx_free(c2);
	}
}

TEST(ir_tables_and_builders)
{
	DType dt;
	CHECK(dtype_parse("bfloat16", &dt) && dt == DT_BFLOAT16);
	CHECK(!dtype_parse("float7", &dt));
	CHECK_INT(dtype_bits(DT_E2M1), 4);
	CHECK_STR(dtype_ptx(DT_UINT32), "u32");
	MemScope ms;
	CHECK(memscope_parse("shared.dyn", &ms) && ms == MS_SHARED_DYN);
	CHECK_STR(memscope_name(MS_TMEM), "tmem");
	ExecScope es;
	CHECK(execscope_parse("warpgroup", &es) && es == ES_WARPGROUP);
	CHECK(!execscope_parse("grid", &es));
	Builtin bi;
	CHECK(builtin_parse("T.cuda.elect_sync", &bi) && bi == BI_ELECT_SYNC);
	CHECK_STR(builtin_spelling(BI_CEILDIV), "T.ceildiv");
	CHECK_INT(builtin_info(BI_FMA)->nargs, 3);
	pt_ctx *c = pt_ctx_new(NULL);
	Span sp = {0, 0, 0};
	Expr *a = ir_int(c, 5, DT_INT32, sp), *b2 = ir_int(c, 5, DT_INT32, sp);
	int64_t v;
	CHECK(ir_const_int(a, &v) && v == 5);
	CHECK(ir_expr_equal(a, b2));
	b2->dtype = DT_INT64;
	CHECK(!ir_expr_equal(a, b2));
	CHECK(ir_expr_equal(ir_float(c, -0.0, DT_FLOAT32, sp),
			    ir_float(c, -0.0, DT_FLOAT32, sp)));
	CHECK(!ir_const_int(ir_float(c, 1.0, DT_FLOAT32, sp), &v));
	pt_ctx_free(c);
}

TEST(print_floats_reparse_exactly)
{
	static const char *const vals[] = {"0.1", "1e-30", "3.4028234663852886e+38",
					   "-2.5", "1234567.0", "5e-324"};
	for (size_t i = 0; i < countof(vals); i++) {
		pt_ctx *c = pt_ctx_new(NULL);
		char body[128];
		snprintf(body, sizeof(body), "    x = T.float64(%s)\n", vals[i]);
		int code;
		Block *b = load_body(c, body, &code);
		Expr *e = decl_value(b, 0);
		double want = strtod(vals[i], NULL);
		CHECK(e && e->kind == EX_FLOAT && e->u.fval == want);
		pt_ctx_free(c);
	}
}
