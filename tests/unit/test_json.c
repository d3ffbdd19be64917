/*
 * test_json.c - the JSON reader and writers: valid and invalid inputs,
 * escapes, numbers, the depth limit, error positions and round trips.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "test.h"

static JsonValue *
parse(Arena *a, const char *text, JsonError *err)
{
	return json_parse(a, text, strlen(text), err);
}

/* True when text is rejected; the message must contain want. */
static bool
rejects(const char *text, const char *want, size_t want_off)
{
	Arena a;
	arena_init(&a, NULL);
	JsonError err;
	JsonValue *v = parse(&a, text, &err);
	bool ok = !v && strstr(err.msg, want) && err.offset == want_off;
	if (!ok)
		fprintf(stderr, "  input %s: got %s \"%s\" at %zu\n", text,
			v ? "a value" : "error", v ? "" : err.msg, err.offset);
	arena_free(&a);
	return ok;
}

TEST(json_scalars)
{
	Arena a;
	arena_init(&a, NULL);
	JsonValue *v = parse(&a, " true ", NULL);
	CHECK(json_is(v, JSON_BOOL) && v->b);
	v = parse(&a, "null", NULL);
	CHECK(json_is(v, JSON_NULL));
	v = parse(&a, "false", NULL);
	CHECK(json_is(v, JSON_BOOL) && !v->b);
	v = parse(&a, "\"hi\"", NULL);
	CHECK_STR(json_str(v), "hi");
	arena_free(&a);
}

TEST(json_numbers)
{
	Arena a;
	arena_init(&a, NULL);
	int64_t i = 0;
	double d = 0;
	CHECK(json_int(parse(&a, "0", NULL), &i) && i == 0);
	CHECK(json_int(parse(&a, "-17", NULL), &i) && i == -17);
	CHECK(json_int(parse(&a, "9223372036854775807", NULL), &i));
	CHECK(i == INT64_MAX);
	CHECK(json_int(parse(&a, "-9223372036854775808", NULL), &i));
	CHECK(i == INT64_MIN);
	/* One past int64 becomes a double. */
	JsonValue *v = parse(&a, "9223372036854775808", NULL);
	CHECK(json_is(v, JSON_DOUBLE) && v->d == 9223372036854775808.0);
	v = parse(&a, "1.5", NULL);
	CHECK(json_is(v, JSON_DOUBLE) && v->d == 1.5);
	v = parse(&a, "1e3", NULL);
	CHECK(json_is(v, JSON_DOUBLE) && v->d == 1000.0);
	v = parse(&a, "-2.5E-1", NULL);
	CHECK(json_num(v, &d) && d == -0.25);
	v = parse(&a, "1.0", NULL);
	CHECK(json_is(v, JSON_DOUBLE));
	CHECK(!json_int(v, &i));
	arena_free(&a);
}

TEST(json_containers)
{
	Arena a;
	arena_init(&a, NULL);
	JsonValue *v = parse(
		&a, "{\"a\": [1, 2, {\"b\": null}], \"c\": {}, \"d\": []}",
		NULL);
	CHECK(json_is(v, JSON_OBJECT));
	CHECK_INT(json_len(v), 3);
	CHECK_STR(v->obj.members[0].key, "a");
	CHECK_STR(v->obj.members[2].key, "d");
	JsonValue *arr = json_get(v, "a");
	CHECK_INT(json_len(arr), 3);
	int64_t i = 0;
	CHECK(json_int(json_at(arr, 1), &i) && i == 2);
	CHECK(json_is(json_get(json_at(arr, 2), "b"), JSON_NULL));
	CHECK(json_at(arr, 3) == NULL);
	CHECK(json_get(v, "zz") == NULL);
	CHECK(json_get(arr, "a") == NULL);
	CHECK(json_is(json_get(v, "c"), JSON_OBJECT));
	CHECK_INT(json_len(json_get(v, "d")), 0);
	CHECK_INT(json_at(arr, 2)->offset, 13);
	arena_free(&a);
}

