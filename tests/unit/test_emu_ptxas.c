/*
 * test_emu_ptxas.c - the emulator refuses the PTX that ptxas refuses:
 * operand counts, constants past 64 bits, 256-bit accesses, .version and
 * .target, static shared memory limits, duplicate kernels.  Every case
 * states what ptxas 13.0 says of it; where ptxas is on the machine
 * ($PTXAS, or /usr/local/cuda/bin/ptxas) the test asks it again, so a
 * case whose verdict the emulator and the real assembler disagree on
 * fails even if the expected code below were wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "ptxtile.h"
#include "ptxtile_emu.h"

typedef struct Case {
	const char *version, *target;
	const char *decl;  /* inside the kernel, before the registers */
	const char *body;  /* one statement, on PTX line 11 */
	int status;	   /* ptem_load's */
	int line;	   /* the PTX line the error names (0: none) */
	const char *ptxas; /* what ptxas 13.0 said (documentation) */
} Case;

#define V8 "ld.global.v8.b32 {%r1,%r2,%r3,%r1,%r2,%r3,%r1,%r2}, [%rd1];"

static const Case cases[] = {
	{"8.0", "sm_90a", "", "add.u32 %r1, %r2, %r3, %r1;",
	 PT_E_EMU_OPERAND_COUNT, 12,
	 "Arguments mismatch for instruction 'add'"},
	{"8.0", "sm_90a", "", "add.u32 %r1, %r2;", PT_E_EMU_OPERAND_COUNT, 12,
	 "Arguments mismatch for instruction 'add'"},
	{"8.0", "sm_90a", "", "mov.u32 %r1;", PT_E_EMU_OPERAND_COUNT, 12,
	 "Arguments mismatch for instruction 'mov'"},
	{"8.0", "sm_90a", "", "ret %r1;", PT_E_EMU_OPERAND_COUNT, 12,
	 "Arguments mismatch for instruction 'ret'"},
	{"8.0", "sm_90a", "", "mov.u64 %rd1, 1267650600228229401496703205376;",
	 PT_E_EMU_CONSTANT, 12, "Constant overflow"},
	{"8.0", "sm_90a", "", "mov.u64 %rd1, 0xFFFFFFFFFFFFFFFFF;",
	 PT_E_EMU_CONSTANT, 12, "Constant overflow"},
	{"8.0", "sm_90a", "", "mov.u64 %rd1, 18446744073709551615;", PT_OK, 0,
	 "accepted"},
	{"8.0", "sm_90a", "", "add.s64 %rd1, %rd2, -9223372036854775808;",
	 PT_OK, 0, "accepted"},
	/* the INT64_MIN offset of issue #19 (UB under UBSan before) */
	{"8.0", "sm_90a", "", "ld.global.u32 %r1, [%rd1+-9223372036854775808];",
	 PT_OK, 0, "accepted"},
	{"8.0", "sm_90a", "", "ld.global.u32 %r1, [%rd1+18446744073709551615];",
	 PT_OK, 0, "accepted"},
	{"8.0", "sm_90a", "", "ld.global.u32 %r1, [%rd1-8];", PT_E_EMU_PARSE,
	 12, "Parsing error near '-': syntax error"},
	{"8.0", "sm_90a", "", V8, PT_E_EMU_TARGET, 12,
	 "'256 bit wide load/store' requires PTX ISA .version 8.8"},
	{"8.8", "sm_90a", "", V8, PT_E_EMU_TARGET, 12,
	 "'256 bit wide load/store' requires .target sm_100 or higher"},
	{"8.8", "sm_100a", "", V8, PT_OK, 0, "accepted"},
	{"8.8", "sm_100a", "",
	 "st.global.v4.b64 [%rd1], {%rd1,%rd2,%rd3,%rd1};", PT_OK, 0,
	 "accepted"},
	{"8.8", "sm_100a", "",
	 "ld.shared.v8.b32 {%r1,%r2,%r3,%r1,%r2,%r3,%r1,%r2}, [%rd1];",
	 PT_E_EMU_TARGET, 12,
	 "global state space expected for feature '256 bit wide load/store'"},
	{"99.9", "sm_90a", "", "ret;", PT_E_EMU_TARGET, 1,
	 "Unsupported .version 99.9; current version is '9.0'"},
	{"9.1", "sm_90a", "", "ret;", PT_E_EMU_TARGET, 1,
	 "Unsupported .version 9.1"},
	{"8.9", "sm_90a", "", "ret;", PT_E_EMU_TARGET, 1,
	 "Unsupported .version 8.9"},
	{"9.0", "sm_90a", "", "ret;", PT_OK, 0, "accepted"},
	{"8.0", "sm_1", "", "ret;", PT_E_EMU_TARGET, 2,
	 "Unsupported .target 'sm_1'"},
	{"8.0", "sm_100a", "", "ret;", PT_E_EMU_TARGET, 2,
	 "PTX .version 8.0 does not support .target sm_100a"},
	{"8.6", "sm_100a", "", "ret;", PT_OK, 0, "accepted"},
	/* 228 KiB, then the 227 KiB (0x38c00) ptxas allows on sm_90a */
	{"8.0", "sm_90a", " .shared .align 16 .b8 s[233472];", "ret;",
	 PT_E_EMU_SMEM_LIMIT, 6,
	 "uses too much shared data (0x39000 bytes, 0x38c00 max)"},
	{"8.0", "sm_90a", " .shared .align 16 .b8 s[232448];", "ret;", PT_OK, 0,
	 "accepted"},
	{"8.0", "sm_80", " .shared .align 16 .b8 s[49153];", "ret;",
	 PT_E_EMU_SMEM_LIMIT, 6,
	 "uses too much shared data (0xc001 bytes, 0xc000 max)"},
	{"8.0", "sm_80", " .shared .align 16 .b8 s[49152];", "ret;", PT_OK, 0,
	 "accepted"},
	{"8.0", "sm_90a", "", "$L1: bra $L1; $L1: ret;", PT_E_EMU_PARSE, 12,
	 "Duplicate definition of label '$L1'"},
	{"8.6", "sm_100f", " .shared .align 16 .b8 s[49153];", "ret;",
	 PT_E_EMU_TARGET, 2,
	 "PTX .version 8.6 does not support .target sm_100f"},
	/* issue 21: every instruction is selected through the form table,
	 * so operand counts and kinds are bounded for every family */
	{"8.0", "sm_90a", "", "shfl.sync.bfly.b32 %r1, %r2, 1;",
	 PT_E_EMU_OPERAND_COUNT, 12,
	 "Arguments mismatch for instruction 'shfl'"},
	{"8.0", "sm_90a", "", "mbarrier.init.shared.b64 [%rd1];",
	 PT_E_EMU_OPERAND_COUNT, 12,
	 "Arguments mismatch for instruction 'mbarrier.init'"},
	{"8.0", "sm_90a", "", "vote.sync.ballot.b32 %r1, %p1;",
	 PT_E_EMU_OPERAND_COUNT, 12,
	 "Arguments mismatch for instruction 'vote'"},
	{"8.0", "sm_90a", "", "cvta.global.u64 %rd1;", PT_E_EMU_OPERAND_COUNT,
	 12, "Arguments mismatch for instruction 'cvta'"},
	{"8.0", "sm_90a", "", "add.u32 %r1, [%rd1], %r2;", PT_E_EMU_UNSUPPORTED,
	 12, "Arguments mismatch for instruction 'add'"},
	{"8.0", "sm_90a", "", "bar.sync 16;", PT_E_EMU_UNSUPPORTED, 12,
	 "Barrier number '16' out of range, expected to be in range [0..15]"},
	{"8.0", "sm_90a", "", "setp.lo.s32 %p1, %r1, %r2;",
	 PT_E_EMU_UNSUPPORTED, 12,
	 "Mismatch between instruction type and comparison qualifier"},
	{"8.0", "sm_90a", "", "st.global.u32 [%rd1], 7;", PT_OK, 0, "accepted"},
	{"8.0", "sm_90a", "", "setp.lt.u32 %p1, %r1, %r2;", PT_OK, 0,
	 "accepted"},
	/* issue 22's raw forms, which the emulator runs (test_emu_tirx.c) */
	{"8.0", "sm_90a", "", "fns.b32 %r1, %r2, %r3, 1;", PT_OK, 0,
	 "accepted"},
	{"8.0", "sm_90a", "", "fns.b32 %r1, %r2, %r3;", PT_E_EMU_OPERAND_COUNT,
	 12, "Arguments mismatch for instruction 'fns'"},
	{"8.0", "sm_90a", "", "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;",
	 PT_OK, 0, "accepted"},
	{"8.0", "sm_90a", "", "movmatrix.sync.aligned.m8n8.b16 %r1, %r2;",
	 PT_E_EMU_UNSUPPORTED, 12,
	 ".trans modifier required for instruction 'movmatrix'"},
	{"8.6", "sm_100a", "", "add.rn.f32.bf16 %r1, %rs1, %r2;", PT_OK, 0,
	 "accepted"},
	{"8.6", "sm_100a", "", "add.ftz.f32.bf16 %r1, %rs1, %r2;",
	 PT_E_EMU_UNSUPPORTED, 12,
	 "Illegal modifier '.ftz' for instruction 'add'"},
	{"8.6", "sm_100a", "", "st.bulk.weak.shared::cta [%r1], 16, 0;", PT_OK,
	 0, "accepted"},
	{"8.6", "sm_100a", "", "st.bulk.weak.shared::cta [%r1], 12, 0;",
	 PT_E_EMU_UNSUPPORTED, 12,
	 "unexpected value '12', expected to be multiple of 8"},
	{"8.6", "sm_100a", "", "st.bulk.weak.shared::cta [%r1], 16777224, 0;",
	 PT_E_EMU_UNSUPPORTED, 12,
	 "value '16777224' out of range, expected to be in range "
	 "[0..16777216]"},
	{"8.6", "sm_100a", "", "st.bulk.weak.shared::cta [%r1], 16, 1;",
	 PT_E_EMU_UNSUPPORTED, 12,
	 "Argument 2 of instruction 'st.bulk': unexpected value '1', "
	 "expected to be zero"},
	/* TIRx's two-operand call prints the 0; ptxas needs it written */
	{"8.6", "sm_100a", "", "st.bulk.weak.shared::cta [%r1], 16;",
	 PT_E_EMU_OPERAND_COUNT, 12,
	 "Arguments mismatch for instruction 'st.bulk'"},
	{"8.6", "sm_100a", "", "st.bulk.weak.shared::cluster [%r1], 16, 0;",
	 PT_E_EMU_UNSUPPORTED, 12,
	 "State space incorrect for instruction 'st.bulk', expected "
	 "'.shared::cta'"},
};

