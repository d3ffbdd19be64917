/*
 * tile/program.h - the tile layer's own result of check_module, and the
 * entry points of the tile stage as api.c calls them.
 *
 * A TileProgram is what the checker decided about one module's tile
 * calls: the calls in program order (each call node also points at its
 * own record) and the tensor maps the runtime encodes for them.  It
 * lives in the compile's arena; the IR knows nothing of it, so the
 * lowering and explain take it as an argument.  The tensor maps of
 * lowered calls belong to their kernel (Func.tmaps, the kernel ABI that
 * codegen prints).
 */
#ifndef PT_TILE_PROGRAM_H
#define PT_TILE_PROGRAM_H

#include "base/base.h"
#include "ir/ir.h"

typedef struct TileProgram {
	VEC(struct TileCall *) calls; /* program order */
	/* the tensor-map slots the calls use, in creation order (calls
	 * with equal fields on one tensor share a slot) */
	VEC(TmapSlot *) tma_slots;
} TileProgram;

/* check.c: verifies raw PTX calls and tile contracts for c->target;
 * returns the module's program (never NULL; empty on errors before the
 * first call). */
TileProgram *check_module(Ctx *c, Module *m);
/* lower.c: rewrites the checked tile calls of p into raw PTX calls and
 * scalar IR (needs check_module without errors). */
void tile_lower_module(Ctx *c, Module *m, TileProgram *p);
/* explain.c: per tile call explanation text. */
const char *explain_module(Ctx *c, const Module *m, const TileProgram *p);

#endif
