/*
 * frontend.c - the front-end benchmark (`make bench-frontend`).
 *
 * For each script named on the command line, in one process: parse,
 * lower and print it N times (pt_load + pt_print on one context), then
 * write its IR as JSON and read that back N times (pt_to_json + pt_load
 * of the JSON).  Reports per file the median and minimum microseconds of
 * one iteration and the peak bytes the context held, counted by a
 * wrapping allocator (the arena is the only thing that allocates, and
 * each pt_load resets it, so this is the memory of one compile).
 *
 *   bench_frontend [-n N] FILE...
 *
 * A benchmark, not a test: it fails only when a file does not load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptxtile.h"

typedef struct Counter {
	size_t cur, peak;
} Counter;

/* realloc-style allocator that keeps the block size in a header. */
static void *
counting_realloc(void *ud, void *ptr, size_t size)
{
	Counter *c = ud;
	size_t old = 0;
	char *p = ptr ? (char *)ptr - 16 : NULL;
	if (p)
		memcpy(&old, p, sizeof(old));
	if (size == 0) {
		free(p);
		c->cur -= old;
		return NULL;
	}
	char *q = realloc(p, size + 16);
	if (!q)
		return NULL;
	memcpy(q, &size, sizeof(size));
	c->cur = c->cur - old + size;
	if (c->cur > c->peak)
		c->peak = c->cur;
	return q + 16;
}

static double
now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	fclose(f);
	if (s) {
		s[n] = 0;
		*len = (size_t)n;
	}
	return s;
}

/* One timed iteration: script -> IR -> canonical text. */
static int
run_script(pt_ctx *ctx, const char *name, const char *text, size_t len)
{
	pt_module *m;
	const char *out;
	if (pt_load(ctx, name, text, len, &m) != PT_OK)
		return -1;
	return pt_print(ctx, m, &out) == PT_OK ? 0 : -1;
}

/* The IR of text as JSON (malloc'd copy), or NULL. */
static char *
json_of(pt_ctx *ctx, const char *name, const char *text, size_t len)
{
	pt_module *m;
	const char *j;
	if (pt_load(ctx, name, text, len, &m) != PT_OK ||
	    pt_to_json(ctx, m, &j) != PT_OK)
		return NULL;
	char *copy = malloc(strlen(j) + 1);
	if (copy)
		strcpy(copy, j);
	return copy;
}

/* One timed iteration: JSON -> IR -> JSON. */
static int
run_json(pt_ctx *ctx, const char *json)
{
	pt_module *m;
	const char *out;
	if (pt_load(ctx, "bench.json", json, strlen(json), &m) != PT_OK)
		return -1;
	return pt_to_json(ctx, m, &out) == PT_OK ? 0 : -1;
}

static void
stats(double *t, int n, double *median, double *min)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	*median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	*min = t[0];
}

static int
bench_file(const char *path, int n, double *t)
{
	size_t len;
	char *text = slurp(path, &len);
	Counter cnt = {0, 0};
	pt_allocator al = {counting_realloc, &cnt};
	pt_ctx *ctx = text ? pt_ctx_new(&al) : NULL;
	char *json = ctx ? json_of(ctx, path, text, len) : NULL;
	int rc = json ? 0 : -1;
	double med, min, jmed, jmin;
	for (int i = 0; i < n && rc == 0; i++) {
		double t0 = now_us();
		rc = run_script(ctx, path, text, len);
		t[i] = now_us() - t0;
	}
	size_t peak = cnt.peak;
	if (rc == 0)
		stats(t, n, &med, &min);
	for (int i = 0; i < n && rc == 0; i++) {
		double t0 = now_us();
		rc = run_json(ctx, json);
		t[i] = now_us() - t0;
	}
	if (rc == 0) {
		stats(t, n, &jmed, &jmin);
		const char *base = strrchr(path, '/');
		printf("%-26s %9.1f %9.1f %9.1f %9.1f %10zu\n",
		       base ? base + 1 : path, med, min, jmed, jmin, peak);
	} else {
		fprintf(stderr, "bench_frontend: %s does not load\n", path);
	}
	free(json);
	pt_ctx_free(ctx);
	free(text);
	return rc;
}

int
main(int argc, char **argv)
{
	int n = 1000, first = 1, bad = 0;
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		n = atoi(argv[2]);
		first = 3;
	}
	if (n < 1 || first >= argc) {
		fprintf(stderr, "usage: bench_frontend [-n N] FILE...\n");
		return 2;
	}
	double *t = malloc(sizeof(double) * (size_t)n);
	if (!t)
		return 2;
	printf("%d iterations per file; microseconds per iteration\n", n);
	printf("%-26s %9s %9s %9s %9s %10s\n", "file", "script", "min",
	       "json", "min", "peak bytes");
	printf("%-26s %9s %9s %9s %9s %10s\n", "", "median", "", "median",
	       "", "");
	for (int i = first; i < argc; i++)
		bad |= bench_file(argv[i], n, t) != 0;
	free(t);
	return bad;
}
