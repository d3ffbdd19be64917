/*
 * stubs.c - stages not written yet.  Each returns an environment failure
 * so that nothing pretends to work.  Remove a stub when its stage lands.
 */
#include "api.h"

Module *
frontend_load(Ctx *c, const char *name, const char *text, size_t len)
{
	(void)name, (void)text, (void)len;
	ctx_fail(c, PT_E_INTERNAL, "the front end is not implemented yet");
	return NULL;
}

const char *
ir_print_module(Ctx *c, const Module *m)
{
	(void)m;
	ctx_fail(c, PT_E_INTERNAL, "print is not implemented yet");
	return NULL;
}
