/*
 * suggest.c - "did you mean": the candidate nearest to a misspelt name
 * by edit distance (insertions, deletions, substitutions, and swaps of
 * neighbours), accepted only when close enough to be a typo.
 */
#include <string.h>

#include "base/base.h"

#define SUGGEST_MAX_LEN 64

/* Optimal string alignment distance of a and b (both short). */
static int
distance(const char *a, const char *b)
{
	int n = (int)strlen(a), m = (int)strlen(b);
	if (n > SUGGEST_MAX_LEN || m > SUGGEST_MAX_LEN)
		return SUGGEST_MAX_LEN;
	int d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
	for (int i = 0; i <= n; i++)
		d[i][0] = i;
	for (int j = 0; j <= m; j++)
		d[0][j] = j;
	for (int i = 1; i <= n; i++) {
		for (int j = 1; j <= m; j++) {
			int c = a[i - 1] != b[j - 1];
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + c < v)
				v = d[i - 1][j - 1] + c;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[n][m];
}

const char *
suggest_name(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	int best_d = 0, len = (int)strlen(word);
	int limit = len <= 3 ? 1 : len <= 8 ? 2 : 3;
	for (size_t i = 0; i < n; i++) {
		if (!cands[i])
			continue;
		int d = distance(word, cands[i]);
		/* a prefix of the right name ("lane" for "laneid") counts */
		if (!strncmp(cands[i], word, (size_t)len) && len >= 3)
			d = d < 2 ? d : 2;
		if (d <= limit && (!best || d < best_d)) {
			best = cands[i];
			best_d = d;
		}
	}
	return best;
}
