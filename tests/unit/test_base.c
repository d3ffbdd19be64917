/* Unit tests of src/base: arena, vectors, string buffers, diagnostics. */
#include <setjmp.h>

#include "base/base.h"
#include "test.h"

TEST(arena_alloc_is_zeroed_and_aligned)
{
	Arena a;
	arena_init(&a, NULL);
	for (int i = 1; i < 2000; i += 37) {
		unsigned char *p = arena_alloc(&a, (size_t)i);
		CHECK(((uintptr_t)p & 15) == 0);
		for (int k = 0; k < i; k++)
			CHECK(p[k] == 0);
		memset(p, 0xab, (size_t)i);
	}
	char *big = arena_alloc(&a, 1 << 20);
	CHECK(big != NULL);
	arena_free(&a);
}

TEST(arena_oom_longjmps)
{
	Arena a;
	jmp_buf jb;
	arena_init(&a, NULL);
	a.fail_after = 2;
	a.oom = &jb;
	volatile int reached = 0;
	if (setjmp(jb) == 0) {
		arena_alloc(&a, 100);        /* first block */
		arena_alloc(&a, 200 * 1024); /* second request fails */
		reached = 1;
	}
	CHECK_INT(reached, 0);
	arena_free(&a);
}

TEST(vec_and_strbuf_grow)
{
	Arena a;
	arena_init(&a, NULL);
	VEC(int) v = {0};
	for (int i = 0; i < 1000; i++)
		vec_push(&a, &v, i * 3);
	CHECK_INT(v.n, 1000);
	CHECK_INT(v.v[999], 2997);
	StrBuf b;
	sb_init(&b, &a);
	for (int i = 0; i < 100; i++)
		sb_printf(&b, "%d,", i);
	CHECK(strncmp(sb_cstr(&b), "0,1,2,", 6) == 0);
	CHECK_INT(b.n, 290);
	arena_free(&a);
}

TEST(diag_render_full_and_short)
{
	pt_ctx *c = pt_ctx_new(NULL);
	uint32_t f = ctx_add_source(c, "k.py", "a = 1\nbb = @\n", 13);
	Span sp = {f, 11, 12};
	CHECK(!diag_error(c, PT_E_INTERNAL, sp, "bad %s", "thing"));
	CHECK_STR(pt_diag_render(c, PT_DIAG_SHORT), "E0004 2:6\n");
	CHECK_STR(pt_diag_render(c, PT_DIAG_FULL),
		  "k.py:2:6: error[E0004]: bad thing\n    bb = @\n         ^\n");
	char buf[8];
	CHECK_STR(pt_code_name(PT_E_NOMEM, buf), "E0001");
	CHECK(pt_code_name(9999, buf) == NULL);
	pt_ctx_free(c);
}

TEST(target_names_round_trip)
{
	for (int i = 0; i < TGT_COUNT; i++) {
		Target tg;
		CHECK(target_parse(target_name((Target)i), &tg));
		CHECK_INT(tg, i);
	}
	Target tg;
	CHECK(!target_parse("sm_75", &tg));
	CHECK_INT(target_sm(TGT_SM_100A), 100);
}
