/*
 * fuzz_compile.c - libFuzzer target over the whole compile: front end,
 * raw PTX validation, the tile contract checker and lowering, and code
 * generation, for each target.  Any input must compile or be rejected with
 * diagnostics (or an internal-limit status), never crash, hang, leak or
 * trip a sanitizer.  The first byte picks the target, the rest is script.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ptxtile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const targets[] = {"sm_80", "sm_90a", "sm_100a"};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const char *target = targets[data[0] % 3];
	pt_ctx *c = pt_ctx_new(NULL);
	if (!c)
		return 0;
	/* budgets small enough that one input stays well inside libFuzzer's
	 * 2 GB RSS and per-input time limits; exceeding one is a diagnostic */
	pt_set_budget(c, PT_BUDGET_STATEMENTS, 20000);
	pt_set_budget(c, PT_BUDGET_ARENA_BYTES, (size_t)256 << 20);
	pt_set_budget(c, PT_BUDGET_PTX_BYTES, (size_t)16 << 20);
	pt_module *m;
	const char *ptx, *meta, *text;
	if (pt_load(c, "fuzz.py", (const char *)data + 1, size - 1, &m) ==
	    PT_OK) {
		int st = pt_compile(c, m, target, &ptx, &meta);
		if (st == PT_OK && (!ptx || !meta))
			abort();
		if (st != PT_OK && st != PT_E_INTERNAL &&
		    pt_diag_count(c) == 0)
			abort(); /* an error without a diagnostic */
		(void)pt_diag_render(c, PT_DIAG_FULL);
		if (st == PT_OK)
			(void)pt_explain(c, m, target, &text);
	}
	pt_ctx_free(c);
	return 0;
}
