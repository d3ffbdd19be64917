/*
 * printf_fmt.c - the conversions of a printf format string as CUDA's
 * device vprintf reads them: the compiler checks T.cuda.printf's
 * arguments against them and lays the argument buffer out by them, and
 * the emulator formats the same buffer with them.
 *
 * Accepted: %%, flags [-+ #0], a width and a precision of digits (no *),
 * length hh h l ll z, conversions d i u x X o c f F e E g G a A.  %s, %p
 * and %n are refused: the first two read device pointers whose text the
 * emulator could not reproduce, the last writes memory.
 */
#include <ctype.h>
#include <string.h>

#include "base/base.h"

/* A field of at most 3 digits (width, precision): vprintf's own limit is
 * not documented, and nothing wider is useful. */
static size_t
digits(const char *s, size_t i, bool *bad)
{
	size_t n = 0;
	while (isdigit((unsigned char)s[i + n]))
		n++;
	*bad |= n > 3;
	return i + n;
}

size_t
pf_scan(const char *s, PfSpec *out, const char **why)
{
	memset(out, 0, sizeof *out);
	*why = NULL;
	if (s[0] != '%')
		return 0;
	if (s[1] == '%') {
		out->conv = '%';
		return 2;
	}
	size_t i = 1;
	bool bad = false;
	while (s[i] && strchr("-+ #0", s[i]))
		i++;
	if (i > 8)
		bad = true;
	i = digits(s, i, &bad);
	if (s[i] == '.')
		i = digits(s, i + 1, &bad);
	if (s[i] == '*') {
		*why = "a '*' width or precision (vprintf takes no such argument)";
		return 0;
	}
	if (bad) {
		*why = "a width or precision of more than 3 digits";
		return 0;
	}
	size_t head = i; /* flags, width, precision */
	int wide = 0;    /* 0: int, 1: 64-bit (l, ll, z) */
	if (s[i] == 'h')
		i += s[i + 1] == 'h' ? 2 : 1;
	else if (s[i] == 'l')
		i += s[i + 1] == 'l' ? 2 : 1, wide = 1;
	else if (s[i] == 'z')
		i++, wide = 1;
	char c = s[i];
	if (!c) {
		*why = "a '%' at the end of the format";
		return 0;
	}
	if (strchr("diouxXc", c)) {
		if (c == 'c' && wide) {
			*why = "%lc (wide characters)";
			return 0;
		}
		bool sgn = c == 'd' || c == 'i' || c == 'c';
		out->arg = wide ? (sgn ? PF_INT64 : PF_UINT64)
				: (sgn ? PF_INT : PF_UINT);
	} else if (strchr("fFeEgGaA", c)) {
		out->arg = PF_DOUBLE; /* a float argument is promoted */
	} else {
		*why = c == 's'	  ? "%s (a device string pointer)"
		       : c == 'p' ? "%p (a device pointer)"
		       : c == 'n' ? "%n (it writes memory)"
				  : "an unknown conversion";
		return 0;
	}
	out->conv = c;
	if (head < sizeof out->head) {
		memcpy(out->head, s, head);
		out->head[head] = '\0';
	}
	return i + 1;
}
