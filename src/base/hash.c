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

static size_t
id_slot(const DenseIds *m, int64_t id)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)hash_bytes(&id, sizeof(id)) & mask;
	while (m->key[i] && m->key[i] != id + 1)
		i = (i + 1) & mask;
	return i;
}

static void
id_grow(Arena *a, DenseIds *m)
{
	DenseIds big = {NULL, NULL, m->n, m->cap ? m->cap * 2 : 64};
	big.key = NEWN(a, int64_t, big.cap);
	big.dense = NEWN(a, size_t, big.cap);
	for (size_t i = 0; i < m->cap; i++)
		if (m->key[i]) {
			size_t j = id_slot(&big, m->key[i] - 1);
			big.key[j] = m->key[i];
			big.dense[j] = m->dense[i];
		}
	*m = big;
}

/* The dense index of id, assigning the next one when id is new. */
size_t
dense_index(Arena *a, DenseIds *m, int64_t id)
{
	if (2 * (m->n + 1) > m->cap)
		id_grow(a, m);
	size_t i = id_slot(m, id);
	if (!m->key[i]) {
		m->key[i] = id + 1;
		m->dense[i] = m->n++;
	}
	return m->dense[i];
}

/* The dense index of id; SIZE_MAX when it has none. */
size_t
dense_find(const DenseIds *m, int64_t id)
{
	if (!m->cap)
		return SIZE_MAX;
	size_t i = id_slot(m, id);
	return m->key[i] ? m->dense[i] : SIZE_MAX;
}
