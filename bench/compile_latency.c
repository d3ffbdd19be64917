/*
 * compile_latency.c - in-process time of ptxtile script -> PTX.
 *
 * Usage: compile_latency FILE TARGET [N]
 * Prints the mean milliseconds of N (default 200) pt_load + pt_compile
 * runs on one context, so that process start-up (several milliseconds on
 * small machines, the same for every tool) does not hide the compiler's
 * own time.  bench/compile_latency.sh compares it with ptxas and nvcc.
 * LINEINFO=1 in the environment adds .file/.loc (--lineinfo).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptxtile.h"

static double
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	if (b)
		b[n] = 0;
	*len = (size_t)n;
	return b;
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: compile_latency FILE TARGET [N]\n");
		return 2;
	}
	int n = argc > 3 ? atoi(argv[3]) : 200;
	size_t len;
	char *text = slurp(argv[1], &len);
	pt_ctx *c = pt_ctx_new(NULL);
	/* LINEINFO=1: with .file/.loc (ptxtile compile --lineinfo) */
	if (c && getenv("LINEINFO") && !strcmp(getenv("LINEINFO"), "1"))
		pt_set_lineinfo(c, 1);
	if (!text || !c || n < 1)
		return 2;
	double t0 = now_ms();
	for (int i = 0; i < n; i++) {
		pt_module *m;
		const char *ptx, *meta;
		if (pt_load(c, argv[1], text, len, &m) ||
		    pt_compile(c, m, argv[2], &ptx, &meta)) {
			fputs(pt_diag_render(c, PT_DIAG_SHORT), stderr);
			return 1;
		}
	}
	printf("%.4f\n", (now_ms() - t0) / n);
	pt_ctx_free(c);
	free(text);
	return 0;
}
