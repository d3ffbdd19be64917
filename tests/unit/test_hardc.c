/*
 * Unit tests of issue 19's compiler hardening that need the API rather
 * than a script file: --lineinfo source paths ptxas cannot read.
 */
#include <string.h>

#include "base/base.h"
#include "test.h"

static const char kernel[] =
	"from tvm_tirx.script import tirx as T\n\n@T.function\n"
	"def k(A: T.Tensor((4,), \"int32\")):\n"
	"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))\n"
	"    A[0] = 1\n";

/* The status of compiling `kernel` loaded under name, lineinfo on. */
static int
compile_named(const char *name, const char **ptx)
{
	pt_ctx *c = pt_ctx_new(NULL);
	pt_module *m;
	const char *meta;
	pt_set_lineinfo(c, 1);
	int st = pt_load(c, name, kernel, strlen(kernel), &m);
	if (!st)
		st = pt_compile(c, m, "sm_90a", ptx, &meta);
	if (st || !*ptx || !strstr(*ptx, ".file 1 \"ok/dir/k.py\""))
		*ptx = NULL;
	pt_ctx_free(c);
	return st;
}

TEST(lineinfo_path_ptxas_cannot_spell)
{
	const char *ptx;
	/* ptxas 13.0: '"' is a parse error, a non-ASCII byte "Unexpected
	 * non-ASCII character"; a control byte would end the directive */
	CHECK_INT(compile_named("a\"b.py", &ptx), PT_E_LINEINFO_PATH);
	CHECK_INT(compile_named("caf\xc3\xa9.py", &ptx), PT_E_LINEINFO_PATH);
	CHECK_INT(compile_named("x\ny.py", &ptx), PT_E_LINEINFO_PATH);
	CHECK_INT(compile_named("a\\b.py", &ptx), PT_E_LINEINFO_PATH);
	CHECK_INT(compile_named("ok/dir/k.py", &ptx), PT_OK);
	CHECK(ptx != NULL);
}
