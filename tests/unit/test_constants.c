/*
 * Unit tests of constant overrides (pt_set_constant, src/base/consts.c and
 * src/ir/lower_const.c): the PTX must show the overriding value where the
 * script's was, overrides persist across pt_load until cleared, and each
 * refusal has its code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "test.h"

/* BLOCK sets .reqntid; TILE = BLOCK * 2 is the grid, so the PTX shows both
 * the override and a constant computed from it.  A holds one element per
 * thread of the largest BLOCK used below (256): a smaller A would be
 * written past its end, which the compiler proves (E6030). */
static const char script[] =
	"from tvm_tirx.script import tirx as T\n"
	"BLOCK = 256\n"
	"TILE = BLOCK * 2\n"
	"SCALE = 1.5\n"
	"SMALL = T.uint8(7)\n"
	"SHAPE = (1, 2)\n"
	"ON = True\n"
	"DT = \"float32\"\n"
	"@T.function\n"
	"def k(A: T.Tensor((256,), DT)):\n"
	"    T.device_entry(launch=T.cuda.LaunchConfig(grid=TILE, block=BLOCK))\n"
	"    A[T.cuda.thread_idx(\"x\")] = T.cast(SCALE, DT)\n";

/* Loads and compiles script; the status, and the PTX in *ptx. */
static int
compile_script(pt_ctx *c, const char **ptx)
{
	pt_module *m;
	const char *meta;
	*ptx = NULL;
	int st = pt_load(c, "k.py", script, strlen(script), &m);
	return st ? st : pt_compile(c, m, "sm_90a", ptx, &meta);
}

static int
load_status(pt_ctx *c)
{
	pt_module *m;
	return pt_load(c, "k.py", script, strlen(script), &m);
}

/* Whether the PTX holds needle (".reqntid 64, 1, 1"). */
static bool
has(const char *ptx, const char *needle)
{
	return ptx && strstr(ptx, needle) != NULL;
}

TEST(constants_override_and_persist)
{
	pt_ctx *c = pt_ctx_new(NULL);
	const char *ptx;
	CHECK_INT(compile_script(c, &ptx), PT_OK);
	CHECK(has(ptx, ".reqntid 256, 1, 1"));
	CHECK_INT(pt_set_constant(c, "BLOCK", "64"), PT_OK);
	CHECK_INT(compile_script(c, &ptx), PT_OK);
	CHECK(has(ptx, ".reqntid 64, 1, 1"));
	/* a second load keeps the override */
	CHECK_INT(compile_script(c, &ptx), PT_OK);
	CHECK(has(ptx, ".reqntid 64, 1, 1"));
	CHECK_INT(pt_set_constant(c, "BLOCK", "32"), PT_OK); /* replaces */
	CHECK_INT(compile_script(c, &ptx), PT_OK);
	CHECK(has(ptx, ".reqntid 32, 1, 1"));
	pt_clear_constants(c);
	CHECK_INT(compile_script(c, &ptx), PT_OK);
	CHECK(has(ptx, ".reqntid 256, 1, 1"));
	pt_ctx_free(c);
}

TEST(constants_derived_value_in_metadata)
{
	pt_ctx *c = pt_ctx_new(NULL);
	pt_module *m;
	const char *ptx, *meta;
	CHECK_INT(pt_set_constant(c, "BLOCK", "96"), PT_OK);
	CHECK_INT(pt_load(c, "k.py", script, strlen(script), &m), PT_OK);
	CHECK_INT(pt_compile(c, m, "sm_90a", &ptx, &meta), PT_OK);
	/* TILE = BLOCK * 2 = 192 is the grid */
	CHECK(meta && strstr(meta, "192") != NULL);
	CHECK(meta && strstr(meta, "512") == NULL); /* not 2 * 256 */
	pt_ctx_free(c);
}

TEST(constants_types_accepted)
{
	static const char *const ok[][2] = {
		{"SCALE", "2"},           /* an int where a float was */
		{"SCALE", "0.25"},
		{"SMALL", "255"},         /* fits uint8 */
		{"SHAPE", "(4, 5, 6)"},   /* another length, all ints */
		{"SHAPE", "3, 4"},        /* a bare tuple */
		{"ON", "False"},
		{"DT", "'float16'"},
	};
	for (size_t i = 0; i < countof(ok); i++) {
		pt_ctx *c = pt_ctx_new(NULL);
		CHECK_INT(pt_set_constant(c, ok[i][0], ok[i][1]), PT_OK);
		int st = load_status(c);
		if (st)
			test_fail(t, __FILE__, __LINE__, "%s=%s: status %d",
				  ok[i][0], ok[i][1], st);
		pt_ctx_free(c);
	}
	/* an expression of earlier constants is a value too */
	pt_ctx *c = pt_ctx_new(NULL);
	CHECK_INT(pt_set_constant(c, "TILE", "BLOCK + 1"), PT_OK);
	pt_module *m;
	const char *ptx, *meta;
	CHECK_INT(pt_load(c, "k.py", script, strlen(script), &m), PT_OK);
	CHECK_INT(pt_compile(c, m, "sm_90a", &ptx, &meta), PT_OK);
	CHECK(meta && strstr(meta, "257") != NULL);
	pt_ctx_free(c);
}

