/*
 * fuzz_json.c - libFuzzer target over json_parse.  Any input must parse or
 * be rejected without a crash, a sanitizer report or a leak; a parsed tree
 * must write back to text that parses again to the same text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Arena a;
	arena_init(&a, NULL);
	JsonError err;
	JsonValue *v = json_parse(&a, (const char *)data, size, &err);
	if (v) {
		StrBuf b, b2;
		sb_init(&b, &a);
		json_write_value(&b, v);
		JsonValue *again = json_parse(&a, b.s, b.n, &err);
		if (!again)
			abort();
		sb_init(&b2, &a);
		json_write_value(&b2, again);
		if (b.n != b2.n || memcmp(b.s, b2.s, b.n) != 0)
			abort();
	} else if (err.offset > size || err.msg[0] == 0) {
		abort();
	}
	arena_free(&a);
	return 0;
}
