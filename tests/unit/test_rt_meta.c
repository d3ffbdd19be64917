/*
 * test_rt_meta.c - kernel metadata parsing (docs/metadata.md): a valid
 * document read into the expected structs, each kind of invalid document
 * rejected with PT_E_RT_META and a message naming the JSON path, and
 * launch expression evaluation with Python's division semantics.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/rt.h"
#include "test.h"

static const char good_meta[] =
	"{\"format\": \"ptxtile-meta\", \"version\": 1, \"target\": \"sm_90a\",\n"
	" \"kernels\": [{\"name\": \"gemm\", \"params\": [\n"
	"   {\"name\": \"A\", \"kind\": \"tensor\", \"dtype\": \"float16\",\n"
	"    \"shape\": [\"m\", \"k\"], \"align\": 16},\n"
	"   {\"name\": \"C\", \"kind\": \"tensor\", \"dtype\": \"float32\",\n"
	"    \"shape\": [\"m\", 128], \"contiguous\": false},\n"
	"   {\"name\": \"alpha\", \"kind\": \"scalar\", \"dtype\": \"float32\"},\n"
	"   {\"name\": \"tmA\", \"kind\": \"tma\", \"tensor\": \"A\", \"rank\": 2,\n"
	"    \"box\": [128, 64], \"swizzle\": \"128B\", \"oob_fill\": \"nan\"},\n"
	"   {\"name\": \"user_map\", \"kind\": \"tensormap\"},\n"
	"   {\"name\": \"m_dim\", \"kind\": \"dim\", \"var\": \"m\"},\n"
	"   {\"name\": \"k_dim\", \"kind\": \"dim\", \"var\": \"k\", "
	"\"dtype\": \"int64\"}],\n"
	"  \"launch\": {\"grid\": [{\"op\": \"ceildiv\", \"args\": "
	"[{\"var\": \"m\"}, 128]}, 1],\n"
	"             \"block\": [384], \"cluster\": [2, 1, 1],\n"
	"             \"dynamic_smem\": 98304}}]}";

static int
parse_text(Arena *a, const char *text, RtMeta *m, RtStatus *st)
{
	return meta_parse(a, text, strlen(text), m, st);
}

TEST(rt_meta_valid)
{
	Arena a;
	arena_init(&a, NULL);
	RtMeta m;
	RtStatus st = {0};
	CHECK_INT(parse_text(&a, good_meta, &m, &st), PT_OK);
	CHECK_INT(m.nkernels, 1);
	const RtKernelMeta *k = &m.kernels[0];
	CHECK_STR(k->name, "gemm");
	CHECK_INT(k->nparams, 7);
	CHECK_INT(k->nargs, 4); /* A, C, alpha, user_map */
	CHECK_INT(k->nvars, 2);
	CHECK_STR(k->vars[0], "m");
	CHECK_STR(k->vars[1], "k");
	const RtParam *A = &k->params[0], *C = &k->params[1];
	CHECK_INT(A->kind, RP_TENSOR);
	CHECK_INT(A->dtype, PTRT_FLOAT16);
	CHECK_INT(A->ndim, 2);
	CHECK_INT(A->shape[0].var, 0);
	CHECK_INT(A->shape[1].var, 1);
	CHECK_INT(A->align, 16);
	CHECK(A->contiguous);
	CHECK_INT(A->arg, 0);
	CHECK_INT(C->shape[1].var, -1);
	CHECK_INT(C->shape[1].value, 128);
	CHECK_INT(C->align, 4); /* default: the element size */
	CHECK(!C->contiguous);
	CHECK_INT(k->params[2].kind, RP_SCALAR);
	CHECK_INT(k->params[2].arg, 2);
	const RtParam *tm = &k->params[3];
	CHECK_INT(tm->kind, RP_TMA);
	CHECK_INT(tm->arg, -1);
	CHECK_INT(tm->tma.tensor, 0);
	CHECK_INT(tm->tma.rank, 2);
	/* box [128, 64] outermost first -> innermost first {64, 128} */
	CHECK_INT(tm->tma.box[0], 64);
	CHECK_INT(tm->tma.box[1], 128);
	CHECK_INT(tm->tma.elem_strides[0], 1);
	CHECK_INT(tm->tma.elem_strides[1], 1);
	CHECK_INT(tm->tma.format, TMA_FLOAT16); /* 6 */
	CHECK_INT(tm->tma.swizzle, 3);          /* CU_TENSOR_MAP_SWIZZLE_128B */
	CHECK_INT(tm->tma.interleave, 0);
	CHECK_INT(tm->tma.l2_promotion, 2);     /* default L2_128B */
	CHECK_INT(tm->tma.oob_fill, 1);         /* NAN_REQUEST_ZERO_FMA */
	CHECK_INT(k->params[4].kind, RP_TENSORMAP);
	CHECK_INT(k->params[4].arg, 3);
	CHECK_INT(k->params[5].kind, RP_DIM);
	CHECK_INT(k->params[5].dtype, PTRT_INT32); /* default */
	CHECK_INT(k->params[5].var, 0);
	CHECK_INT(k->params[6].dtype, PTRT_INT64);
	CHECK_INT(k->params[6].var, 1);
	int64_t vals[2] = {1000, 64}, v = 0;
	CHECK(meta_eval(k->grid[0], vals, &v, &st) && v == 8);
	CHECK(meta_eval(k->grid[1], vals, &v, &st) && v == 1);
	CHECK(meta_eval(k->grid[2], vals, &v, &st) && v == 1); /* default */
	CHECK(meta_eval(k->block[0], vals, &v, &st) && v == 384);
	CHECK(meta_eval(k->cluster[0], vals, &v, &st) && v == 2);
	CHECK(meta_eval(k->smem, vals, &v, &st) && v == 98304);
	arena_free(&a);
}