TEST(json_escapes)
{
	Arena a;
	arena_init(&a, NULL);
	JsonValue *v = parse(&a, "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", NULL);
	CHECK_STR(json_str(v), "a\"b\\c/d\b\f\n\r\t");
	/* U+00E9 is C3 A9; U+20AC is E2 82 AC; U+1F600 is the surrogate
	 * pair D83D DE00 and F0 9F 98 80 in UTF-8. */
	v = parse(&a, "\"\\u00e9\\u20AC\\ud83d\\ude00\"", NULL);
	CHECK_STR(json_str(v), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	v = parse(&a, "\"x\\u0000y\"", NULL);
	CHECK(v && v->str.len == 3 && v->str.s[1] == 0 && v->str.s[2] == 'y');
	/* Raw UTF-8 passes through. */
	v = parse(&a, "\"\xc3\xa9\"", NULL);
	CHECK_STR(json_str(v), "\xc3\xa9");
	arena_free(&a);
}

TEST(json_invalid)
{
	CHECK(rejects("", "expected a value, found end of input", 0));
	CHECK(rejects("  ", "expected a value", 2));
	CHECK(rejects("[1,]", "expected a value, found ']'", 3));
	CHECK(rejects("{\"a\":1,}", "expected a string key", 7));
	CHECK(rejects("{\"a\" 1}", "expected ':' after key", 5));
	CHECK(rejects("[1 2]", "expected ',' or ']'", 3));
	CHECK(rejects("01", "leading zero", 0));
	CHECK(rejects("1.", "digit after '.'", 2));
	CHECK(rejects("1e", "exponent", 2));
	CHECK(rejects("-", "expected a digit", 1));
	CHECK(rejects(".5", "expected a value", 0));
	CHECK(rejects("+1", "expected a value", 0));
	CHECK(rejects("tru", "invalid literal", 0));
	CHECK(rejects("nul", "invalid literal", 0));
	CHECK(rejects("1 2", "after the value", 2));
	CHECK(rejects("\"abc", "unterminated string", 0));
	CHECK(rejects("\"a\tb\"", "control character 0x09", 2));
	CHECK(rejects("\"\\x\"", "invalid escape", 1));
	CHECK(rejects("\"\\u12g4\"", "4 hex digits", 5));
	CHECK(rejects("\"\\ud800\"", "without a low one", 1));
	CHECK(rejects("\"\\ud800\\u0041\"", "without a low one", 1));
	CHECK(rejects("\"\\udc00\"", "lone low surrogate", 1));
	CHECK(rejects("\"\xc3\"", "invalid UTF-8", 1));
	CHECK(rejects("\"\xc0\x80\"", "invalid UTF-8", 1));
	CHECK(rejects("\"\xed\xa0\x80\"", "invalid UTF-8", 1));
	CHECK(rejects("\"\xf4\x90\x80\x80\"", "invalid UTF-8", 1));
	CHECK(rejects("{\"a\":1,\"a\":2}", "duplicate key \"a\"", 7));
	CHECK(rejects("// c\n1", "expected a value", 0));
	CHECK(rejects("NaN", "expected a value", 0));
	CHECK(rejects("{1:2}", "expected a string key", 1));
	CHECK(rejects("[1e999]", "number out of range", 1));
}

TEST(json_error_position)
{
	Arena a;
	arena_init(&a, NULL);
	JsonError err;
	const char *text = "{\n  \"a\": [1,\n    2,,]\n}";
	CHECK(!parse(&a, text, &err));
	CHECK_INT(err.line, 3);
	CHECK_INT(err.col, 7);
	CHECK_INT(err.offset, 19);
	arena_free(&a);
}

TEST(json_depth_limit)
{
	Arena a;
	arena_init(&a, NULL);
	char buf[2 * JSON_MAX_DEPTH + 8];
	/* Exactly JSON_MAX_DEPTH nested arrays parse... */
	memset(buf, '[', JSON_MAX_DEPTH);
	memset(buf + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
	CHECK(json_parse(&a, buf, 2 * JSON_MAX_DEPTH, NULL) != NULL);
	/* ...and one more is rejected at the innermost bracket. */
	memset(buf, '[', JSON_MAX_DEPTH + 1);
	memset(buf + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
	JsonError err;
	CHECK(!json_parse(&a, buf, 2 * JSON_MAX_DEPTH + 2, &err));
	CHECK(strstr(err.msg, "nesting deeper") != NULL);
	CHECK_INT(err.offset, JSON_MAX_DEPTH);
	arena_free(&a);
}

TEST(json_no_read_past_len)
{
	Arena a;
	arena_init(&a, NULL);
	/* The length stops the parse before the trailing text. */
	CHECK(json_parse(&a, "123xyz", 3, NULL) != NULL);
	CHECK(json_parse(&a, "truex", 4, NULL) != NULL);
	CHECK(json_parse(&a, "tru", 3, NULL) == NULL);
	arena_free(&a);
}

static const char *
write_double(Arena *a, double d)
{
	StrBuf b;
	sb_init(&b, a);
	json_write_double(&b, d);
	return sb_cstr(&b);
}

TEST(json_write_numbers)
{
	Arena a;
	arena_init(&a, NULL);
	CHECK_STR(write_double(&a, 0.1), "0.1");
	CHECK_STR(write_double(&a, 1.0), "1.0");
	CHECK_STR(write_double(&a, -0.0), "-0.0");
	CHECK_STR(write_double(&a, 1e300), "1e+300");
	CHECK_STR(write_double(&a, 0.30000000000000004),
		  "0.30000000000000004");
	CHECK_STR(write_double(&a, NAN), "null");
	StrBuf b;
	sb_init(&b, &a);
	json_write_int(&b, INT64_MIN);
	CHECK_STR(sb_cstr(&b), "-9223372036854775808");
	/* Every written double reads back as the same double. */
	const double samples[] = {1.0 / 3, 5e-324, 1.7976931348623157e308,
				  123456789.125, -2.5e-7, 100.0};
	for (size_t i = 0; i < countof(samples); i++) {
		const char *s = write_double(&a, samples[i]);
		JsonValue *v = json_parse(&a, s, strlen(s), NULL);
		CHECK(json_is(v, JSON_DOUBLE) && v->d == samples[i]);
	}
	arena_free(&a);
}

TEST(json_write_strings)
{
	Arena a;
	arena_init(&a, NULL);
	StrBuf b;
	sb_init(&b, &a);
	json_write_string(&b, "a\"b\\c\n\x01\xc3\xa9");
	CHECK_STR(sb_cstr(&b), "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\"");
	sb_init(&b, &a);
	json_write_stringn(&b, "x\0y", 3);
	CHECK_STR(sb_cstr(&b), "\"x\\u0000y\"");
	arena_free(&a);
}

TEST(json_round_trip)
{
	Arena a;
	arena_init(&a, NULL);
	const char *text = "{\"k\":[1,-2,3.5,\"s\\n\",true,false,null,{}],"
			   "\"e\":[],\"big\":1e+100}";
	JsonValue *v = parse(&a, text, NULL);
	CHECK(v != NULL);
	StrBuf b;
	sb_init(&b, &a);
	if (v)
		json_write_value(&b, v);
	CHECK_STR(sb_cstr(&b), text);
	arena_free(&a);
}

/* Objects past the hash threshold: every key found by json_get, absent
 * keys not, a duplicate (also one differing only after a NUL) rejected at
 * its own offset. */
TEST(json_many_keys_hashed)
{
	enum { N = 5000 };
	Arena a;
	arena_init(&a, NULL);
	StrBuf b;
	sb_init(&b, &a);
	sb_putc(&b, '{');
	for (int i = 0; i < N; i++)
		sb_printf(&b, "%s\"k%d\":%d", i ? "," : "", i, i * 3);
	sb_putc(&b, '}');
	const char *text = sb_cstr(&b);
	JsonValue *v = json_parse(&a, text, strlen(text), NULL);
	CHECK(v && json_len(v) == N);
	int64_t x = -1;
	bool all = v != NULL;
	for (int i = 0; all && i < N; i++) {
		char key[16];
		snprintf(key, sizeof(key), "k%d", i);
		all = json_int(json_get(v, key), &x) && x == i * 3;
	}
	CHECK(all);
	CHECK(json_get(v, "k5000") == NULL && json_get(v, "k") == NULL);
	/* the same document with key k4321 repeated at the end */
	StrBuf d;
	sb_init(&d, &a);
	sb_putn(&d, text, strlen(text) - 1);
	size_t dup_at = d.n + 1;
	sb_puts(&d, ",\"k4321\":0}");
	JsonError err;
	CHECK(json_parse(&a, sb_cstr(&d), d.n, &err) == NULL);
	CHECK(strstr(err.msg, "duplicate key \"k4321\"") != NULL);
	CHECK_INT(err.offset, dup_at);
	/* keys equal up to an escaped NUL differ */
	sb_init(&d, &a);
	sb_putn(&d, text, strlen(text) - 1);
	sb_puts(&d, ",\"k7\\u0000x\":0}");
	CHECK(json_parse(&a, sb_cstr(&d), d.n, &err) != NULL);
	arena_free(&a);
}
