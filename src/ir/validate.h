/*
 * validate.h - checks of a freshly loaded module (validate.c).
 */
#ifndef PT_VALIDATE_H
#define PT_VALIDATE_H

#include "ir/ir.h"

/* True for [A-Za-z_][A-Za-z0-9_$]* of at most PT_NAME_MAX bytes. */
bool ir_name_ok(const char *s);
/* Reports names, launch limits, buffer shapes, alignments and loop
 * steps that no pass may see (diagnostics on c). */
void ir_validate_module(Ctx *c, const Module *m);

#endif