/* text must be rejected with PT_E_RT_META and a message holding want. */
static bool
meta_rejects(const char *text, const char *want)
{
	Arena a;
	arena_init(&a, NULL);
	RtMeta m;
	RtStatus st = {0};
	int rc = parse_text(&a, text, &m, &st);
	bool ok = rc == PT_E_RT_META && strstr(st.msg, want);
	if (!ok)
		fprintf(stderr, "  got %d \"%s\"\n", rc, st.msg);
	arena_free(&a);
	return ok;
}

#define HEAD "{\"format\":\"ptxtile-meta\",\"version\":1,\"kernels\":[{"
#define LAUNCH "\"launch\":{\"grid\":[1],\"block\":[32]}"
#define TENSOR_N "{\"name\":\"x\",\"kind\":\"tensor\",\"dtype\":\"float32\"," \
		 "\"shape\":[\"n\"]}"

TEST(rt_meta_errors)
{
	CHECK(meta_rejects("{\"format\": ", "invalid JSON at line 1, column 12"));
	CHECK(meta_rejects("[]", "$: expected object, found array"));
	CHECK(meta_rejects("{\"version\":1,\"kernels\":[]}",
			   "$.format: missing"));
	CHECK(meta_rejects("{\"format\":\"x\",\"version\":1,\"kernels\":[]}",
			   "$.format: expected \"ptxtile-meta\""));
	CHECK(meta_rejects("{\"format\":\"ptxtile-meta\",\"version\":2,"
			   "\"kernels\":[]}",
			   "$.version: 2 is outside [1, 1]"));
	CHECK(meta_rejects("{\"format\":\"ptxtile-meta\",\"version\":1,"
			   "\"kernels\":[],\"extra\":0}",
			   "$: unknown key \"extra\""));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[{\"name\":\"x\","
			   "\"kind\":\"tensor\",\"dtype\":\"f32\",\"shape\":[4]}],"
			   LAUNCH "}]}",
			   "$.kernels[0].params[0].dtype: unknown dtype \"f32\""));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[" TENSOR_N ","
			   TENSOR_N "]," LAUNCH "}]}",
			   "params[1].name: duplicate parameter \"x\""));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[{\"name\":\"s\","
			   "\"kind\":\"scalar\",\"dtype\":\"float16\"}]," LAUNCH
			   "}]}",
			   "params[0].dtype: scalar parameters take"));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[{\"name\":\"s\","
			   "\"kind\":\"pointer\"}]," LAUNCH "}]}",
			   "params[0].kind: unknown value \"pointer\""));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[{\"name\":\"t\","
			   "\"kind\":\"tma\",\"tensor\":\"x\",\"rank\":1,"
			   "\"box\":[8]}]," LAUNCH "}]}",
			   "params[0].tensor: \"x\" is not a tensor parameter"));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[" TENSOR_N
			   ",{\"name\":\"t\",\"kind\":\"tma\",\"tensor\":\"x\","
			   "\"rank\":2,\"box\":[8,8]}]," LAUNCH "}]}",
			   "params[1].rank: rank 2 differs from tensor \"x\""));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[" TENSOR_N
			   ",{\"name\":\"t\",\"kind\":\"tma\",\"tensor\":\"x\","
			   "\"rank\":1,\"box\":[512]}]," LAUNCH "}]}",
			   "params[1].box[0]: 512 is outside [1, 256]"));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[" TENSOR_N
			   ",{\"name\":\"t\",\"kind\":\"tma\",\"tensor\":\"x\","
			   "\"rank\":1,\"box\":[8],\"swizzle\":\"256B\"}],"
			   LAUNCH "}]}",
			   "params[1].swizzle: unknown value \"256B\""));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[{\"name\":\"d\","
			   "\"kind\":\"dim\",\"var\":\"q\"}]," LAUNCH "}]}",
			   "symbolic size \"q\" is not bound"));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[" TENSOR_N "],"
			   "\"launch\":{\"grid\":[{\"var\":\"m\"}],"
			   "\"block\":[32]}}]}",
			   "launch.grid[0]: symbolic size \"m\" is not bound"));
	/* a float scalar is no size: it cannot be named by the launch */
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[" TENSOR_N
			   ",{\"name\":\"m\",\"kind\":\"scalar\","
			   "\"dtype\":\"float32\"}],"
			   "\"launch\":{\"grid\":[{\"var\":\"m\"}],"
			   "\"block\":[32]}}]}",
			   "launch.grid[0]: symbolic size \"m\" is not bound"));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[" TENSOR_N "],"
			   "\"launch\":{\"grid\":[{\"op\":\"sub\",\"args\":"
			   "[1,2,3]}],\"block\":[32]}}]}",
			   "launch.grid[0].args: \"sub\" takes 2 arguments"));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[" TENSOR_N "],"
			   "\"launch\":{\"grid\":[{\"op\":\"pow\",\"args\":"
			   "[1,2]}],\"block\":[32]}}]}",
			   "launch.grid[0].op: unknown value \"pow\""));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[],"
			   "\"launch\":{\"grid\":[1,1,1,1],\"block\":[32]}}]}",
			   "launch.grid: expected 1 to 3 dimensions, found 4"));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[]}]}",
			   "$.kernels[0].launch: missing"));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[{\"name\":\"x\","
			   "\"kind\":\"tensor\",\"dtype\":\"int8\",\"shape\":[1],"
			   "\"align\":12}]," LAUNCH "}]}",
			   "params[0].align: 12 is not a power of two"));
	CHECK(meta_rejects(HEAD "\"name\":\"k\",\"params\":[]," LAUNCH "},{"
			   "\"name\":\"k\",\"params\":[]," LAUNCH "}]}",
			   "duplicate kernel \"k\""));
}

