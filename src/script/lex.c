/*
 * lex.c - source bytes -> tokens, with Python's indentation rules.
 *
 * Input: one registered source file.  Output: a TokenVec ending in TK_EOF.
 * Invariants: INDENT/DEDENT are balanced; every logical line that holds a
 * token ends in NEWLINE (also at end of file without a final newline);
 * inside brackets newlines and indentation are ignored.
 *
 * Policy: indentation is spaces only (a tab there is PT_E_LEX_TAB); a
 * dedent must return to the column of an enclosing block; a backslash
 * right before the end of a line joins the next line; strings are '...',
 * "...", and their triple-quoted forms with the r/u prefixes (b strings
 * are unsupported); NUL characters in a string are rejected.  An f-string
 * is TK_FSTART, then its literal pieces (TK_STR) and replacement fields
 * (TK_LBRACE, the field's tokens, TK_RBRACE), then TK_FEND; a field's
 * expression must not hold the outer quote, and conversions (`!r`) and
 * format specs (`:>4`) are PT_E_FSTRING_FIELD.
 * Lexing stops at the first error.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/lex.h"

#define MAX_BRACKETS 256

typedef struct Lexer {
	Ctx *c;
	uint32_t file;
	const char *s;
	size_t n, i;
	TokenVec *out;
	VEC(uint32_t) indents; /* indentation columns, outermost first */
	char brackets[MAX_BRACKETS];
	size_t bracket_at[MAX_BRACKETS];
	int depth;
	bool failed;
	bool line_has_tokens;
	int fdepth; /* f-strings open around the current field */
} Lexer;

/* f-strings nested in replacement fields beyond this are PT_E_PARSE_DEPTH
 * (each level is one recursion of lex_fstring). */
#define MAX_FSTRING_DEPTH 8

static const char *const keyword_names[] = {
	"",
#define KW(id, s) s,
	PT_KEYWORDS(KW)
#undef KW
};

static const struct {
	TokKind kind;
	const char *s;
} puncts[] = {
#define P(id, s) {TK_##id, s},
	PT_PUNCTS(P)
#undef P
};

const char *
keyword_name(Keyword k)
{
	return keyword_names[k];
}

const char *
tok_kind_name(TokKind k)
{
	switch (k) {
	case TK_EOF: return "end of file";
	case TK_NEWLINE: return "end of line";
	case TK_INDENT: return "indent";
	case TK_DEDENT: return "dedent";
	case TK_NAME: return "name";
	case TK_KW: return "keyword";
	case TK_INT: return "integer";
	case TK_FLOAT: return "float";
	case TK_STR: return "string";
	case TK_FSTART: return "f-string";
	case TK_FEND: return "end of f-string";
	default: break;
	}
	for (size_t i = 0; i < countof(puncts); i++)
		if (puncts[i].kind == k)
			return puncts[i].s;
	return "?";
}

static Span
span_at(Lexer *L, size_t lo, size_t hi)
{
	Span sp = {L->file, (uint32_t)lo, (uint32_t)hi};
	return sp;
}

static bool
lex_error(Lexer *L, int code, size_t at, const char *fmt, const char *arg)
{
	if (!L->failed)
		diag_error(L->c, code, span_at(L, at, at + 1), fmt, arg);
	L->failed = true;
	return false;
}

static Token *
push(Lexer *L, TokKind k, size_t lo, size_t hi)
{
	Token t = {0};
	t.kind = k;
	t.span = span_at(L, lo, hi);
	vec_push(&L->c->arena, L->out, t);
	if (k != TK_NEWLINE && k != TK_INDENT && k != TK_DEDENT)
		L->line_has_tokens = true;
	return &L->out->v[L->out->n - 1];
}

static int
peekc(Lexer *L, size_t k)
{
	return L->i + k < L->n ? (unsigned char)L->s[L->i + k] : -1;
}

static bool
is_ident_start(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       ch == '_';
}

