/*
 * json.h - a small generic JSON reader (DOM) and writer helpers.
 *
 * Input: UTF-8 text and a length (no NUL needed).  Output: a tree of
 * JsonValue nodes in the caller's arena, or NULL and a JsonError with the
 * byte offset, line and column of the first problem.  The reader is strict
 * RFC 8259 (no comments, no trailing commas, no leading zeros, no lone
 * surrogates, valid UTF-8 only, no duplicate object keys), limits nesting
 * to JSON_MAX_DEPTH and never reads past len.  Numbers that are integral
 * (no fraction or exponent) and fit in int64 are JSON_INT; every other
 * number is JSON_DOUBLE (one too large for a double is an error).
 * Object members keep their text order.
 *
 * Writers append to a StrBuf; json_write_double prints the shortest text
 * that reads back to the same double.
 */
#ifndef PT_JSON_H
#define PT_JSON_H

#include "base/base.h"

#define JSON_MAX_DEPTH 1000 /* IR JSON nests up to ~3 levels per script level */

typedef enum JsonKind {
	JSON_NULL,
	JSON_BOOL,
	JSON_INT,
	JSON_DOUBLE,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
} JsonKind;

typedef struct JsonValue JsonValue;

typedef struct JsonMember {
	const char *key;  /* decoded, NUL-terminated (may hold \0 inside) */
	size_t key_len;   /* bytes in key */
	JsonValue *value;
} JsonMember;

struct JsonValue {
	JsonKind kind;
	uint32_t offset; /* byte offset of the value's first character */
	union {
		bool b;           /* JSON_BOOL */
		int64_t i;        /* JSON_INT */
		double d;         /* JSON_DOUBLE */
		struct {
			const char *s; /* decoded, NUL-terminated */
			size_t len;
		} str;            /* JSON_STRING */
		struct {
			JsonValue **items;
			size_t n;
		} arr;            /* JSON_ARRAY */
		struct {
			JsonMember *members;
			size_t n;
			uint32_t *index; /* hash of keys (>= 16 members) */
			size_t cap;      /* slots in index */
		} obj;            /* JSON_OBJECT */
	};
};

typedef struct JsonError {
	size_t offset; /* byte offset of the problem */
	int line, col; /* 1-based */
	char msg[120]; /* what was wrong, e.g. "expected ':' after key" */
} JsonError;

/* Parses text[0..len) into a tree in arena a; NULL on error (err filled in
 * when non-NULL).  Never reads beyond len. */
JsonValue *json_parse(Arena *a, const char *text, size_t len,
		      JsonError *err);

/* ---- accessors: all accept NULL and wrong kinds (returning NULL/false) */

/* Member value of an object, or NULL. */
JsonValue *json_get(const JsonValue *obj, const char *key);
/* Element i of an array, or NULL. */
JsonValue *json_at(const JsonValue *arr, size_t i);
/* Number of array elements or object members (0 for other kinds). */
size_t json_len(const JsonValue *v);
/* String contents, or NULL when v is not a string. */
const char *json_str(const JsonValue *v);
/* Integer value: true only for JSON_INT. */
bool json_int(const JsonValue *v, int64_t *out);
/* Numeric value of JSON_INT or JSON_DOUBLE. */
bool json_num(const JsonValue *v, double *out);
/* Boolean value: true only for JSON_BOOL. */
bool json_bool(const JsonValue *v, bool *out);
bool json_is(const JsonValue *v, JsonKind k);
/* "null", "boolean", "integer", "number", "string", "array", "object". */
const char *json_kind_name(JsonKind k);

/* ---- writers ---- */

/* Appends s as a quoted JSON string with the needed escapes. */
void json_write_string(StrBuf *b, const char *s);
void json_write_stringn(StrBuf *b, const char *s, size_t n);
void json_write_int(StrBuf *b, int64_t v);
/* Shortest round-tripping text; always reads back as a double (has '.',
 * 'e' or is "-0.0"); non-finite values are written as null. */
void json_write_double(StrBuf *b, double v);
/* Compact text of a whole tree (members in stored order). */
void json_write_value(StrBuf *b, const JsonValue *v);

#endif
