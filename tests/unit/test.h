/*
 * test.h - the unit test harness.  A test is
 *
 *     TEST(lexer_dedent) { CHECK(x == 1); CHECK_STR(a, "b"); }
 *
 * at the start of a line in a tests/unit/test_*.c file; the Makefile registers
 * every such name.  A check failure is reported and the test goes on.
 */
#ifndef PT_TEST_H
#define PT_TEST_H

#include <stdint.h>
#include <string.h>

typedef struct TestCtx {
	const char *name;
	int failures;
} TestCtx;

void test_fail(TestCtx *t, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define TEST(name) void test_##name(TestCtx *t); void test_##name(TestCtx *t)

#define CHECK(c)                                                           \
	((c) ? (void)0 : test_fail(t, __FILE__, __LINE__, "%s", #c))
#define CHECK_INT(a, b)                                                    \
	do {                                                               \
		long long a_ = (long long)(a), b_ = (long long)(b);        \
		if (a_ != b_)                                              \
			test_fail(t, __FILE__, __LINE__,                   \
				  "%s == %lld, expected %lld", #a, a_, b_);\
	} while (0)
#define CHECK_STR(a, b)                                                    \
	do {                                                               \
		const char *a_ = (a), *b_ = (b);                           \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                     \
			test_fail(t, __FILE__, __LINE__,                   \
				  "%s == \"%s\", expected \"%s\"", #a,     \
				  a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} while (0)

#endif
