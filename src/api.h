/*
 * api.h - the entry point of each pipeline stage, as api.c calls them.
 * Each stage reports script errors as diagnostics on ctx and environment
 * failures with ctx_fail.
 */
#ifndef PT_API_H
#define PT_API_H

#include "base/base.h"

typedef struct pt_module Module;

/* script/ or ir/json: source text (script or IR JSON) -> IR module. */
Module *frontend_load(Ctx *c, const char *name, const char *text,
		      size_t len);
/* ir/print.c: canonical script text. */
const char *ir_print_module(Ctx *c, const Module *m);
/* ir/json_write.c: the IR as JSON text. */
const char *ir_module_to_json(Ctx *c, const Module *m);
/* tile/check.c: verifies raw PTX calls and tile contracts for c->target. */
void check_module(Ctx *c, Module *m);
/* tile/lower.c: rewrites checked tile calls into raw PTX calls and
 * scalar IR (needs check_module's records, no errors). */
void tile_lower_module(Ctx *c, Module *m);
/* codegen/: PTX text and kernel metadata JSON. */
void codegen_module(Ctx *c, Module *m, const char **ptx, const char **meta);
/* tile/explain.c: per tile call explanation text. */
const char *explain_module(Ctx *c, Module *m);

#endif
