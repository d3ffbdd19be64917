/*
 * json.c - strict RFC 8259 reader into an arena DOM, and writer helpers.
 *
 * Input: bytes text[0..len).  Output: JsonValue tree (see json.h).
 * Invariants: the reader looks only at text[pos] with pos < len (every
 * peek is bounds-checked), recursion depth is capped at JSON_MAX_DEPTH,
 * and the first error stops the parse and is the one reported.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

typedef struct Reader {
	Arena *arena;
	const char *s;
	size_t len, pos;
	int depth;
	JsonError *err;
	bool failed;
} Reader;

static JsonValue *read_value(Reader *r);

static void
fail_at(Reader *r, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
fail_at(Reader *r, size_t off, const char *fmt, ...)
{
	if (r->failed)
		return;
	r->failed = true;
	if (!r->err)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err->msg, sizeof(r->err->msg), fmt, ap);
	va_end(ap);
	r->err->offset = off;
	r->err->line = 1;
	r->err->col = 1;
	for (size_t i = 0; i < off && i < r->len; i++) {
		if (r->s[i] == '\n') {
			r->err->line++;
			r->err->col = 1;
		} else {
			r->err->col++;
		}
	}
}

static int
peek(const Reader *r)
{
	return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1;
}

static void
skip_ws(Reader *r)
{
	while (r->pos < r->len) {
		char c = r->s[r->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		r->pos++;
	}
}

/* Describes the character at pos for messages. */
static const char *
what_is_here(const Reader *r, char buf[16])
{
	int c = peek(r);
	if (c < 0)
		return "end of input";
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, 16, "'%c'", c);
	else
		snprintf(buf, 16, "byte 0x%02x", c);
	return buf;
}

static JsonValue *
new_value(Reader *r, JsonKind k, size_t off)
{
	JsonValue *v = NEW(r->arena, JsonValue);
	v->kind = k;
	v->offset = off > UINT32_MAX ? UINT32_MAX : (uint32_t)off;
	return v;
}

static JsonValue *
read_literal(Reader *r, const char *word, JsonKind k, bool b)
{
	size_t n = strlen(word), start = r->pos;
	if (r->len - r->pos < n || memcmp(r->s + r->pos, word, n) != 0) {
		fail_at(r, start, "invalid literal (expected '%s')", word);
		return NULL;
	}
	r->pos += n;
	JsonValue *v = new_value(r, k, start);
	v->b = b;
	return v;
}

/* Number grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static size_t
scan_digits(Reader *r)
{
	size_t n = 0;
	while (peek(r) >= '0' && peek(r) <= '9') {
		r->pos++;
		n++;
	}
	return n;
}

static bool
scan_number(Reader *r, bool *integral)
{
	*integral = true;
	if (peek(r) == '-')
		r->pos++;
	if (peek(r) == '0') {
		r->pos++;
		if (peek(r) >= '0' && peek(r) <= '9') {
			fail_at(r, r->pos - 1, "number with a leading zero");
			return false;
		}
	} else if (scan_digits(r) == 0) {
		fail_at(r, r->pos, "expected a digit");
		return false;
	}
	if (peek(r) == '.') {
		*integral = false;
		r->pos++;
		if (scan_digits(r) == 0) {
			fail_at(r, r->pos, "expected a digit after '.'");
			return false;
		}
	}
	if (peek(r) == 'e' || peek(r) == 'E') {
		*integral = false;
		r->pos++;
		if (peek(r) == '+' || peek(r) == '-')
			r->pos++;
		if (scan_digits(r) == 0) {
			fail_at(r, r->pos, "expected a digit in the exponent");
			return false;
		}
	}
	return true;
}

/* Exact int64 value of an integral literal; false on overflow. */
static bool
integral_value(const char *p, size_t n, int64_t *out)
{
	bool neg = p[0] == '-';
	uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	uint64_t acc = 0;
	for (size_t i = neg; i < n; i++) {
		unsigned d = (unsigned)(p[i] - '0');
		if (acc > (limit - d) / 10)
			return false;
		acc = acc * 10 + d;
	}
	*out = neg ? (int64_t)(0 - acc) : (int64_t)acc;
	return true;
}

