/*
 * ir/ir_json.h - the IR as JSON and back (schema: docs/ir-json.md).
 *
 * Named apart from base/json.h, the generic JSON DOM that this module is
 * built on.  The writer and the reader are declared here.
 *
 * Invariant: for every module m that the writer accepts,
 * ir_module_from_json(ir_module_to_json(m)) is structurally equal to m
 * (ir_module_equal), and writing the result again gives the same bytes.
 */
#ifndef PT_IR_JSON_H
#define PT_IR_JSON_H

#include "ir/ir.h"

/* json_write.c: the IR as JSON text. */
const char *ir_module_to_json(Ctx *c, const Module *m);
/* Reads an IR JSON document text[0..len) registered as source `file`
 * (for diagnostics; 0 when it has none).  Validates every node: kinds,
 * fields, JSON types, ids, scopes, enums and dtypes.  On the first
 * problem reports a PT_E_JSON_* diagnostic at the byte offset of the
 * offending value and returns NULL.  The module lives in c->arena; its
 * spans point at the JSON value each node came from. */
Module *ir_module_from_json(Ctx *c, const char *text, size_t len,
			    uint32_t file);

#endif
