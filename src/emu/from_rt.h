/*
 * from_rt.h - header-only glue for programs that link both the runtime
 * and the emulator (the CLI, the unit tests): the emulator's tensor map
 * for a tensor map the runtime's launch planner computed.  The emulator
 * itself (libptxtile) does not depend on the runtime.
 */
#ifndef PT_EMU_FROM_RT_H
#define PT_EMU_FROM_RT_H

#include "ptxtile_emu.h"
#include "rt/rt.h"

static inline int
emu_tensormap_from_plan(const TmaEncode *t, uint8_t map[128])
{
	ptem_tma_desc d = {0};
	d.format = (int)t->format;
	d.rank = (int)t->rank;
	d.addr = t->addr;
	for (uint32_t i = 0; i < t->rank && i < 5; i++) {
		d.dims[i] = t->dims[i];
		d.box[i] = t->box[i];
		d.elem_strides[i] = t->elem_strides[i];
		if (i + 1 < t->rank)
			d.strides[i] = t->strides[i];
	}
	d.interleave = t->interleave;
	d.swizzle = t->swizzle;
	d.oob_fill = t->oob_fill;
	return ptem_tensormap_encode(&d, map);
}

/* The emulator's tensor map for a ptrt_plan_launch tensor map. */
static inline int
emu_tensormap_from_ptrt_plan(const ptrt_plan_tma *t, uint8_t map[128])
{
	ptem_tma_desc d = {0};
	d.format = t->format;
	d.rank = t->rank;
	d.addr = t->addr;
	for (int i = 0; i < 5; i++) {
		d.dims[i] = t->dims[i];
		d.box[i] = t->box[i];
		d.elem_strides[i] = t->elem_strides[i];
		if (i < 4)
			d.strides[i] = t->strides[i];
	}
	d.interleave = t->interleave;
	d.swizzle = t->swizzle;
	d.oob_fill = t->oob_fill;
	return ptem_tensormap_encode(&d, map);
}

#endif
