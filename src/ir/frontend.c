/*
 * frontend.c - source text -> IR module: script through the lexer,
 * parser and lowering, or IR JSON through the JSON reader.
 *
 * Input is JSON when the name ends in ".json" or the first non-blank
 * byte is '{'; everything else is script.  Diagnostics point into the
 * registered source.
 */
#include <string.h>

#include "ir/ir.h"
#include "ir/ir_json.h"
#include "ir/validate.h"
#include "script/ast.h"

static bool
is_json(const char *name, const char *text, size_t len)
{
	size_t n = name ? strlen(name) : 0;
	if (n >= 5 && !strcmp(name + n - 5, ".json"))
		return true;
	for (size_t i = 0; i < len; i++) {
		char ch = text[i];
		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
			continue;
		return ch == '{';
	}
	return false;
}

Module *
frontend_load(Ctx *c, const char *name, const char *text, size_t len)
{
	uint32_t file = ctx_add_source(c, name, text, len);
	Module *m = NULL;
	if (is_json(name, text, len)) {
		if (c->consts)
			diag_error(c, PT_E_CONST_UNKNOWN, (Span){0},
				   "constant overrides (such as '%s') apply to "
				   "scripts; IR JSON has no module constants",
				   c->consts->name);
		m = ir_module_from_json(c, text, len, file);
	} else {
		Ast *mod = parse_module(c, file);
		if (!mod || ctx_has_errors(c))
			return NULL;
		m = lower_module(c, mod);
	}
	if (m && !ctx_has_errors(c))
		ir_validate_module(c, m);
	return ctx_has_errors(c) ? NULL : m;
}
