/*
 * tma.c - tensor maps and cp.async.bulk.tensor (PTX §9.7.9.25.5, the
 * tensor copy semantics of §5.5; tensor map arguments of the driver's
 * cuTensorMapEncodeTiled).
 *
 * The emulator's 128-byte tensor map (the driver's image is undocumented):
 *   0 magic "PTEM", 4 format, 5 rank, 6 interleave, 7 swizzle, 8 oob fill,
 *   12 element strides (5 bytes), 20 box (5 x u16), 32 global address,
 *   40 dims (5 x u64), 80 byte strides of dims 1..4 (4 x u64), 112 zero.
 */
#include <string.h>

#include "emu_async.h"

#define TMAP_MAGIC 0x4d455450u

static void
put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int
ptem_tensormap_encode(const ptem_tma_desc *d, void *map128)
{
	if (!d || !map128 || d->rank < 1 || d->rank > 5 || d->format < 0 ||
	    d->format > 15 || d->swizzle < 0 || d->swizzle > 6 ||
	    d->interleave < 0 || d->interleave > 2 || d->oob_fill < 0 ||
	    d->oob_fill > 1)
		return PT_E_EMU_ARGS;
	for (int i = 0; i < d->rank; i++)
		if (!d->dims[i] || d->box[i] < 1 || d->box[i] > 256 ||
		    d->elem_strides[i] < 1 || d->elem_strides[i] > 8)
			return PT_E_EMU_ARGS;
	uint8_t *p = map128;
	memset(p, 0, 128);
	put(p, TMAP_MAGIC, 4);
	p[4] = (uint8_t)d->format;
	p[5] = (uint8_t)d->rank;
	p[6] = (uint8_t)d->interleave;
	p[7] = (uint8_t)d->swizzle;
	p[8] = (uint8_t)d->oob_fill;
	for (int i = 0; i < d->rank; i++) {
		p[12 + i] = (uint8_t)d->elem_strides[i];
		put(p + 20 + 2 * i, d->box[i], 2);
		put(p + 40 + 8 * i, d->dims[i], 8);
		if (i < 4)
			put(p + 80 + 8 * i, d->strides[i], 8);
	}
	put(p + 32, d->addr, 8);
	return PT_OK;
}

void
exec_tma(Run *r, Cta *c, Thread *t, const Insn *in)
{
	emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "not modelled yet");
}
