/*
 * tcgen05.h - what tcgen05.c (TMEM, ld/st, cp, commit) and tcgen05_mma.c
 * (tcgen05.mma) share: the TMEM cell lookup and the sm_100 shared-memory
 * descriptor walk.
 */
#ifndef PT_EMU_TCGEN05_H
#define PT_EMU_TCGEN05_H

#include "emu/emu.h"

enum { TM_LANES = 128, TM_COLS = 512 };

/* The cell at (lane, col); a warp's ld/st (partition) may only reach its
 * sub-partition's 32 lanes, an MMA or cp any. */
uint32_t *tmem_cell(Run *r, Cta *c, Thread *t, const Insn *in, uint32_t lane,
		    uint32_t col, bool partition);

/* An sm_100 shared-memory descriptor (PTX Table 40): start, LBO, SBO in
 * bytes; swz the swizzle width in bytes (0 none, 32, 64, 128); atom32
 * the 128B swizzle with 32-byte atomicity (mode 1, MN-major only). */
typedef struct SmemDesc {
	uint32_t start, lbo, sbo;
	int swz;
	bool atom32;
} SmemDesc;

SmemDesc smem_desc(Run *r, Thread *t, const Insn *in, uint64_t d);
/* Shared address of byte `byte` of descriptor row `row`: K-major rows
 * are M/N rows and bytes run along K; MN-major (mn) rows are K rows and
 * bytes run along M/N. */
uint32_t desc_addr(const SmemDesc *s, uint32_t row, uint32_t byte, bool mn);
uint32_t desc_load(Run *r, Cta *c, Thread *t, const Insn *in,
		   const SmemDesc *s, uint32_t row, uint32_t byte, unsigned n,
		   bool mn);

void exec_tc_mma(Run *r, Cta *c, Thread *t, const Insn *in);

#endif