static JsonValue *
read_number(Reader *r)
{
	size_t start = r->pos;
	bool integral;
	if (!scan_number(r, &integral))
		return NULL;
	size_t n = r->pos - start;
	const char *p = r->s + start;
	int64_t iv;
	if (integral && integral_value(p, n, &iv)) {
		JsonValue *v = new_value(r, JSON_INT, start);
		v->i = iv;
		return v;
	}
	/* strtod needs a terminated copy; the grammar above already made
	 * sure the text is a valid number. */
	char *copy = arena_strndup(r->arena, p, n);
	double d = strtod(copy, NULL);
	if (!isfinite(d)) {
		fail_at(r, start, "number out of range");
		return NULL;
	}
	JsonValue *v = new_value(r, JSON_DOUBLE, start);
	v->d = d;
	return v;
}

static int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads XXXX after "\u"; -1 on error. */
static long
read_hex4(Reader *r)
{
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int d = hex_digit(peek(r));
		if (d < 0) {
			fail_at(r, r->pos, "expected 4 hex digits after \\u");
			return -1;
		}
		v = v * 16 + d;
		r->pos++;
	}
	return v;
}

static void
put_utf8(StrBuf *b, unsigned long cp)
{
	char buf[4];
	size_t n;
	if (cp < 0x80) {
		buf[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		buf[0] = (char)(0xc0 | (cp >> 6));
		buf[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		buf[0] = (char)(0xe0 | (cp >> 12));
		buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		buf[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		buf[0] = (char)(0xf0 | (cp >> 18));
		buf[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		buf[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		buf[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	sb_putn(b, buf, n);
}

/* \uXXXX, with a following \uXXXX when the first is a high surrogate. */
static bool
read_unicode_escape(Reader *r, StrBuf *b)
{
	size_t start = r->pos - 2;
	long hi = read_hex4(r);
	if (hi < 0)
		return false;
	if (hi >= 0xdc00 && hi <= 0xdfff) {
		fail_at(r, start, "lone low surrogate \\u%04lx", hi);
		return false;
	}
	if (hi < 0xd800 || hi > 0xdbff) {
		put_utf8(b, (unsigned long)hi);
		return true;
	}
	if (r->len - r->pos < 2 || r->s[r->pos] != '\\' ||
	    r->s[r->pos + 1] != 'u') {
		fail_at(r, start, "high surrogate \\u%04lx without a low one",
			hi);
		return false;
	}
	r->pos += 2;
	long lo = read_hex4(r);
	if (lo < 0)
		return false;
	if (lo < 0xdc00 || lo > 0xdfff) {
		fail_at(r, start, "high surrogate \\u%04lx without a low one",
			hi);
		return false;
	}
	put_utf8(b, 0x10000 + (((unsigned long)hi - 0xd800) << 10) +
			    ((unsigned long)lo - 0xdc00));
	return true;
}

static bool
read_escape(Reader *r, StrBuf *b)
{
	size_t start = r->pos;
	r->pos++; /* the backslash */
	int c = peek(r);
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *hit = c > 0 ? strchr(from, c) : NULL;
	if (hit) {
		r->pos++;
		sb_putc(b, to[hit - from]);
		return true;
	}
	if (c == 'u') {
		r->pos++;
		return read_unicode_escape(r, b);
	}
	fail_at(r, start, "invalid escape in string");
	return false;
}

/* Length of the valid UTF-8 sequence at pos (1..4), or 0 when invalid
 * (overlong forms, surrogates and code points past U+10FFFF are invalid). */
static size_t
utf8_seq_len(const Reader *r)
{
	const unsigned char *p = (const unsigned char *)r->s + r->pos;
	size_t avail = r->len - r->pos;
	unsigned c = p[0];
	size_t n;
	unsigned lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;
		if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (avail < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* A string after its opening quote position; returns the decoded text. */
static bool
read_string_raw(Reader *r, const char **out, size_t *out_len)
{
	StrBuf b;
	sb_init(&b, r->arena);
	size_t start = r->pos;
	r->pos++; /* opening quote */
	for (;;) {
		int c = peek(r);
		if (c < 0) {
			fail_at(r, start, "unterminated string");
			return false;
		}
		if (c == '"') {
			r->pos++;
			break;
		}
		if (c == '\\') {
			if (!read_escape(r, &b))
				return false;
		} else if (c < 0x20) {
			fail_at(r, r->pos, "control character 0x%02x in string",
				c);
			return false;
		} else if (c < 0x80) {
			sb_putc(&b, (char)c);
			r->pos++;
		} else {
			size_t n = utf8_seq_len(r);
			if (n == 0) {
				fail_at(r, r->pos, "invalid UTF-8 in string");
				return false;
			}
			sb_putn(&b, r->s + r->pos, n);
			r->pos += n;
		}
	}
	*out = sb_cstr(&b);
	*out_len = b.n;
	return true;
}

static JsonValue *
read_string(Reader *r)
{
	size_t start = r->pos;
	const char *s;
	size_t n;
	if (!read_string_raw(r, &s, &n))
		return NULL;
	JsonValue *v = new_value(r, JSON_STRING, start);
	v->str.s = s;
	v->str.len = n;
	return v;
}

static bool
expect_char(Reader *r, char c, const char *context)
{
	skip_ws(r);
	if (peek(r) == c) {
		r->pos++;
		return true;
	}
	char buf[16];
	fail_at(r, r->pos, "expected '%c' %s, found %s", c, context,
		what_is_here(r, buf));
	return false;
}

static JsonValue *
read_array(Reader *r)
{
	JsonValue *v = new_value(r, JSON_ARRAY, r->pos);
	VEC(JsonValue *) items = {0};
	r->pos++; /* '[' */
	skip_ws(r);
	if (peek(r) == ']') {
		r->pos++;
		return v;
	}
	for (;;) {
		JsonValue *item = read_value(r);
		if (!item)
			return NULL;
		vec_push(r->arena, &items, item);
		skip_ws(r);
		if (peek(r) == ']') {
			r->pos++;
			break;
		}
		if (!expect_char(r, ',', "or ']' in array"))
			return NULL;
	}
	v->arr.items = items.v;
	v->arr.n = items.n;
	return v;
}

/* Objects with at least this many members get a hash index (built while
 * reading, kept for json_get), so that duplicate keys and lookups cost
 * linear time on a hostile document with 100k keys. */
enum { HASH_MIN = 16 };

static uint32_t *
find_slot(uint32_t *index, size_t cap, const JsonMember *m, const char *key,
	  size_t len)
{
	size_t i = (size_t)hash_bytes(key, len) & (cap - 1);
	for (; index[i]; i = (i + 1) & (cap - 1)) {
		const JsonMember *o = &m[index[i] - 1];
		if (o->key_len == len && memcmp(o->key, key, len) == 0)
			break;
	}
	return &index[i];
}

/* Index of members m[0..n) (slot value = member + 1), cap a power of two
 * at least 2n. */
static uint32_t *
build_index(Arena *a, const JsonMember *m, size_t n, size_t *cap)
{
	size_t c = 32;
	while (c < 2 * n)
		c *= 2;
	uint32_t *index = NEWN(a, uint32_t, c);
	for (size_t i = 0; i < n; i++)
		*find_slot(index, c, m, m[i].key, m[i].key_len) = (uint32_t)i + 1;
	*cap = c;
	return index;
}

typedef struct KeySet {
	uint32_t *index;
	size_t cap;
} KeySet;

/* Whether key is among m[0..n); adds member n (just read) otherwise. */
static bool
has_key(Reader *r, KeySet *ks, const JsonMember *m, size_t n)
{
	const char *key = m[n].key;
	size_t len = m[n].key_len;
	if (n < HASH_MIN) {
		for (size_t i = 0; i < n; i++)
			if (m[i].key_len == len && memcmp(m[i].key, key, len) == 0)
				return true;
		return false;
	}
	if (n > UINT32_MAX / 2)
		return false; /* the arena fails long before */
	if (!ks->index || 2 * (n + 1) > ks->cap)
		ks->index = build_index(r->arena, m, n, &ks->cap);
	uint32_t *slot = find_slot(ks->index, ks->cap, m, key, len);
	if (*slot)
		return true;
	*slot = (uint32_t)n + 1;
	return false;
}

static bool
read_member(Reader *r, JsonMember *m)
{
	skip_ws(r);
	if (peek(r) != '"') {
		char buf[16];
		fail_at(r, r->pos, "expected a string key, found %s",
			what_is_here(r, buf));
		return false;
	}
	if (!read_string_raw(r, &m->key, &m->key_len))
		return false;
	if (!expect_char(r, ':', "after key"))
		return false;
	m->value = read_value(r);
	return m->value != NULL;
}

static JsonValue *
read_object(Reader *r)
{
	JsonValue *v = new_value(r, JSON_OBJECT, r->pos);
	VEC(JsonMember) members = {0};
	KeySet ks = {NULL, 0};
	r->pos++; /* '{' */
	skip_ws(r);
	if (peek(r) == '}') {
		r->pos++;
		return v;
	}
	for (;;) {
		JsonMember m;
		skip_ws(r);
		size_t key_at = r->pos;
		if (!read_member(r, &m))
			return NULL;
		vec_push(r->arena, &members, m);
		if (has_key(r, &ks, members.v, members.n - 1)) {
			fail_at(r, key_at, "duplicate key \"%.60s\"", m.key);
			return NULL;
		}
		skip_ws(r);
		if (peek(r) == '}') {
			r->pos++;
			break;
		}
		if (!expect_char(r, ',', "or '}' in object"))
			return NULL;
	}
	v->obj.members = members.v;
	v->obj.n = members.n;
	if (members.n >= HASH_MIN)
		v->obj.index = build_index(r->arena, members.v, members.n,
					   &v->obj.cap);
	return v;
}

static JsonValue *
read_nested(Reader *r, JsonValue *(*fn)(Reader *))
{
	if (r->depth >= JSON_MAX_DEPTH) {
		fail_at(r, r->pos, "nesting deeper than %d", JSON_MAX_DEPTH);
		return NULL;
	}
	r->depth++;
	JsonValue *v = fn(r);
	r->depth--;
	return v;
}

static JsonValue *
read_value(Reader *r)
{
	skip_ws(r);
	int c = peek(r);
	switch (c) {
	case '{':
		return read_nested(r, read_object);
	case '[':
		return read_nested(r, read_array);
	case '"':
		return read_string(r);
	case 't':
		return read_literal(r, "true", JSON_BOOL, true);
	case 'f':
		return read_literal(r, "false", JSON_BOOL, false);
	case 'n':
		return read_literal(r, "null", JSON_NULL, false);
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return read_number(r);
		char buf[16];
		fail_at(r, r->pos, "expected a value, found %s",
			what_is_here(r, buf));
		return NULL;
	}
}

JsonValue *
json_parse(Arena *a, const char *text, size_t len, JsonError *err)
{
	Reader r = {.arena = a, .s = text, .len = len, .err = err};
	if (err)
		memset(err, 0, sizeof(*err));
	JsonValue *v = read_value(&r);
	if (!v)
		return NULL;
	skip_ws(&r);
	if (r.pos != len) {
		char buf[16];
		fail_at(&r, r.pos, "unexpected %s after the value",
			what_is_here(&r, buf));
		return NULL;
	}
	return v;
}

/* ---- accessors ---- */

JsonValue *
json_get(const JsonValue *obj, const char *key)
{
	if (!obj || obj->kind != JSON_OBJECT)
		return NULL;
	size_t len = strlen(key);
	if (obj->obj.index) {
		uint32_t k = *find_slot(obj->obj.index, obj->obj.cap,
					obj->obj.members, key, len);
		return k ? obj->obj.members[k - 1].value : NULL;
	}
	for (size_t i = 0; i < obj->obj.n; i++) {
		const JsonMember *m = &obj->obj.members[i];
		if (m->key_len == len && memcmp(m->key, key, len) == 0)
			return m->value;
	}
	return NULL;
}

JsonValue *
json_at(const JsonValue *arr, size_t i)
{
	if (!arr || arr->kind != JSON_ARRAY || i >= arr->arr.n)
		return NULL;
	return arr->arr.items[i];
}

size_t
json_len(const JsonValue *v)
{
	if (v && v->kind == JSON_ARRAY)
		return v->arr.n;
	if (v && v->kind == JSON_OBJECT)
		return v->obj.n;
	return 0;
}

const char *
json_str(const JsonValue *v)
{
	return v && v->kind == JSON_STRING ? v->str.s : NULL;
}

bool
json_int(const JsonValue *v, int64_t *out)
{
	if (!v || v->kind != JSON_INT)
		return false;
	*out = v->i;
	return true;
}

bool
json_num(const JsonValue *v, double *out)
{
	if (v && v->kind == JSON_INT) {
		*out = (double)v->i;
		return true;
	}
	if (v && v->kind == JSON_DOUBLE) {
		*out = v->d;
		return true;
	}
	return false;
}

bool
json_bool(const JsonValue *v, bool *out)
{
	if (!v || v->kind != JSON_BOOL)
		return false;
	*out = v->b;
	return true;
}

bool
json_is(const JsonValue *v, JsonKind k)
{
	return v && v->kind == k;
}

const char *
json_kind_name(JsonKind k)
{
	static const char *const names[] = {
		[JSON_NULL] = "null",     [JSON_BOOL] = "boolean",
		[JSON_INT] = "integer",   [JSON_DOUBLE] = "number",
		[JSON_STRING] = "string", [JSON_ARRAY] = "array",
		[JSON_OBJECT] = "object",
	};
	return (unsigned)k < countof(names) ? names[k] : "?";
}

/* ---- writers ---- */

void
json_write_stringn(StrBuf *b, const char *s, size_t n)
{
	sb_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': sb_puts(b, "\\\""); break;
		case '\\': sb_puts(b, "\\\\"); break;
		case '\b': sb_puts(b, "\\b"); break;
		case '\f': sb_puts(b, "\\f"); break;
		case '\n': sb_puts(b, "\\n"); break;
		case '\r': sb_puts(b, "\\r"); break;
		case '\t': sb_puts(b, "\\t"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				sb_printf(b, "\\u%04x", c);
			else
				sb_putc(b, (char)c);
		}
	}
	sb_putc(b, '"');
}

void
json_write_string(StrBuf *b, const char *s)
{
	json_write_stringn(b, s, strlen(s));
}

void
json_write_int(StrBuf *b, int64_t v)
{
	sb_printf(b, "%lld", (long long)v);
}

void
json_write_double(StrBuf *b, double v)
{
	if (!isfinite(v)) {
		sb_puts(b, "null");
		return;
	}
	char buf[40];
	/* The fewest significant digits that read back exactly; 17 always
	 * does for IEEE binary64. */
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	sb_puts(b, buf);
	/* Keep it a double when read back: "1" would come back as an int. */
	if (!strpbrk(buf, ".eE"))
		sb_puts(b, ".0");
}

void
json_write_value(StrBuf *b, const JsonValue *v)
{
	switch (v->kind) {
	case JSON_NULL: sb_puts(b, "null"); break;
	case JSON_BOOL: sb_puts(b, v->b ? "true" : "false"); break;
	case JSON_INT: json_write_int(b, v->i); break;
	case JSON_DOUBLE: json_write_double(b, v->d); break;
	case JSON_STRING: json_write_stringn(b, v->str.s, v->str.len); break;
	case JSON_ARRAY:
		sb_putc(b, '[');
		for (size_t i = 0; i < v->arr.n; i++) {
			if (i)
				sb_putc(b, ',');
			json_write_value(b, v->arr.items[i]);
		}
		sb_putc(b, ']');
		break;
	case JSON_OBJECT:
		sb_putc(b, '{');
		for (size_t i = 0; i < v->obj.n; i++) {
			const JsonMember *m = &v->obj.members[i];
			if (i)
				sb_putc(b, ',');
			json_write_stringn(b, m->key, m->key_len);
			sb_putc(b, ':');
			json_write_value(b, m->value);
		}
		sb_putc(b, '}');
		break;
	}
}