/* The module of one case: the body's statement is on PTX line 12, the
 * declaration (if any) on line 6, after the '{'. */
static void
case_text(char *buf, size_t cap, const Case *c, int twice)
{
	char kernel[1024];
	snprintf(kernel, sizeof(kernel),
		 ".visible .entry k(.param .u64 p)\n{%s\n"
		 "\t.reg .b32 %%r<4>;\n\t.reg .b64 %%rd<4>;\n"
		 "\t.reg .pred %%p<2>;\n\t.reg .b16 %%rs<2>;\n"
		 "\tld.param.u64 %%rd1, [p];\n\t%s\n\tret;\n}\n",
		 c->decl, c->body);
	snprintf(buf, cap, ".version %s\n.target %s\n.address_size 64\n\n%s%s",
		 c->version, c->target, kernel, twice ? kernel : "");
}

static const char *
ptxas_path(void)
{
	const char *p = getenv("PTXAS");
	if (p && *p)
		return access(p, X_OK) == 0 ? p : NULL;
	p = "/usr/local/cuda/bin/ptxas";
	return access(p, X_OK) == 0 ? p : NULL;
}

/* ptxas's verdict on text: 1 accepted, 0 rejected, -1 not asked. */
static int
ptxas_accepts(const char *ptxas, const char *text, const char *target)
{
	char path[] = "/tmp/pt_emu_ptxasXXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(path);
		return -1;
	}
	fputs(text, f);
	fclose(f);
	/* an unknown .target is asked with sm_90a: ptxas then reads the
	 * .target line and refuses it */
	const char *arch = strcmp(target, "sm_1") ? target : "sm_90a";
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "'%s' -arch=%s %s -o /dev/null >/dev/null "
		 "2>&1",
		 ptxas, arch, path);
	int rc = system(cmd);
	unlink(path);
	return rc == -1 ? -1 : rc == 0;
}