TEST(rt_meta_eval)
{
	/* Python semantics: -7 // 2 == -4, -(-(-7) // 2) == -3,
	 * -7 % 2 == 1, 7 % -2 == -1; ceildiv(1000, 256) == 4. */
	RtStatus st = {0};
	RtExpr a = {.op = RX_VAR, .var = 0}, b = {.op = RX_VAR, .var = 1};
	RtExpr *args[] = {&a, &b};
	RtExpr e = {.args = args, .nargs = 2};
	const struct {
		RtExprOp op;
		int64_t x, y, want;
	} cases[] = {
		{RX_FLOORDIV, -7, 2, -4}, {RX_FLOORDIV, 7, 2, 3},
		{RX_CEILDIV, -7, 2, -3},  {RX_CEILDIV, 1000, 256, 4},
		{RX_CEILDIV, 1024, 256, 4}, {RX_MOD, -7, 2, 1},
		{RX_MOD, 7, -2, -1},      {RX_MIN, 3, -4, -4},
		{RX_MAX, 3, -4, 3},       {RX_SUB, 3, 10, -7},
		{RX_MUL, 6, 7, 42},       {RX_ADD, 6, 7, 13},
	};
	for (size_t i = 0; i < countof(cases); i++) {
		int64_t vals[2] = {cases[i].x, cases[i].y}, v = 0;
		e.op = cases[i].op;
		CHECK(meta_eval(&e, vals, &v, &st));
		CHECK_INT(v, cases[i].want);
	}
	int64_t v = 0;
	int64_t zero[2] = {5, 0};
	e.op = RX_MOD;
	CHECK(!meta_eval(&e, zero, &v, &st));
	CHECK_INT(st.code, PT_E_RT_LAUNCH_DIMS);
	CHECK(strstr(st.msg, "divides by zero") != NULL);
	int64_t big[2] = {INT64_MAX, 2};
	e.op = RX_MUL;
	st.code = 0;
	CHECK(!meta_eval(&e, big, &v, &st));
	CHECK_INT(st.code, PT_E_RT_LAUNCH_DIMS);
	int64_t minv[2] = {INT64_MIN, -1};
	e.op = RX_FLOORDIV;
	CHECK(!meta_eval(&e, minv, &v, &st));
}

/* Python's % on the extremes of int64, computed independently:
 * INT64_MIN = -3 * 3074457345618258603 + 1, so INT64_MIN % 3 == 1 and
 * INT64_MIN % -3 == -2; % -1 is 0; none of these may overflow. */
