/*
 * fuzz_emu.c - libFuzzer target over the PTX emulator: any text must load
 * or be rejected with a status, and a kernel that loads must run (every
 * pointer parameter given one 4 KiB buffer, every other parameter zeros,
 * 2 CTAs of 64 threads, in eager and late completion mode) to a status,
 * without a crash, a hang, a sanitizer report or a leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptxtile.h"
#include "ptxtile_emu.h"
#include "emu/emu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	ptem *e = ptem_new();
	if (e && ptem_load(e, text, size) == PT_OK) {
		const Kernel *k = emu_find_kernel(e->m, NULL);
		uint64_t buf = 0;
		static uint8_t zeros[4096];
		ptem_arg args[64];
		if (k->nparams <= 64 && ptem_alloc(e, 4096, &buf) == PT_OK) {
			for (uint32_t i = 0; i < k->nparams; i++) {
				args[i].size = k->params[i].size;
				args[i].data = k->params[i].size == 8 ? (void *)&buf
					       : (void *)zeros;
			}
			for (unsigned late = 0; late < 2; late++) {
				ptem_launch l = {{2, 1, 1}, {64, 1, 1}, {1, 1, 1},
						 256, late, 20000};
				ptem_run(e, k->name, &l, args, k->nparams);
				(void)ptem_errmsg(e);
			}
		}
	}
	ptem_free(e);
	free(text);
	return 0;
}
