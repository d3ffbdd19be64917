/*
 * tcgen05.c - tensor memory.
 */
#include "emu.h"

void
exec_tc_warp(Run *r, Cta *c, Thread **lanes, uint32_t mask, const Insn *in)
{
	emu_fail(r, PT_E_EMU_UNSUPPORTED, lanes[__builtin_ctz(mask)], in,
		 "not modelled yet");
}

void
exec_tc(Run *r, Cta *c, Thread *t, const Insn *in)
{
	emu_fail(r, PT_E_EMU_UNSUPPORTED, t, in, "not modelled yet");
}

void
tmem_check_exit(Run *r, Cta *c)
{
}
