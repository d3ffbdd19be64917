/*
 * Unit tests of the public pipeline (src/api.c): statuses for bad targets,
 * and out-of-memory injection - failing the Nth arena block for every N
 * over each example must give PT_E_NOMEM (never a crash or a leak, which
 * ASan checks) until the compile succeeds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "test.h"

static const char *const examples[] = {
	"examples/cluster_copy.py", "examples/ld_st.py",
	"examples/register_ops.py", "examples/ewise_silu.py",
	"examples/saxpy_relu.py",   "examples/cp_async_zero_fill.py",
};

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return s;
}

/* One full pipeline run; returns the first failing status. */
static int
run_pipeline(pt_ctx *c, const char *name, const char *text, size_t len)
{
	pt_module *m;
	const char *out, *meta;
	int st = pt_load(c, name, text, len, &m);
	if (!st)
		st = pt_print(c, m, &out);
	if (!st)
		st = pt_to_json(c, m, &out);
	if (!st)
		st = pt_compile(c, m, "sm_90a", &out, &meta);
	return st;
}

TEST(api_unknown_target_is_usage_error)
{
	size_t len;
	char *text = slurp("examples/saxpy_relu.py", &len);
	CHECK(text != NULL);
	if (!text)
		return;
	pt_ctx *c = pt_ctx_new(NULL);
	pt_module *m;
	CHECK_INT(pt_load(c, "saxpy_relu.py", text, len, &m), PT_OK);
	CHECK_INT(pt_check(c, m, "sm_75"), PT_E_USAGE);
	CHECK(strstr(pt_ctx_errmsg(c), "sm_75") != NULL);
	pt_ctx_free(c);
	free(text);
}

TEST(api_out_of_memory_at_every_allocation)
{
	for (size_t e = 0; e < countof(examples); e++) {
		size_t len;
		char *text = slurp(examples[e], &len);
		CHECK(text != NULL);
		if (!text)
			continue;
		pt_ctx *c = pt_ctx_new(NULL);
		/* What the pipeline gives with memory to spare: usually PT_OK,
		 * or the diagnostic of a family not written yet. */
		int want = run_pipeline(c, examples[e], text, len);
		CHECK(want != PT_E_NOMEM);
		int done_at = 0;
		for (size_t n = 1; n < 400 && !done_at; n++) {
			c->arena.fail_after = n;
			int st = run_pipeline(c, examples[e], text, len);
			if (st == want)
				done_at = (int)n;
			else if (st != PT_E_NOMEM)
				test_fail(t, __FILE__, __LINE__,
					  "%s: block %zu: status %d",
					  examples[e], n, st);
		}
		CHECK(done_at > 1);
		pt_ctx_free(c);
		free(text);
	}
}

/* The deepest expression the parser accepts must also survive the JSON
 * round trip (the JSON nesting limit is above the IR's). */
TEST(api_deep_expression_round_trips_through_json)
{
	char src[8192];
	int n = snprintf(src, sizeof(src),
			 "from tvm_tirx.script import tirx as T\n"
			 "@T.function\n"
			 "def k(A: T.Tensor((4,), \"int32\")):\n"
			 "    T.device_entry(launch=T.cuda.LaunchConfig("
			 "grid=1, block=1))\n"
			 "    x: T.int32 = A[0]\n"
			 "    A[1] = ");
	int depth = 0;
	pt_ctx *c = pt_ctx_new(NULL);
	pt_module *m;
	/* Find the deepest nesting the front end accepts. */
	for (int d = 180; d > 0; d -= 10) {
		int k = n;
		for (int i = 0; i < d; i++)
			k += snprintf(src + k, sizeof(src) - (size_t)k, "(x + ");
		k += snprintf(src + k, sizeof(src) - (size_t)k, "x");
		for (int i = 0; i < d; i++)
			src[k++] = ')';
		src[k++] = '\n';
		if (pt_load(c, "deep.py", src, (size_t)k, &m) == PT_OK) {
			depth = d;
			break;
		}
	}
	CHECK(depth >= 50);
	const char *json;
	CHECK_INT(pt_to_json(c, m, &json), PT_OK);
	if (json) {
		char *copy = strdup(json);
		pt_module *m2;
		CHECK_INT(pt_load(c, "deep.json", copy, strlen(copy), &m2),
			  PT_OK);
		free(copy);
	}
	pt_ctx_free(c);
}

/* pt_abi_row: the tables bindings read (ptxtile.h).  Expected values
 * from the .def files and the LP64 C layout of ptem_arg {void *, size_t}. */
TEST(api_abi_rows)
{
	long long a = -1, b = -1;
	CHECK_STR(pt_abi_row("target", 0, &a, &b), "sm_80");
	CHECK(a == 80 && b == 0);
	CHECK_STR(pt_abi_row("dtype", 0, &a, NULL), "bool");
	CHECK(a == 1);
	CHECK_STR(pt_abi_row("axis", 1, &a, NULL), "laneid");
	CHECK(a == 1);
	int i = 0;
	const char *n;
	while ((n = pt_abi_row("struct", i, &a, &b)) && strcmp(n, "ptem_arg"))
		i++;
	CHECK(n != NULL);
	if (n) {
		CHECK(a == 16 && b == 8);
		CHECK_STR(pt_abi_row("struct", i + 2, &a, &b), "ptem_arg.size");
		CHECK(a == 8 && b == 8);
	}
	CHECK(pt_abi_row("nope", 0, &a, &b) == NULL);
	CHECK(pt_abi_row("target", -1, NULL, NULL) == NULL);
	CHECK(pt_abi_row("target", 1 << 20, NULL, NULL) == NULL);
	CHECK(pt_abi_row(NULL, 0, NULL, NULL) == NULL);
}