TEST(constants_refused_with_codes)
{
	static const struct {
		const char *name, *value;
		int code;
	} bad[] = {
		{"BLOCK", "'wide'", PT_E_CONST_TYPE},
		{"BLOCK", "2.5", PT_E_CONST_TYPE},
		{"BLOCK", "True", PT_E_CONST_TYPE},
		{"SMALL", "300", PT_E_CONST_TYPE}, /* refused, not wrapped */
		{"SMALL", "T.int32(7)", PT_E_CONST_TYPE},
		{"SHAPE", "(1, 'a')", PT_E_CONST_TYPE},
		{"SHAPE", "7", PT_E_CONST_TYPE},
		{"ON", "1", PT_E_CONST_TYPE},
		{"DT", "'float33'", PT_E_CONST_TYPE},
		{"DT", "32", PT_E_CONST_TYPE},
		{"BLOCK", "T.cuda.thread_idx(\"x\")", PT_E_CONST_VALUE},
		{"BLOK", "64", PT_E_CONST_UNKNOWN},
		{"k", "1", PT_E_CONST_UNKNOWN}, /* a function, not a constant */
		{"BLOCK", "TILE", PT_E_UNKNOWN_NAME}, /* TILE comes later */
		{"BLOCK", "12x", PT_E_LEX_NUMBER},
		{"BLOCK", "", PT_E_PARSE_SYNTAX},
		{"BLOCK", "1 2", PT_E_PARSE_SYNTAX},
	};
	for (size_t i = 0; i < countof(bad); i++) {
		pt_ctx *c = pt_ctx_new(NULL);
		CHECK_INT(pt_set_constant(c, bad[i].name, bad[i].value), PT_OK);
		int st = load_status(c);
		if (st != bad[i].code)
			test_fail(t, __FILE__, __LINE__,
				  "%s=%s: status %d, expected %d", bad[i].name,
				  bad[i].value, st, bad[i].code);
		pt_ctx_free(c);
	}
}

TEST(constants_bad_names_are_usage_errors)
{
	pt_ctx *c = pt_ctx_new(NULL);
	CHECK_INT(pt_set_constant(c, "", "1"), PT_E_USAGE);
	CHECK_INT(pt_set_constant(c, "1A", "1"), PT_E_USAGE);
	CHECK_INT(pt_set_constant(c, "A-B", "1"), PT_E_USAGE);
	CHECK_INT(pt_set_constant(c, "A B", "1"), PT_E_USAGE);
	CHECK_INT(pt_set_constant(c, NULL, "1"), PT_E_USAGE);
	CHECK_INT(pt_set_constant(c, "A", NULL), PT_E_USAGE);
	static char big[PT_CONSTANT_MAX_BYTES + 2];
	memset(big, '1', sizeof(big) - 1);
	CHECK_INT(pt_set_constant(c, "A", big), PT_E_USAGE);
	big[PT_CONSTANT_MAX_BYTES] = 0; /* exactly the limit: accepted */
	CHECK_INT(pt_set_constant(c, "A", big), PT_OK);
	char name[300];
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	CHECK_INT(pt_set_constant(c, name, "1"), PT_E_USAGE);
	pt_ctx_free(c);
}

TEST(constants_ir_json_has_none)
{
	pt_ctx *c = pt_ctx_new(NULL);
	pt_module *m;
	const char *json;
	CHECK_INT(pt_load(c, "k.py", script, strlen(script), &m), PT_OK);
	CHECK_INT(pt_to_json(c, m, &json), PT_OK);
	char *copy = json ? strdup(json) : NULL;
	CHECK(copy != NULL);
	CHECK_INT(pt_set_constant(c, "BLOCK", "64"), PT_OK);
	if (copy)
		CHECK_INT(pt_load(c, "k.json", copy, strlen(copy), &m),
			  PT_E_CONST_UNKNOWN);
	free(copy);
	pt_ctx_free(c);
}