static void
check_case(TestCtx *t, const Case *c, const char *text, int status, int line,
	   const char *ptxas)
{
	ptem *e = ptem_new();
	int st = ptem_load(e, text, strlen(text));
	if (st != status)
		test_fail(t, __FILE__, __LINE__,
			  "%s (%s %s): status %d, expected "
			  "%d (ptxas: %s): %s",
			  c->body, c->version, c->target, st, status, c->ptxas,
			  ptem_errmsg(e));
	char want[32];
	snprintf(want, sizeof(want), "PTX line %d:", line);
	if (line && st == status && !strstr(ptem_errmsg(e), want))
		test_fail(t, __FILE__, __LINE__,
			  "%s: '%s' does not name line %d", c->body,
			  ptem_errmsg(e), line);
	ptem_free(e);
	int verdict = ptxas ? ptxas_accepts(ptxas, text, c->target) : -1;
	if (verdict >= 0 && verdict != (status == PT_OK))
		test_fail(t, __FILE__, __LINE__,
			  "%s (%s %s): ptxas %s it, the "
			  "emulator %s",
			  c->body, c->version, c->target,
			  verdict ? "accepts" : "rejects",
			  status == PT_OK ? "accepts" : "rejects");
}

TEST(emu_refuses_what_ptxas_refuses)
{
	const char *ptxas = ptxas_path();
	char text[4096];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		case_text(text, sizeof(text), &cases[i], 0);
		check_case(t, &cases[i], text, cases[i].status, cases[i].line,
			   ptxas);
	}
	/* PT_E_EMU_DUPLICATE: the same kernel twice ("Duplicate definition
	 * of function 'k'"); the second .entry is on line 15 */
	static const Case dup = {"8.0",
				 "sm_90a",
				 "",
				 "ret;",
				 0,
				 0,
				 "Duplicate definition of function 'k'"};
	case_text(text, sizeof(text), &dup, 1);
	check_case(t, &dup, text, PT_E_EMU_DUPLICATE, 15, ptxas);
}

