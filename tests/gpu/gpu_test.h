/*
 * gpu_test.h - helpers for GPU test programs (tests/gpu/gpu_*.c), which
 * tests/gpu/run.sh builds against libptxtile_rt.a and runs.
 *
 * A program opens the runtime with gpu_open() (exit 77 when there is no
 * driver or no device), runs its cases with GPU_CASE, and ends with
 * gpu_finish().  Each case prints "PASS gpu/<name>" or
 * "FAIL gpu/<name>: why"; run.sh counts those lines.  Expected values are
 * computed on the host, independently of the kernels.
 */
#ifndef PT_GPU_TEST_H
#define PT_GPU_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptxtile_rt.h"

typedef struct GpuRun {
	ptrt_ctx *rt;
	int passed, failed;
	const char *program;
} GpuRun;

/* Opens the runtime; exits 77 (skip) when no driver or device exists. */
static inline void
gpu_open(GpuRun *g, const char *program)
{
	memset(g, 0, sizeof(*g));
	g->program = program;
	int rc = ptrt_open(&g->rt);
	if (rc == PT_E_RT_NO_DRIVER || rc == PT_E_RT_NO_DEVICE) {
		printf("SKIP gpu/%s: %s\n", program, ptrt_errmsg(g->rt));
		ptrt_close(g->rt);
		exit(77);
	}
	if (rc != PT_OK) {
		printf("FAIL gpu/%s: cannot open the runtime: %s\n", program,
		       ptrt_errmsg(g->rt));
		ptrt_close(g->rt);
		exit(1);
	}
	int ver = 0, sm = 0;
	const char *name = "";
	ptrt_device_info(g->rt, &ver, &sm, &name);
	fprintf(stderr, "%s: %s, sm_%d, driver %d\n", program, name, sm, ver);
}

/* Runs fn(g, &why); a non-NULL why (static text or from the runtime)
 * after return means failure. */
#define GPU_CASE(g, name, fn)                                              \
	do {                                                               \
		char why_[1024] = "";                                      \
		fn((g), why_, sizeof(why_));                               \
		if (why_[0]) {                                             \
			printf("FAIL gpu/%s: %s\n", (name), why_);         \
			(g)->failed++;                                     \
		} else {                                                   \
			printf("PASS gpu/%s\n", (name));                   \
			(g)->passed++;                                     \
		}                                                          \
		fflush(stdout);                                            \
	} while (0)

/* Records the runtime's last error in why when rc is not PT_OK. */
static inline int
gpu_check(GpuRun *g, int rc, const char *what, char *why, size_t n)
{
	if (rc != PT_OK && !why[0])
		snprintf(why, n, "%s: status %d: %s", what, rc,
			 ptrt_errmsg(g->rt));
	return rc;
}

static inline int
gpu_finish(GpuRun *g)
{
	ptrt_close(g->rt);
	return g->failed ? 1 : 0;
}

/* Runs one case in a child process with its own runtime and CUDA context:
 * a kernel that traps (an illegal tensor map, say) loses only that
 * context, so the cases after it still run and report (a hang ends the
 * child after 60 s: SIGALRM).  Call it before
 * gpu_open: a CUDA context does not survive fork().  Returns 1 when the
 * case failed (its FAIL line printed), 0 when it passed or skipped. */
static inline int
gpu_case_isolated(const char *program, const char *name,
		  void (*fn)(GpuRun *, char *, size_t))
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		/* a kernel that never completes ends the child, not the run */
		alarm(60);
		GpuRun c;
		gpu_open(&c, program);
		GPU_CASE(&c, name, fn);
		fflush(stderr);
		_exit(gpu_finish(&c));
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		printf("FAIL gpu/%s: cannot run it in a child process\n", name);
		return 1;
	}
	if (WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 77))
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
		return 1;
	printf("FAIL gpu/%s: its process %s %d\n", name,
	       WIFSIGNALED(st) ? "died of signal" : "exited with status",
	       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	fflush(stdout);
	return 1;
}

#endif
