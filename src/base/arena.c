/*
 * arena.c - the per-compile bump allocator, vectors and string buffers.
 *
 * Blocks come from the caller's pt_allocator.  Nothing is freed one by one;
 * arena_free drops every block.  When a block cannot be had the arena
 * longjmps to its oom target, so callers never check for NULL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* Under ASan every block starts poisoned and each allocation unpoisons
 * exactly the bytes asked for, so an overflow into the padding or the
 * next allocation of the same block is reported like a heap overflow. */
#if defined(__SANITIZE_ADDRESS__)
#define PT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PT_ASAN 1
#endif
#endif
#ifdef PT_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct ArenaBlock {
	ArenaBlock *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

enum { BLOCK_MIN = 64 * 1024 };

static void *
default_realloc(void *ud, void *p, size_t size)
{
	(void)ud;
	if (size == 0) {
		free(p);
		return NULL;
	}
	return realloc(p, size);
}

void
pt_assert_fail(const char *expr, const char *file, int line)
{
	fprintf(stderr, "ptxtile: internal error: %s:%d: assertion '%s'\n",
		file, line, expr);
	abort();
}

void
arena_init(Arena *a, const pt_allocator *alloc)
{
	memset(a, 0, sizeof(*a));
	if (alloc && alloc->realloc)
		a->alloc = *alloc;
	else
		a->alloc.realloc = default_realloc;
}

void
arena_free(Arena *a)
{
	ArenaBlock *b = a->head;
	while (b) {
		ArenaBlock *next = b->next;
		UNPOISON(b->data, b->size);
		a->alloc.realloc(a->alloc.ud, b, 0);
		b = next;
	}
	a->head = NULL;
	a->total = 0;
}

/* No memory, or over the budget: jumps to the oom target when set. */
static void *
arena_fail(Arena *a, bool over_budget)
{
	a->over_budget = over_budget;
	if (a->oom)
		longjmp(*a->oom, 1);
	return NULL;
}

static ArenaBlock *
new_block(Arena *a, size_t need)
{
	size_t size = need > BLOCK_MIN ? need : BLOCK_MIN;
	ArenaBlock *b = NULL;
	if (a->limit && (size > a->limit || a->total > a->limit - size))
		return arena_fail(a, true);
	a->requests++;
	if (!(a->fail_after && a->requests >= a->fail_after) &&
	    size < SIZE_MAX / 2)
		b = a->alloc.realloc(a->alloc.ud, NULL,
				     sizeof(ArenaBlock) + size);
	if (!b)
		return arena_fail(a, false);
	a->total += size;
	POISON(b->data, size);
	b->used = 0;
	b->size = size;
	b->next = a->head;
	a->head = b;
	return b;
}

/* Uninitialised arena memory, for callers that overwrite it at once
 * (copies, string buffers): zeroing it first showed up in profiles. */
static void *
arena_bump(Arena *a, size_t size)
{
	size_t want = size;
	if (size > SIZE_MAX / 4) /* a wrapped size from input */
		return arena_fail(a, false);
	size = (size + 15) & ~(size_t)15;
	if (size == 0)
		size = 16;
	ArenaBlock *b = a->head;
	if (!b || b->size - b->used < size) {
		b = new_block(a, size);
		if (!b)
			return NULL;
	}
	void *p = b->data + b->used;
	b->used += size;
	UNPOISON(p, want);
	return p;
}

void *
arena_alloc(Arena *a, size_t size)
{
	void *p = arena_bump(a, size);
	if (p)
		memset(p, 0, size);
	return p;
}

void *
arena_alloc_n(Arena *a, size_t elem, size_t n)
{
	size_t size;
	if (ckd_mulz(&size, elem, n))
		return arena_fail(a, false);
	return arena_alloc(a, size);
}

void *
arena_dup(Arena *a, const void *p, size_t size)
{
	void *q = arena_bump(a, size);
	if (q && size)
		memcpy(q, p, size);
	return q;
}

char *
arena_strndup(Arena *a, const char *s, size_t n)
{
	char *q = arena_bump(a, n + 1);
	if (q) {
		memcpy(q, s, n);
		q[n] = 0;
	}
	return q;
}

char *
arena_strdup(Arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *
arena_vprintf(Arena *a, const char *fmt, va_list ap)
{
	/* short texts (most) are formatted once, into a stack buffer */
	char buf[256];
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap2);
	va_end(ap2);
	if (n < 0)
		n = 0;
	if ((size_t)n < sizeof(buf))
		return arena_strndup(a, buf, (size_t)n);
	char *s = arena_alloc(a, (size_t)n + 1);
	if (s)
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *
arena_printf(Arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return s;
}

void
vec_grow(Arena *a, void **v, size_t *cap, size_t elem, size_t need)
{
	size_t ncap = *cap ? *cap * 2 : 8, bytes;
	while (ncap < need && ncap < SIZE_MAX / 2)
		ncap *= 2;
	if (ckd_mulz(&bytes, ncap, elem)) {
		arena_fail(a, false);
		return;
	}
	/* the slots past the old ones start zeroed, as from arena_alloc */
	unsigned char *nv = arena_bump(a, bytes);
	if (!nv)
		return;
	if (*v)
		memcpy(nv, *v, *cap * elem);
	memset(nv + *cap * elem, 0, (ncap - *cap) * elem);
	*v = nv;
	*cap = ncap;
}

void
sb_init(StrBuf *b, Arena *a)
{
	memset(b, 0, sizeof(*b));
	b->arena = a;
}

static void
sb_reserve(StrBuf *b, size_t extra)
{
	if (b->n + extra + 1 <= b->cap)
		return;
	size_t ncap = b->cap ? b->cap * 2 : 256, need;
	if (ckd_addz(&need, b->n, extra) || ckd_addz(&need, need, 1)) {
		arena_fail(b->arena, false);
		return;
	}
	while (ncap < need && ncap < SIZE_MAX / 2)
		ncap *= 2;
	char *ns = arena_bump(b->arena, ncap);
	if (b->s)
		memcpy(ns, b->s, b->n);
	b->s = ns;
	b->cap = ncap;
}

void
sb_putn(StrBuf *b, const char *s, size_t n)
{
	sb_reserve(b, n);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

void
sb_putc(StrBuf *b, char c)
{
	sb_putn(b, &c, 1);
}

void
sb_puts(StrBuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

void
sb_printf(StrBuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

void
sb_vprintf(StrBuf *b, const char *fmt, va_list ap)
{
	/* format straight into the free space; only a text that does not
	 * fit is formatted a second time, after growing */
	va_list ap2;
	sb_reserve(b, 64);
	va_copy(ap2, ap);
	int n = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap2);
	va_end(ap2);
	if (n <= 0) {
		b->s[b->n] = 0;
		return;
	}
	if ((size_t)n >= b->cap - b->n) {
		sb_reserve(b, (size_t)n);
		vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
	}
	b->n += (size_t)n;
}

const char *
sb_cstr(StrBuf *b)
{
	sb_reserve(b, 0);
	b->s[b->n] = 0;
	return b->s;
}
