/*
 * api.c - the public pipeline as straight calls, and the only place that
 * sets the out-of-memory boundary (setjmp).  Each step runs only when the
 * previous one left no error.
 */
#include <string.h>

#include "base/base.h"
#include "codegen/codegen.h"
#include "ir/ir.h"
#include "ir/ir_json.h"
#include "tile/program.h"

const char *
pt_default_target(void)
{
	return target_name(TARGET_DEFAULT);
}

/* The arena failed: the budget (an input error, as a diagnostic) or the
 * allocator (an environment failure). */
static int
out_of_memory(Ctx *c)
{
	if (!c->arena.over_budget) {
		c->errmsg = "out of memory";
		c->status = PT_E_NOMEM;
		return PT_E_NOMEM;
	}
	size_t limit = c->arena.limit;
	c->arena.limit = 0; /* room to record the diagnostic */
	c->arena.over_budget = false;
	diag_error(c, PT_E_BUDGET_ARENA, (Span){0},
		   "compiling this input needs more than %zu bytes of memory "
		   "(arena budget; ptxtile --max-arena-bytes)", limit);
	c->arena.limit = limit;
	return PT_E_BUDGET_ARENA;
}

/* Runs fn under an OOM boundary; any longjmp from the arena lands here. */
#define GUARDED(ctx, body)                                                 \
	do {                                                               \
		jmp_buf jb_;                                               \
		(ctx)->arena.oom = &jb_;                                   \
		if (setjmp(jb_)) {                                         \
			(ctx)->arena.oom = NULL;                           \
			return out_of_memory(ctx);                         \
		}                                                          \
		body;                                                      \
		(ctx)->arena.oom = NULL;                                   \
	} while (0)

static int
first_error(const Ctx *c)
{
	if (c->status)
		return c->status;
	for (const Diag *d = c->diags; d; d = d->next)
		if (d->sev == SEV_ERROR)
			return d->code; /* warnings do not fail a call */
	return c->nerrors ? PT_E_INTERNAL : 0;
}

static int
set_target(Ctx *c, const char *target)
{
	if (!target)
		target = pt_default_target();
	if (target_parse(target, &c->target))
		return PT_OK;
	StrBuf valid;
	sb_init(&valid, &c->arena);
	for (int t = 0; t < TGT_COUNT; t++)
		sb_printf(&valid, "%s%s", t ? " " : "", target_name((Target)t));
	return ctx_fail(c, PT_E_USAGE, "unknown target '%s' (valid targets: %s)",
			target, sb_cstr(&valid));
}

int
pt_load(pt_ctx *ctx, const char *name, const char *text, size_t len,
	pt_module **out)
{
	ctx_reset(ctx);
	*out = NULL;
	if (len > ctx->budget[PT_BUDGET_INPUT_BYTES]) {
		GUARDED(ctx, diag_error(ctx, PT_E_BUDGET_INPUT, (Span){0},
			"%s is over the input budget of %zu bytes "
			"(ptxtile --max-input-bytes)", name ? name : "input",
			ctx->budget[PT_BUDGET_INPUT_BYTES]));
		return PT_E_BUDGET_INPUT;
	}
	GUARDED(ctx, *out = frontend_load(ctx, name, text, len));
	int st = first_error(ctx);
	if (st)
		*out = NULL;
	return st;
}

int
pt_print(pt_ctx *ctx, const pt_module *m, const char **text)
{
	*text = NULL;
	GUARDED(ctx, *text = ir_print_module(ctx, m));
	return first_error(ctx);
}

int
pt_to_json(pt_ctx *ctx, const pt_module *m, const char **text)
{
	*text = NULL;
	GUARDED(ctx, *text = ir_module_to_json(ctx, m));
	return first_error(ctx);
}

/* The checker's program of m, or NULL when the target is unknown or
 * memory ran out (*st says which). */
static TileProgram *
check_program(Ctx *c, Module *m, const char *target, int *st)
{
	TileProgram *p = NULL;
	*st = set_target(c, target);
	if (*st)
		return NULL;
	jmp_buf jb;
	c->arena.oom = &jb;
	if (setjmp(jb)) {
		c->arena.oom = NULL;
		*st = out_of_memory(c);
		return NULL;
	}
	p = check_module(c, m);
	c->arena.oom = NULL;
	*st = first_error(c);
	return p;
}

int
pt_check(pt_ctx *ctx, pt_module *m, const char *target)
{
	int st;
	check_program(ctx, m, target, &st);
	return st;
}

void
pt_set_lineinfo(pt_ctx *ctx, int on)
{
	ctx->lineinfo = on != 0;
}

int
pt_compile(pt_ctx *ctx, pt_module *m, const char *target, const char **ptx,
	   const char **meta)
{
	*ptx = *meta = NULL;
	int st;
	TileProgram *p = check_program(ctx, m, target, &st);
	if (st)
		return st;
	GUARDED(ctx, tile_lower_module(ctx, m, p));
	GUARDED(ctx, codegen_module(ctx, m, ptx, meta));
	st = first_error(ctx);
	if (st)
		*ptx = *meta = NULL;
	return st;
}

int
pt_explain(pt_ctx *ctx, pt_module *m, const char *target, const char **text)
{
	*text = NULL;
	int st;
	TileProgram *p = check_program(ctx, m, target, &st);
	if (st && (!p || !p->calls.n))
		return st;
	/* with errors, the calls that passed are still explained */
	GUARDED(ctx, *text = explain_module(ctx, m, p));
	return st ? st : first_error(ctx);
}