static bool
is_ident(int ch)
{
	return is_ident_start(ch) || (ch >= '0' && ch <= '9');
}

static Keyword
keyword_of(const char *s, size_t n)
{
	for (size_t k = 1; k < countof(keyword_names); k++)
		if (strlen(keyword_names[k]) == n &&
		    !memcmp(keyword_names[k], s, n))
			return (Keyword)k;
	return KW_NOT_A_KEYWORD;
}

/* ---- numbers ---- */

static int
digit_value(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return 99;
}

/* Digits of base `base` with single underscores between them. */
static bool
scan_digits(Lexer *L, int base, uint64_t *v, bool *overflow, size_t *count)
{
	size_t start = L->i;
	*count = 0;
	for (;;) {
		int ch = peekc(L, 0);
		if (ch == '_' && *count > 0 && digit_value(peekc(L, 1)) < base) {
			L->i++;
			continue;
		}
		int d = digit_value(ch);
		if (d >= base)
			break;
		if (*v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			*overflow = true;
		*v = *v * (uint64_t)base + (uint64_t)d;
		(*count)++;
		L->i++;
	}
	(void)start;
	return *count > 0;
}

static bool
lex_float_tail(Lexer *L, size_t lo)
{
	/* [.digits][e[+-]digits] after the integer part; strtod rescans. */
	if (peekc(L, 0) == '.') {
		L->i++;
		while (is_ident(peekc(L, 0)) && peekc(L, 0) != 'e' &&
		       peekc(L, 0) != 'E') {
			if (digit_value(peekc(L, 0)) > 9 && peekc(L, 0) != '_')
				return lex_error(L, PT_E_LEX_NUMBER, lo,
						 "bad float literal%s", "");
			L->i++;
		}
	}
	if (peekc(L, 0) == 'e' || peekc(L, 0) == 'E') {
		L->i++;
		if (peekc(L, 0) == '+' || peekc(L, 0) == '-')
			L->i++;
		if (digit_value(peekc(L, 0)) > 9)
			return lex_error(L, PT_E_LEX_NUMBER, lo,
					 "bad float exponent%s", "");
		while (is_ident(peekc(L, 0))) {
			if (digit_value(peekc(L, 0)) > 9 && peekc(L, 0) != '_')
				return lex_error(L, PT_E_LEX_NUMBER, lo,
						 "bad float literal%s", "");
			L->i++;
		}
	}
	char buf[128];
	size_t k = 0;
	for (size_t j = lo; j < L->i; j++)
		if (L->s[j] != '_' && k + 1 < sizeof(buf))
			buf[k++] = L->s[j];
	buf[k] = 0;
	if (L->i - lo >= sizeof(buf))
		return lex_error(L, PT_E_LEX_NUMBER, lo,
				 "float literal too long%s", "");
	double d = strtod(buf, NULL);
	if (!isfinite(d))
		return lex_error(L, PT_E_LEX_NUMBER, lo,
				 "float literal out of range%s", "");
	Token *t = push(L, TK_FLOAT, lo, L->i);
	t->fval = d;
	return true;
}

static bool
lex_number(Lexer *L)
{
	size_t lo = L->i;
	uint64_t v = 0;
	bool overflow = false;
	size_t count = 0;
	int base = 10;
	int c1 = peekc(L, 1);
	if (peekc(L, 0) == '0' && (c1 == 'x' || c1 == 'X'))
		base = 16;
	else if (peekc(L, 0) == '0' && (c1 == 'o' || c1 == 'O'))
		base = 8;
	else if (peekc(L, 0) == '0' && (c1 == 'b' || c1 == 'B'))
		base = 2;
	if (base != 10) {
		L->i += 2;
		if (peekc(L, 0) == '_')
			L->i++;
		if (!scan_digits(L, base, &v, &overflow, &count))
			return lex_error(L, PT_E_LEX_NUMBER, lo,
					 "missing digits%s", "");
	} else if (peekc(L, 0) != '.') {
		scan_digits(L, 10, &v, &overflow, &count);
		int ch = peekc(L, 0);
		if (ch == '.' || ch == 'e' || ch == 'E')
			return lex_float_tail(L, lo);
		if (L->s[lo] == '0' && v != 0)
			return lex_error(L, PT_E_LEX_NUMBER, lo,
					 "leading zeros in a decimal literal%s",
					 "");
	} else {
		return lex_float_tail(L, lo);
	}
	if (is_ident(peekc(L, 0)))
		return lex_error(L, PT_E_LEX_NUMBER, lo,
				 "bad character in number literal%s", "");
	if (overflow)
		return lex_error(L, PT_E_LEX_NUMBER, lo,
				 "integer literal does not fit in 64 bits%s",
				 "");
	Token *t = push(L, TK_INT, lo, L->i);
	t->ival = v;
	return true;
}

/* ---- strings ---- */

static int
hex2(Lexer *L, size_t at)
{
	if (at + 2 > L->n)
		return -1;
	int a = digit_value((unsigned char)L->s[at]);
	int b = digit_value((unsigned char)L->s[at + 1]);
	return a < 16 && b < 16 ? a * 16 + b : -1;
}

/* One escape after a backslash at L->i - 1; appends the decoded byte. */
static bool
lex_escape(Lexer *L, StrBuf *b, size_t lo)
{
	int ch = peekc(L, 0);
	L->i++;
	switch (ch) {
	case 'n': sb_putc(b, '\n'); return true;
	case 't': sb_putc(b, '\t'); return true;
	case 'r': sb_putc(b, '\r'); return true;
	case '\\': sb_putc(b, '\\'); return true;
	case '\'': sb_putc(b, '\''); return true;
	case '"': sb_putc(b, '"'); return true;
	case '\n': return true;
	case 'x': {
		int v = hex2(L, L->i);
		if (v <= 0)
			return lex_error(L, PT_E_LEX_STRING, lo,
					 "bad \\x escape in string%s", "");
		L->i += 2;
		sb_putc(b, (char)v);
		return true;
	}
	case -1:
		return lex_error(L, PT_E_LEX_STRING, lo,
				 "unterminated string%s", "");
	default:
		sb_putc(b, '\\');
		L->i--;
		return true;
	}
}

static bool
lex_string(Lexer *L, size_t lo, bool raw)
{
	char q = L->s[L->i];
	bool triple = peekc(L, 1) == q && peekc(L, 2) == q;
	L->i += triple ? 3 : 1;
	StrBuf b;
	sb_init(&b, &L->c->arena);
	for (;;) {
		int ch = peekc(L, 0);
		if (ch == -1 || (ch == '\n' && !triple))
			return lex_error(L, PT_E_LEX_STRING, lo,
					 "unterminated string%s", "");
		if (ch == 0)
			return lex_error(L, PT_E_LEX_STRING, L->i,
					 "NUL character in string%s", "");
		if (ch == q && (!triple || (peekc(L, 1) == q &&
					    peekc(L, 2) == q))) {
			L->i += triple ? 3 : 1;
			break;
		}
		L->i++;
		if (ch == '\\' && !raw) {
			if (!lex_escape(L, &b, lo))
				return false;
		} else if (ch == '\\' && peekc(L, 0) != -1) {
			sb_putc(&b, '\\');
			sb_putc(&b, L->s[L->i++]);
		} else {
			sb_putc(&b, (char)ch);
		}
	}
	Token *t = push(L, TK_STR, lo, L->i);
	t->str = sb_cstr(&b);
	return true;
}

static bool lex_token(Lexer *L, bool *at_line_start);

/* The end of the replacement field starting at L->i (after its '{'): the
 * offset of its closing '}', skipping brackets and strings of the other
 * quote; SIZE_MAX after reporting an error. */
static size_t
fstring_field_end(Lexer *L, char q, size_t open)
{
	int depth = 0;
	for (size_t j = L->i; j < L->n; j++) {
		char ch = L->s[j];
		if (ch == q || ch == '\n' || ch == '\\')
			break;
		if (ch == '"' || ch == '\'') {
			size_t k = j + 1;
			while (k < L->n && L->s[k] != ch && L->s[k] != '\n' &&
			       L->s[k] != q)
				k++;
			if (k >= L->n || L->s[k] != ch)
				break;
			j = k;
		} else if (ch == '(' || ch == '[' || ch == '{') {
			depth++;
		} else if (ch == ')' || ch == ']' || (ch == '}' && depth > 0)) {
			depth--;
		} else if (ch == '}') {
			return j;
		} else if (depth == 0 && (ch == ':' || ch == '!') &&
			   !(ch == '!' && j + 1 < L->n && L->s[j + 1] == '=')) {
			lex_error(L, PT_E_FSTRING_FIELD, j,
				  "f-string conversions and format specs are "
				  "not supported (write the value itself)%s",
				  "");
			return SIZE_MAX;
		}
	}
	lex_error(L, PT_E_FSTRING_FIELD, open,
		  "f-string field without a closing '}' (a field may not "
		  "hold the string's own quote or a backslash)%s", "");
	return SIZE_MAX;
}

/* The tokens of one replacement field [L->i, end): lexed like code inside
 * brackets (newlines joined), into the same token array. */
static bool
lex_fstring_field(Lexer *L, size_t open, size_t end)
{
	Lexer F = *L;
	F.n = end;
	F.depth = 1;
	F.brackets[0] = '{';
	F.bracket_at[0] = open;
	F.fdepth = L->fdepth + 1;
	size_t first = L->out->n;
	bool dummy = false;
	while (!F.failed && F.i < F.n)
		lex_token(&F, &dummy);
	if (F.failed) {
		L->failed = true;
		return false;
	}
	if (F.depth != 1)
		return lex_error(L, PT_E_LEX_BRACKET, F.bracket_at[F.depth - 1],
				 "unclosed bracket in an f-string field%s", "");
	if (L->out->n == first)
		return lex_error(L, PT_E_FSTRING_FIELD, open,
				 "empty f-string field%s", "");
	L->i = end + 1;
	return true;
}

/* f"...": TK_FSTART, pieces and fields, TK_FEND (see the file comment). */
static bool
lex_fstring(Lexer *L, size_t lo, bool raw)
{
	if (L->fdepth >= MAX_FSTRING_DEPTH)
		return lex_error(L, PT_E_PARSE_DEPTH, lo,
				 "f-strings nested too deep%s", "");
	char q = L->s[L->i];
	if (peekc(L, 1) == q && peekc(L, 2) == q)
		return lex_error(L, PT_E_PARSE_UNSUPPORTED, lo,
				 "triple-quoted f-strings are not "
				 "supported%s", "");
	L->i++;
	push(L, TK_FSTART, lo, L->i);
	StrBuf b;
	sb_init(&b, &L->c->arena);
	size_t piece = L->i;
	for (;;) {
		int ch = peekc(L, 0);
		if (ch == -1 || ch == '\n')
			return lex_error(L, PT_E_LEX_STRING, lo,
					 "unterminated string%s", "");
		if (ch == 0)
			return lex_error(L, PT_E_LEX_STRING, L->i,
					 "NUL character in string%s", "");
		bool field = ch == '{' && peekc(L, 1) != '{';
		if (ch == q || field) {
			if (b.n) {
				Token *t = push(L, TK_STR, piece, L->i);
				t->str = sb_cstr(&b);
				sb_init(&b, &L->c->arena);
			}
			if (ch == q)
				break;
			size_t open = L->i++;
			push(L, TK_LBRACE, open, open + 1);
			size_t end = fstring_field_end(L, q, open);
			if (end == SIZE_MAX || !lex_fstring_field(L, open, end))
				return false;
			push(L, TK_RBRACE, end, end + 1);
			piece = L->i;
			continue;
		}
		L->i++;
		if ((ch == '{' || ch == '}') && peekc(L, 0) == ch) {
			L->i++;
			sb_putc(&b, (char)ch);
		} else if (ch == '}') {
			return lex_error(L, PT_E_FSTRING_FIELD, L->i - 1,
					 "single '}' in an f-string (write "
					 "'}}')%s", "");
		} else if (ch == '\\' && !raw) {
			if (!lex_escape(L, &b, lo))
				return false;
		} else {
			sb_putc(&b, (char)ch);
		}
	}
	L->i++;
	push(L, TK_FEND, L->i - 1, L->i);
	return true;
}

/* A name, or a string with a prefix (r"", u"", f"", rf""; b"" rejected). */
static bool
lex_name(Lexer *L)
{
	size_t lo = L->i;
	while (is_ident(peekc(L, 0)))
		L->i++;
	size_t n = L->i - lo;
	int q = peekc(L, 0);
	if ((q == '"' || q == '\'') && n <= 2) {
		bool raw = false, fmt = false;
		for (size_t j = lo; j < L->i; j++) {
			char ch = (char)(L->s[j] | 0x20);
			if (ch == 'b')
				return lex_error(L, PT_E_PARSE_UNSUPPORTED, lo,
						 "byte-strings are not "
						 "supported%s", "");
			if (ch == 'r')
				raw = true;
			else if (ch == 'f')
				fmt = true;
			else if (ch != 'u')
				return lex_error(L, PT_E_LEX_STRING, lo,
						 "bad string prefix%s", "");
		}
		return fmt ? lex_fstring(L, lo, raw) : lex_string(L, lo, raw);
	}
	Keyword kw = keyword_of(L->s + lo, n);
	Token *t = push(L, kw ? TK_KW : TK_NAME, lo, L->i);
	t->kw = kw;
	t->str = arena_strndup(&L->c->arena, L->s + lo, n);
	return true;
}

/* ---- punctuators and brackets ---- */

static bool
lex_punct(Lexer *L)
{
	size_t lo = L->i;
	for (size_t k = 0; k < countof(puncts); k++) {
		size_t len = strlen(puncts[k].s);
		if (L->i + len > L->n || memcmp(L->s + L->i, puncts[k].s, len))
			continue;
		TokKind kind = puncts[k].kind;
		char ch = puncts[k].s[0];
		if (kind == TK_LPAREN || kind == TK_LBRACK || kind == TK_LBRACE) {
			if (L->depth >= MAX_BRACKETS)
				return lex_error(L, PT_E_PARSE_DEPTH, lo,
						 "brackets nested too deep%s",
						 "");
			L->bracket_at[L->depth] = lo;
			L->brackets[L->depth++] = ch;
		} else if (kind == TK_RPAREN || kind == TK_RBRACK ||
			   kind == TK_RBRACE) {
			char open = ch == ')' ? '(' : ch == ']' ? '[' : '{';
			if (L->depth == 0 || L->brackets[L->depth - 1] != open)
				return lex_error(L, PT_E_LEX_BRACKET, lo,
						 "unmatched '%s'", puncts[k].s);
			L->depth--;
		}
		L->i += len;
		push(L, kind, lo, L->i);
		return true;
	}
	int ch = peekc(L, 0);
	char buf[8];
	if (ch >= 0x20 && ch < 0x7f)
		snprintf(buf, sizeof(buf), "'%c'", ch);
	else
		snprintf(buf, sizeof(buf), "0x%02x", ch);
	return lex_error(L, PT_E_LEX_CHAR, lo, "unexpected character %s", buf);
}

/* ---- lines and indentation ---- */

static void
end_line(Lexer *L, size_t at)
{
	if (L->line_has_tokens)
		push(L, TK_NEWLINE, at, at);
	L->line_has_tokens = false;
}

/* At the start of a physical line outside brackets: measures the
 * indentation and emits INDENT/DEDENT unless the line is blank. */
static bool
lex_indent(Lexer *L)
{
	size_t lo = L->i;
	uint32_t col = 0;
	for (;;) {
		int ch = peekc(L, 0);
		if (ch == ' ') {
			col++;
			L->i++;
		} else if (ch == '\t') {
			return lex_error(L, PT_E_LEX_TAB, L->i,
					 "tab in indentation (use spaces)%s",
					 "");
		} else if (ch == '\f' || ch == '\r') {
			L->i++;
		} else {
			break;
		}
	}
	int ch = peekc(L, 0);
	if (ch == '\n' || ch == '#' || ch == -1)
		return true; /* blank or comment-only line */
	uint32_t top = L->indents.v[L->indents.n - 1];
	if (col > top) {
		if (L->out->n == 0 || L->out->v[L->out->n - 1].kind != TK_NEWLINE)
			return lex_error(L, PT_E_LEX_INDENT, L->i,
					 "unexpected indent%s", "");
		vec_push(&L->c->arena, &L->indents, col);
		push(L, TK_INDENT, lo, L->i);
		return true;
	}
	while (col < L->indents.v[L->indents.n - 1]) {
		L->indents.n--;
		push(L, TK_DEDENT, L->i, L->i);
	}
	if (col != L->indents.v[L->indents.n - 1])
		return lex_error(L, PT_E_LEX_DEDENT, L->i,
				 "unindent does not match any outer "
				 "indentation level%s", "");
	return true;
}

static bool
lex_token(Lexer *L, bool *at_line_start)
{
	int ch = peekc(L, 0);
	if (ch == '\n') {
		if (L->depth == 0) {
			end_line(L, L->i);
			*at_line_start = true;
		}
		L->i++;
		return true;
	}
	if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f') {
		L->i++;
		return true;
	}
	if (ch == '#') {
		while (peekc(L, 0) != -1 && peekc(L, 0) != '\n')
			L->i++;
		return true;
	}
	if (ch == '\\') {
		int nx = peekc(L, 1);
		if (nx == '\n' || (nx == '\r' && peekc(L, 2) == '\n')) {
			L->i += nx == '\n' ? 2 : 3;
			return true;
		}
		return lex_error(L, PT_E_LEX_CHAR, L->i,
				 "backslash must end the line%s", "");
	}
	if (ch >= '0' && ch <= '9')
		return lex_number(L);
	if (ch == '.' && peekc(L, 1) >= '0' && peekc(L, 1) <= '9')
		return lex_number(L);
	if (is_ident_start(ch))
		return lex_name(L);
	if (ch == '"' || ch == '\'')
		return lex_string(L, L->i, false);
	return lex_punct(L);
}

bool
lex_source(Ctx *c, uint32_t file, TokenVec *out)
{
	const SourceFile *f = ctx_file(c, file);
	Lexer L = {0};
	L.c = c;
	L.file = file;
	L.s = f->text;
	L.n = f->len;
	L.out = out;
	vec_push(&c->arena, &L.indents, 0);
	bool at_line_start = true;
	while (!L.failed && L.i < L.n) {
		if (at_line_start && L.depth == 0) {
			at_line_start = false;
			if (!lex_indent(&L))
				break;
			continue;
		}
		at_line_start = false;
		lex_token(&L, &at_line_start);
	}
	if (!L.failed && L.depth > 0) {
		lex_error(&L, PT_E_LEX_BRACKET, L.bracket_at[L.depth - 1],
			  "unclosed bracket%s", "");
	}
	if (!L.failed) {
		end_line(&L, L.n);
		while (L.indents.n > 1) {
			L.indents.n--;
			push(&L, TK_DEDENT, L.n, L.n);
		}
	}
	push(&L, TK_EOF, L.n, L.n);
	return !L.failed;
}
