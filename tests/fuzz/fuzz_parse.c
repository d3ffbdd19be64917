/*
 * fuzz_parse.c - libFuzzer target over the script front end (lexer,
 * parser, lowering) and the printer.  Any input must load or be rejected
 * with diagnostics, without a crash, a hang, a sanitizer report or a
 * leak.  A script that loads must print to text that loads again to an
 * equal module (ir_module_equal) and prints to the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptxtile.h"
#include "ir/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
looks_like_json(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		if (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' ||
		    data[i] == '\n')
			continue;
		return data[i] == '{';
	}
	return false;
}

static void
check_roundtrip(pt_module *m, const char *p1)
{
	pt_ctx *c2 = pt_ctx_new(NULL);
	pt_module *m2;
	const char *p2;
	if (pt_load(c2, "printed.py", p1, strlen(p1), &m2) != PT_OK)
		abort();
	if (!ir_module_equal(m, m2))
		abort();
	if (pt_print(c2, m2, &p2) != PT_OK || strcmp(p1, p2) != 0)
		abort();
	pt_ctx_free(c2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pt_ctx *c = pt_ctx_new(NULL);
	if (!c)
		return 0;
	pt_module *m;
	const char *text;
	if (pt_load(c, "fuzz.py", (const char *)data, size, &m) == PT_OK) {
		if (pt_print(c, m, &text) != PT_OK)
			abort();
		if (!looks_like_json(data, size))
			check_roundtrip(m, text);
	} else {
		(void)pt_diag_render(c, PT_DIAG_FULL);
	}
	pt_ctx_free(c);
	return 0;
}
