/*
 * fuzz_rt_meta.c - libFuzzer target over the runtime's metadata reader:
 * any input is accepted or rejected with PT_E_RT_META and a message,
 * never a crash; an accepted document's launch expressions evaluate
 * (or fail cleanly) for arbitrary bindings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
eval_all(const RtKernelMeta *k, RtStatus *st)
{
	int64_t vals[64];
	for (size_t i = 0; i < 64; i++)
		vals[i] = (int64_t)(i * 37) - 5;
	if (k->nvars > 64)
		return;
	for (int d = 0; d < 3; d++) {
		int64_t v;
		meta_eval(k->grid[d], vals, &v, st);
		meta_eval(k->block[d], vals, &v, st);
		meta_eval(k->cluster[d], vals, &v, st);
	}
	int64_t v;
	meta_eval(k->smem, vals, &v, st);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Arena a;
	arena_init(&a, NULL);
	RtMeta m;
	static RtStatus st; /* large; one per process is enough */
	int rc = meta_parse(&a, (const char *)data, size, &m, &st);
	if (rc == PT_OK) {
		for (size_t i = 0; i < m.nkernels; i++)
			eval_all(&m.kernels[i], &st);
	} else if (rc != PT_E_RT_META || st.msg[0] == 0) {
		abort();
	}
	arena_free(&a);
	return 0;
}
