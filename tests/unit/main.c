/*
 * main.c - runs the registered unit tests (all, or those named on the
 * command line) and prints PASS/FAIL lines for tests/run.sh.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "test.h"

#define X(name) void test_##name(TestCtx *t);
#include "unit_list.h"
#undef X

static const struct {
	const char *name;
	void (*fn)(TestCtx *);
} tests[] = {
#define X(name) {#name, test_##name},
#include "unit_list.h"
#undef X
};

void
test_fail(TestCtx *t, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "  %s:%d: %s: ", file, line, t->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	t->failures++;
}

static int
selected(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strstr(name, argv[i]))
			return 1;
	return 0;
}

int
main(int argc, char **argv)
{
	int failed = 0;
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (!selected(tests[i].name, argc, argv))
			continue;
		TestCtx t = {tests[i].name, 0};
		tests[i].fn(&t);
		printf("%s unit/%s\n", t.failures ? "FAIL" : "PASS",
		       tests[i].name);
		fflush(stdout);
		failed += t.failures != 0;
	}
	return failed != 0;
}