TEST(rt_meta_eval_mod_extremes)
{
	static const struct { int64_t a, b, want; } rows[] = {
		{INT64_MIN, 3, 1},         {INT64_MIN, -3, -2},
		{INT64_MIN, -1, 0},        {INT64_MIN, INT64_MAX, INT64_MAX - 1},
		{INT64_MAX, INT64_MIN, -1}, {-7, 2, 1},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		RtExpr a = {RX_CONST, rows[i].a, 0, NULL, 0};
		RtExpr b = {RX_CONST, rows[i].b, 0, NULL, 0};
		RtExpr *args[2] = {&a, &b};
		RtExpr e = {RX_MOD, 0, 0, args, 2};
		RtStatus st = {0};
		int64_t v = 0;
		bool ok = meta_eval(&e, NULL, &v, &st);
		if (rows[i].a == INT64_MIN && rows[i].b == -1) {
			CHECK(!ok); /* floordiv(INT64_MIN, -1) overflows */
			CHECK_INT(st.code, PT_E_RT_LAUNCH_DIMS);
		} else {
			CHECK(ok);
			CHECK_INT(v, rows[i].want);
		}
	}
}

/* A document of nk kernels of np scalar parameters each (the scalars
 * named s0, s1, ...; a shape of symbolic sizes on the first tensor when
 * vars), in a malloc'd buffer. */
static char *
many_meta(size_t nk, size_t np, bool dup_last)
{
	size_t cap = 256 + nk * (96 + np * 64);
	char *b = malloc(cap), *p = b;
	p += sprintf(p, "{\"format\": \"ptxtile-meta\", \"version\": 1, "
		     "\"kernels\": [");
	for (size_t k = 0; k < nk; k++) {
		p += sprintf(p, "%s{\"name\": \"k%zu\", \"params\": [", k ? ", " : "",
			     dup_last && k == nk - 1 ? k - 1 : k);
		for (size_t i = 0; i < np; i++)
			p += sprintf(p, "%s{\"name\": \"s%zu\", \"kind\": "
				     "\"scalar\", \"dtype\": \"int32\"}",
				     i ? ", " : "", i);
		p += sprintf(p, "], \"launch\": {\"grid\": [1], \"block\": "
			     "[32]}}");
	}
	sprintf(p, "]}");
	return b;
}

/* Budget and near-linear reading (issue #19: 50,000 parameters or
 * kernels took 39-86 s): the budget's edge parses, one past it is
 * PT_E_RT_META_BUDGET, and 32768 parameters or 65536 kernels stay
 * under 20 s of CPU.  A guard against the quadratic lookup coming back,
 * not a speed measurement: the linear reader takes under a second in
 * the plain build and 3.7 s was seen under ASan on the loaded 2-core
 * machine, where a 3 s bound failed. */
TEST(rt_meta_budget)
{
	static const struct {
		size_t nk, np;
		int want;
	} rows[] = {
		{1, 32768, PT_OK}, {1, 32769, PT_E_RT_META_BUDGET},
		{65536, 1, PT_OK}, {65537, 1, PT_E_RT_META_BUDGET},
	};
	for (size_t i = 0; i < countof(rows); i++) {
		char *text = many_meta(rows[i].nk, rows[i].np, false);
		Arena a;
		arena_init(&a, NULL);
		RtMeta m;
		RtStatus st = {0};
		clock_t t0 = clock();
		CHECK_INT(parse_text(&a, text, &m, &st), rows[i].want);
		double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
		if (s > 20.0)
			test_fail(t, __FILE__, __LINE__, "%zu kernels of %zu "
				  "parameters: %.1f s of CPU", rows[i].nk,
				  rows[i].np, s);
		if (rows[i].want == PT_OK)
			CHECK_INT(m.nkernels, rows[i].nk);
		else
			CHECK(strstr(st.msg, "over the budget") != NULL);
		arena_free(&a);
		free(text);
	}
	/* duplicates are still found, by the hashed lookups */
	char *text = many_meta(3, 2, true);
	Arena a;
	arena_init(&a, NULL);
	RtMeta m;
	RtStatus st = {0};
	CHECK_INT(parse_text(&a, text, &m, &st), PT_E_RT_META);
	CHECK(strstr(st.msg, "duplicate kernel \"k1\"") != NULL);
	arena_free(&a);
	free(text);
	/* the text budget, before any JSON is read */
	size_t big = RT_META_MAX_BYTES + 1;
	char *pad = malloc(big);
	memset(pad, ' ', big);
	arena_init(&a, NULL);
	CHECK_INT(meta_parse(&a, pad, big, &m, &st), PT_E_RT_META_BUDGET);
	arena_free(&a);
	free(pad);
}
