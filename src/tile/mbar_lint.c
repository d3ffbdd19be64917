/*
 * mbar_lint.c - two mistakes with mbarriers the reference's rules imply
 * (an mbarrier object is 64 bits, 8-byte aligned, and must be
 * initialised with mbarrier.init before any other mbarrier operation):
 *   PT_E_PTX_MBAR_WIDTH   the address names storage of elements narrower
 *                         than 8 bytes (a uint32 buffer);
 *   PT_E_PTX_MBAR_UNINIT  (a warning) a shared buffer is used as an mbarrier (raw
 *                         mbarrier.* calls, T.cuda.mbarrier_wait, a tile
 *                         call's mbar=) but no mbarrier.init in the
 *                         kernel names it.
 * Runs after the kernel checked clean (the families' own mbar checks
 * come first).  Only addresses written `buf.ptr_to([...])` of a shared
 * buffer are judged; computed addresses (mapa results) are not.
 */
#include <string.h>

#include "tile/tile.h"

typedef struct MbarUse {
	const Buffer *root;
	Span span;
	bool init;
} MbarUse;

typedef VEC(MbarUse) MbarUses;

/* Judges one mbarrier address; false after a diagnostic. */
static bool
use(TileEnv *e, MbarUses *uses, const Expr *addr, bool init)
{
	if (!addr || addr->kind != EX_PTR_TO)
		return true;
	const Expr *base = addr->u.access.base;
	const Buffer *root = tile_root_buffer(base);
	if (!root || (root->scope != MS_SHARED && root->scope != MS_SHARED_DYN))
		return true;
	int bits = dtype_bits(base->dtype);
	if (bits < 64)
		return diag_error(e->c, PT_E_PTX_MBAR_WIDTH, addr->span,
				  "%s holds %d-bit %s elements, but an mbarrier "
				  "object is 64 bits (8 bytes, 8-byte aligned): "
				  "declare it uint64 (or use .view(\"uint64\"))",
				  root->name, bits, dtype_name(base->dtype));
	MbarUse u = {root, addr->span, init};
	vec_push(&e->c->arena, uses, u);
	return true;
}

static const Expr *
first_address(const ExprVec *args)
{
	for (size_t i = 0; i < args->n; i++)
		if (args->v[i]->kind == EX_PTR_TO)
			return args->v[i];
	return NULL;
}

static bool
visit_expr(TileEnv *e, MbarUses *uses, const Expr *x)
{
	if (!x)
		return true;
	const PtxInst *in = x->kind == EX_PTX ? ir_ptx_form(x) : NULL;
	if (in && in->family == PTXF_MBARRIER)
		return use(e, uses, first_address(&x->u.ptx.args),
			   in->mnem == PTXMN_MBARRIER_INIT);
	if (x->kind == EX_BUILTIN && x->u.call.id == BI_MBARRIER_WAIT)
		return use(e, uses, first_address(&x->u.call.args), false);
	if (x->kind == EX_TILE_APPLY)
		for (size_t i = 0; i < x->u.apply.params.n; i++)
			if (!strcmp(x->u.apply.params.v[i].name, "mbar") &&
			    !use(e, uses, x->u.apply.params.v[i].value, false))
				return false;
	return true;
}

static bool
visit_block(TileEnv *e, MbarUses *uses, const Block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const Stmt *s = b->v[i];
		bool ok = true;
		switch (s->kind) {
		case ST_EVAL:
			ok = visit_expr(e, uses, s->u.value);
			break;
		case ST_FOR:
			ok = visit_block(e, uses, &s->u.loop.body);
			break;
		case ST_WHILE:
			ok = visit_block(e, uses, &s->u.whil.body);
			break;
		case ST_IF:
			ok = visit_block(e, uses, &s->u.cond.then) &&
			     visit_block(e, uses, &s->u.cond.els);
			break;
		default:
			break;
		}
		if (!ok)
			return false;
	}
	return true;
}

void
tile_mbar_lint(TileEnv *e, const Func *f)
{
	MbarUses uses = {0};
	if (!visit_block(e, &uses, &f->body))
		return;
	for (size_t i = 0; i < uses.n; i++) {
		bool init = false;
		for (size_t j = 0; j < uses.n && !init; j++)
			init = uses.v[j].init && uses.v[j].root == uses.v[i].root;
		if (!init) {
			diag_warning(e->c, PT_E_PTX_MBAR_UNINIT, uses.v[i].span,
				   "%s is used as an mbarrier, but no "
				   "mbarrier.init in this kernel initialises it "
				   "(initialise it, then fence.mbarrier_init or "
				   "a barrier, before its first use)",
				   uses.v[i].root->name);
			return;
		}
	}
}