/* Near-linear loading (issue #19: lookups must not be quadratic): 20,000
 * kernels (each checked against every other for a duplicate) and one
 * kernel of 50,000 labels each branched to, in CPU seconds. */
TEST(emu_load_is_near_linear)
{
	size_t cap = 64u << 20, n = 0;
	char *text = malloc(cap);
	n += (size_t)snprintf(text + n, cap - n,
			      ".version 8.0\n.target sm_90a\n");
	for (int k = 0; k < 20000; k++)
		n += (size_t)snprintf(text + n, cap - n,
				      ".visible .entry k%d()\n{\n\tret;\n}\n",
				      k);
	ptem *e = ptem_new();
	clock_t t0 = clock();
	CHECK_INT(ptem_load(e, text, n), PT_OK);
	n = (size_t)snprintf(text, cap,
			     ".version 8.0\n.target sm_90a\n"
			     ".visible .entry k()\n{\n");
	for (int l = 0; l < 50000; l++)
		n += (size_t)snprintf(text + n, cap - n, "$L%d:\n\tbra $L%d;\n",
				      l, 49999 - l);
	n += (size_t)snprintf(text + n, cap - n, "\tret;\n}\n");
	CHECK_INT(ptem_load(e, text, n), PT_OK);
	double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
	if (s > 3.0)
		test_fail(t, __FILE__, __LINE__, "loading took %.1f s of CPU",
			  s);
	ptem_free(e);
	free(text);
}
