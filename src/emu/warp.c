/*
 * warp.c - warp collectives.
 */
#include "emu.h"

void
exec_warp(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	emu_fail(r, PT_E_EMU_UNSUPPORTED, lanes[__builtin_ctz(mask)], in,
		 "not modelled yet");
}
