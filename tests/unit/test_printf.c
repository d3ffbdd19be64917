/*
 * test_printf.c - device printf and assert: the format scanner shared by
 * the compiler and the emulator, scripts compiled by ptxtile and run in
 * the emulator with stdout captured, and the emulator's status codes for
 * trap and for a format it cannot read.  Expected text is written here
 * from the C meaning of each format (what the host's printf would print
 * for the same values).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "ptxtile.h"
#include "ptxtile_emu.h"
#include "base/base.h"

TEST(printf_format_scan)
{
	PfSpec sp;
	const char *why;
	CHECK_INT(pf_scan("%d", &sp, &why), 2);
	CHECK_INT(sp.arg, PF_INT);
	CHECK_INT(pf_scan("%-08.3f|", &sp, &why), 7);
	CHECK_INT(sp.arg, PF_DOUBLE);
	CHECK_STR(sp.head, "%-08.3");
	CHECK_INT(pf_scan("%llx", &sp, &why), 4);
	CHECK_INT(sp.arg, PF_UINT64);
	CHECK_INT(pf_scan("%ld", &sp, &why), 3);
	CHECK_INT(sp.arg, PF_INT64);
	CHECK_INT(pf_scan("%hhu", &sp, &why), 4);
	CHECK_INT(sp.arg, PF_UINT);
	CHECK_INT(pf_scan("%%", &sp, &why), 2);
	CHECK_INT(sp.arg, PF_NONE);
	static const char *const bad[] = {"%s", "%p", "%n", "%*d", "%.*f",
					  "%", "%1234d", "%q", "%lc"};
	for (size_t i = 0; i < countof(bad); i++) {
		CHECK_INT(pf_scan(bad[i], &sp, &why), 0);
		CHECK(why != NULL);
	}
}

/* Runs f with stdout sent to a temporary file; the text it wrote. */
static char *
capture(int (*f)(void *), void *ud, int *rc)
{
	fflush(stdout);
	FILE *tmp = tmpfile();
	int saved = dup(1);
	if (!tmp || saved < 0)
		return NULL;
	dup2(fileno(tmp), 1);
	*rc = f(ud);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	long n = ftell(tmp) >= 0 ? (fseek(tmp, 0, SEEK_END), ftell(tmp)) : 0;
	char *s = calloc(1, (size_t)n + 1);
	rewind(tmp);
	if (s && n > 0 && fread(s, 1, (size_t)n, tmp) != (size_t)n)
		s[0] = 0;
	fclose(tmp);
	return s;
}

typedef struct Job {
	const char *ptx;  /* or NULL: compile script */
	const char *script;
	unsigned threads;
	ptem *e;
} Job;

/* Compiles the script (when given) and runs kernel k on one CTA with one
 * 64-byte global buffer as its only argument. */
static int
run_job(void *ud)
{
	Job *j = ud;
	const char *ptx = j->ptx;
	pt_ctx *ctx = pt_ctx_new(NULL);
	int st = PT_OK;
	if (j->script) {
		pt_module *m = NULL;
		const char *meta;
		pt_set_lineinfo(ctx, 1);
		st = pt_load(ctx, "pf.py", j->script, strlen(j->script), &m);
		if (!st)
			st = pt_compile(ctx, m, "sm_90a", &ptx, &meta);
	}
	j->e = ptem_new();
	if (!st)
		st = ptem_load(j->e, ptx, strlen(ptx));
	uint64_t out = 0;
	if (!st)
		st = ptem_alloc(j->e, 64, &out);
	ptem_arg args[] = {{&out, 8}};
	ptem_launch l = {{1, 1, 1}, {j->threads, 1, 1}, {1, 1, 1}, 0, 0,
			 100000};
	if (!st)
		st = ptem_run(j->e, "k", &l, args, 1);
	pt_ctx_free(ctx);
	return st;
}

static const char script[] =
	"from tvm_tirx.script import tirx as T\n"
	"@T.function\n"
	"def k(A: T.Tensor((16,), \"int32\")):\n"
	"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=2))\n"
	"    tid = T.cuda.thread_idx(\"x\")\n"
	"    T.cuda.printf(\"t%d %5.2f %lld %x %c|%-3u|%%\\n\", tid,\n"
	"                  T.float32(1.5) * T.cast(tid + 1, \"float32\"),\n"
	"                  T.int64(-5000000000), T.uint8(171), 65 + tid,\n"
	"                  T.uint16(7))\n"
	"    if tid == 1:\n"
	"        T.cuda.printf(\"no args\\n\")\n"
	"    assert tid == 0, \"only 0\"\n";

