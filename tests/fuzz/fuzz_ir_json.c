/*
 * fuzz_ir_json.c - libFuzzer target over the IR JSON reader.  Any input
 * must be read or rejected with exactly one PT_E_JSON_* diagnostic,
 * without a crash, a sanitizer report or a leak.  An accepted module must
 * write back to JSON that reads again to an equal module and writes to
 * the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_roundtrip(Ctx *c, const Module *m)
{
	const char *j1 = ir_module_to_json(c, m);
	if (!j1)
		return; /* too deep to write: reported, not a crash */
	Module *m2 = ir_module_from_json(c, j1, strlen(j1), 0);
	if (!m2 || !ir_module_equal(m, m2))
		abort();
	const char *j2 = ir_module_to_json(c, m2);
	if (!j2 || strcmp(j1, j2) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Ctx *c = pt_ctx_new(NULL);
	if (!c)
		return 0;
	Module *m = ir_module_from_json(c, (const char *)data, size, 0);
	if (m) {
		if (c->diags)
			abort();
		check_roundtrip(c, m);
	} else if (!c->diags || c->diags->code < 7000 ||
		   c->diags->code > 7099 || c->diags->next) {
		abort();
	}
	pt_ctx_free(c);
	return 0;
}
