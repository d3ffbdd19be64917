/*
 * consts.c - the constant overrides of a context (pt_set_constant).  They
 * outlive each compile, so they are held by the caller's allocator rather
 * than the arena; the front end (ir/lower_const.c) parses and applies them
 * on every pt_load.
 */
#include <string.h>

#include "base/base.h"

#define NAME_MAX_BYTES 255

static bool
is_identifier(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > NAME_MAX_BYTES || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (!(ch == '_' || (ch >= 'a' && ch <= 'z') ||
		      (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
			return false;
	}
	return true;
}

static char *
dup_text(Ctx *c, const char *s, size_t n)
{
	char *p = c->alloc.realloc(c->alloc.ud, NULL, n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

static void
free_override(Ctx *c, ConstOverride *o)
{
	c->alloc.realloc(c->alloc.ud, o->name, 0);
	c->alloc.realloc(c->alloc.ud, o->value, 0);
	c->alloc.realloc(c->alloc.ud, o, 0);
}

/* Allocation failed: a static message, since the arena may be as short
 * of memory as the allocator. */
static int
no_memory(Ctx *c)
{
	c->errmsg = "out of memory";
	c->status = PT_E_NOMEM;
	return PT_E_NOMEM;
}

/* The override of name, or the link where a new one goes (the tail). */
static ConstOverride **
find_slot(Ctx *c, const char *name)
{
	ConstOverride **p = &c->consts;
	while (*p && strcmp((*p)->name, name) != 0)
		p = &(*p)->next;
	return p;
}

int
pt_set_constant(pt_ctx *c, const char *name, const char *value)
{
	if (!name || !value || !is_identifier(name))
		return ctx_fail(c, PT_E_USAGE,
				"constant name '%.40s' is not an "
				"identifier",
				name ? name : "(null)");
	size_t n = strnlen(value, PT_CONSTANT_MAX_BYTES + 1);
	if (n > PT_CONSTANT_MAX_BYTES)
		return ctx_fail(c, PT_E_USAGE,
				"the value of constant %s is "
				"over %zu bytes",
				name, PT_CONSTANT_MAX_BYTES);
	char *v = dup_text(c, value, n);
	if (!v)
		return no_memory(c);
	ConstOverride **slot = find_slot(c, name);
	if (*slot) {
		c->alloc.realloc(c->alloc.ud, (*slot)->value, 0);
		(*slot)->value = v;
		return PT_OK;
	}
	ConstOverride *o = c->alloc.realloc(c->alloc.ud, NULL, sizeof(*o));
	char *nm = o ? dup_text(c, name, strlen(name)) : NULL;
	if (!nm) {
		c->alloc.realloc(c->alloc.ud, o, 0);
		c->alloc.realloc(c->alloc.ud, v, 0);
		return no_memory(c);
	}
	o->next = NULL;
	o->name = nm;
	o->value = v;
	*slot = o;
	return PT_OK;
}

void
ctx_free_constants(Ctx *c)
{
	while (c->consts) {
		ConstOverride *o = c->consts;
		c->consts = o->next;
		free_override(c, o);
	}
}

void
pt_clear_constants(pt_ctx *c)
{
	ctx_free_constants(c);
}
