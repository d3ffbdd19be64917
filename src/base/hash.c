/*
 * hash.c - FNV-1a hashing and a string set with open addressing.
 *
 * Used wherever input decides how many names or keys are compared (JSON
 * object keys, kernel and parameter names), so that a hostile document
 * with many keys costs linear, not quadratic, time.
 */
#include <string.h>

#include "base/base.h"

uint64_t
hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 14695981039346656037u;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211u;
	}
	return h;
}

static size_t
find_slot(const StrSet *set, const char *s)
{
	size_t mask = set->cap - 1;
	size_t i = (size_t)hash_bytes(s, strlen(s)) & mask;
	while (set->slot[i] && strcmp(set->slot[i], s) != 0)
		i = (i + 1) & mask;
	return i;
}

bool
strset_has(const StrSet *set, const char *s)
{
	return set->cap && set->slot[find_slot(set, s)];
}

static void
grow(Arena *a, StrSet *set)
{
	StrSet bigger = {NULL, 0, set->cap ? set->cap * 2 : 16};
	bigger.slot = NEWN(a, const char *, bigger.cap);
	for (size_t i = 0; i < set->cap; i++)
		if (set->slot[i])
			bigger.slot[find_slot(&bigger, set->slot[i])] =
				set->slot[i];
	bigger.n = set->n;
	*set = bigger;
}

bool
strset_add(Arena *a, StrSet *set, const char *s)
{
	if (2 * (set->n + 1) > set->cap)
		grow(a, set);
	size_t i = find_slot(set, s);
	if (set->slot[i])
		return false;
	set->slot[i] = s;
	set->n++;
	return true;
}