TEST(printf_emulated_script)
{
	Job j = {NULL, script, 2, NULL};
	int rc = -1;
	char *s = capture(run_job, &j, &rc);
	/* thread 1 fails the assert: its line, then trap */
	CHECK_INT(rc, PT_E_EMU_TRAP);
	CHECK(strstr(ptem_errmsg(j.e), "pf.py:12") != NULL);
	char want0[128], want1[128];
	/* the host printf of the same values, promoted as C promotes them */
	snprintf(want0, sizeof want0, "t%d %5.2f %lld %x %c|%-3u|%%\n", 0,
		 1.5, -5000000000LL, 171u, 65, 7u);
	snprintf(want1, sizeof want1, "t%d %5.2f %lld %x %c|%-3u|%%\n", 1,
		 3.0, -5000000000LL, 171u, 66, 7u);
	CHECK(s && strstr(s, want0));
	CHECK(s && strstr(s, want1));
	CHECK(s && strstr(s, "no args\n"));
	CHECK(s && strstr(s, "pf.py:12: assertion failed: tid == 0: only 0\n"));
	CHECK(s && !strstr(s, "pf.py:12: assertion failed: tid == 0: only 0\n"
			      "pf.py:12"));
	free(s);
	ptem_free(j.e);
}

static const char ptx_head[] =
	".version 8.0\n.target sm_90a\n.address_size 64\n"
	".extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, "
	".param .b64 b);\n"
	".global .align 1 .b8 $str0[5] = {97, 37, 115, 10, 0};\n"
	".visible .entry k(.param .u64 out)\n{\n"
	"\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n";

TEST(printf_emulator_codes)
{
	char ptx[2048];
	/* PT_E_EMU_PRINTF: %s reads a device string the emulator does not
	 * follow (the compiler never emits it) */
	snprintf(ptx, sizeof ptx, "%s"
		 "\tmov.u64 %%rd1, $str0;\n\tcvta.global.u64 %%rd2, %%rd1;\n"
		 "\tmov.u64 %%rd3, 0;\n\t{\n\t.param .b64 f;\n\t.param .b64 g;\n"
		 "\t.param .b32 r;\n\tst.param.b64 [f], %%rd2;\n"
		 "\tst.param.b64 [g], %%rd3;\n"
		 "\tcall.uni (r), vprintf, (f, g);\n\t}\n\tret;\n}\n", ptx_head);
	Job j = {ptx, NULL, 1, NULL};
	int rc = -1;
	free(capture(run_job, &j, &rc));
	CHECK_INT(rc, PT_E_EMU_PRINTF);
	CHECK(strstr(ptem_errmsg(j.e), "%s") != NULL);
	ptem_free(j.e);
	/* PT_E_EMU_TRAP: trap, under a guard that holds */
	snprintf(ptx, sizeof ptx, "%s\t.reg .pred %%p<2>;\n"
		 "\tsetp.eq.u32 %%p1, 0, 0;\n\t@%%p1 trap;\n\tret;\n}\n",
		 ptx_head);
	j.ptx = ptx;
	CHECK_INT(run_job(&j), PT_E_EMU_TRAP);
	ptem_free(j.e);
	/* a call of anything but a declared vprintf is not modelled */
	snprintf(ptx, sizeof ptx, "%s\t{\n\t.param .b64 f;\n\t.param .b64 g;\n"
		 "\t.param .b32 r;\n\tcall.uni (r), puts, (f, g);\n\t}\n"
		 "\tret;\n}\n", ptx_head);
	CHECK_INT(run_job(&j), PT_E_EMU_UNSUPPORTED);
	ptem_free(j.e);
	/* a call argument that is not a .param of the block */
	snprintf(ptx, sizeof ptx, "%s\t{\n\t.param .b64 f;\n\t.param .b32 r;\n"
		 "\tcall.uni (r), vprintf, (f, %%rd1);\n\t}\n\tret;\n}\n",
		 ptx_head);
	CHECK_INT(run_job(&j), PT_E_EMU_PARSE);
	ptem_free(j.e);
}
