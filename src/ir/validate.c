/*
 * validate.c - checks every module passes whichever front end made it
 * (script lowering or the IR JSON reader), before any pass trusts it.
 *
 * Input is hostile: a JSON document can carry any name, count or
 * constant.  Checked here:
 *  - names: identifiers ([A-Za-z_][A-Za-z0-9_$]*) of at most
 *    PT_NAME_MAX bytes, since they are spliced into PTX text; kernel
 *    names unique, and a kernel's parameter symbols (<kernel>_<param>,
 *    <kernel>_<size>_dim) unique after that mangling;
 *  - launch: constant grid, block and cluster dimensions inside the
 *    hardware limits (block x,y <= 1024, z <= 64, <= 1024 threads;
 *    grid x < 2^31, y,z < 2^16; cluster >= 1 and <= 16 CTAs);
 *  - buffers: rank <= VIEW_MAX_DIMS, constant extents positive with an
 *    element count and byte size that fit (layout_check, which also
 *    matches a layout against its buffer's shape), align a positive
 *    power of two;
 *  - loops: a constant step is not zero (Python's range raises).
 */
#include <string.h>

#include "ir/ir.h"
#include "layout/layout.h"
#include "layout/view.h"
#include "ir/validate.h"

enum { ALIGN_MAX = 1 << 20 };

typedef struct Validator {
	Ctx *c;
	StrSet kernels;
	bool deep_reported; /* one E9019 for a chain, not one per link */
} Validator;

bool
ir_name_ok(const char *s)
{
	if (!s || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		    *s == '_'))
		return false;
	size_t n = 1;
	for (const char *p = s + 1; *p; p++, n++) {
		char ch = *p;
		if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '$'))
			return false;
	}
	return n <= PT_NAME_MAX;
}

static bool
check_name(Validator *v, const char *name, Span sp, const char *what)
{
	if (ir_name_ok(name))
		return true;
	return diag_error(v->c, PT_E_BAD_NAME, sp,
			  "%s name \"%.40s%s\" is not an identifier of at "
			  "most %d characters", what, name ? name : "",
			  name && strlen(name) > 40 ? "..." : "", PT_NAME_MAX);
}

/* A launch dimension or tensor extent is evaluated by the runtime before
 * the launch (codegen/meta.c writes the tree): constants, scalar
 * parameters, symbolic sizes and their arithmetic.  NULL when e is one of
 * those, else the first part that only the device knows (a thread or
 * block id, a load).  Depth-bounded by the front ends (AST_MAX_DEPTH,
 * JSON_MAX_DEPTH). */
static const Expr *
device_part(const Expr *e)
{
	int64_t k;
	if (!e || ir_const_int(e, &k))
		return NULL;
	switch (e->kind) {
	case EX_VAR:
		return e->u.var->kind == VK_PARAM || e->u.var->kind == VK_DYN
			       ? NULL : e;
	case EX_CAST:
		return device_part(e->u.op.a);
	case EX_BINARY:
		if (e->u.op.op > BIN_MOD)
			return e;
		return device_part(e->u.op.a) ? device_part(e->u.op.a)
					      : device_part(e->u.op.b);
	case EX_BUILTIN:
		if (e->u.call.args.n != 2 || (e->u.call.id != BI_CEILDIV &&
					      e->u.call.id != BI_MIN &&
					      e->u.call.id != BI_MAX))
			return e;
		return device_part(e->u.call.args.v[0])
			       ? device_part(e->u.call.args.v[0])
			       : device_part(e->u.call.args.v[1]);
	default:
		return e;
	}
}

static const char *
device_part_name(const Expr *e)
{
	if (e->kind == EX_BUILTIN)
		return builtin_spelling(e->u.call.id);
	if (e->kind == EX_VAR)
		return e->u.var->name;
	return "a device value";
}

static bool
check_host_value(Validator *v, const Expr *e, const char *what,
		 const char *axis)
{
	const Expr *d = device_part(e);
	if (!d)
		return true;
	return diag_error(v->c, PT_E_HOST_VALUE, d->span,
			  "%s %s needs a value the host knows before the "
			  "launch, not %s", what, axis, device_part_name(d));
}

/* The launch limits every CUDA device since sm_30 shares. */
static void
check_launch(Validator *v, const Func *f)
{
	static const int64_t grid_max[3] = {INT32_MAX, 65535, 65535};
	static const int64_t block_max[3] = {1024, 1024, 64};
	static const char *const axis[3] = {"x", "y", "z"};
	const Launch *l = &f->launch;
	int64_t k, threads = 1, ctas = 1;
	bool host = true;
	for (int i = 0; i < l->ngrid && i < 3; i++)
		host &= check_host_value(v, l->grid[i], "grid", axis[i]);
	for (int i = 0; i < l->nblock && i < 3; i++)
		host &= check_host_value(v, l->block[i], "block", axis[i]);
	if (!host)
		return;
	for (int i = 0; i < l->ngrid && i < 3; i++)
		if (ir_const_int(l->grid[i], &k) && (k < 1 || k > grid_max[i]))
			diag_error(v->c, PT_E_LAUNCH_LIMIT, l->grid[i]->span,
				   "grid %s is %lld, outside 1..%lld", axis[i],
				   (long long)k, (long long)grid_max[i]);
	for (int i = 0; i < l->nblock && i < 3; i++) {
		if (!ir_const_int(l->block[i], &k))
			continue;
		if (k < 1 || k > block_max[i]) {
			diag_error(v->c, PT_E_LAUNCH_LIMIT, l->block[i]->span,
				   "block %s is %lld, outside 1..%lld", axis[i],
				   (long long)k, (long long)block_max[i]);
			return;
		}
		threads *= k;
	}
	if (threads > 1024)
		diag_error(v->c, PT_E_LAUNCH_LIMIT, l->block[0]->span,
			   "a block of %lld threads (at most 1024)",
			   (long long)threads);
	for (int i = 0; i < l->ncluster && i < 3; i++) {
		if (l->cluster[i] < 1 || l->cluster[i] > 16) {
			diag_error(v->c, PT_E_LAUNCH_LIMIT, f->span,
				   "cluster %s is %lld, outside 1..16", axis[i],
				   (long long)l->cluster[i]);
			return;
		}
		ctas *= l->cluster[i];
	}
	if (ctas > 16)
		diag_error(v->c, PT_E_LAUNCH_LIMIT, f->span,
			   "a cluster of %lld CTAs (at most 16)",
			   (long long)ctas);
}

static void
check_buffer(Validator *v, const Buffer *b)
{
	if (!check_name(v, b->name, b->span, "buffer"))
		return;
	if (b->ndim < 0 || b->ndim > VIEW_MAX_DIMS) {
		diag_error(v->c, PT_E_BAD_SHAPE, b->span,
			   "buffer %s has rank %d (at most %d)", b->name,
			   b->ndim, VIEW_MAX_DIMS);
		return;
	}
	/* ptxas refuses .align 2^34 ("constant overflow"); no address
	 * needs more than 1 MiB */
	if (b->align != 0 && (b->align < 1 || b->align > ALIGN_MAX ||
			      (b->align & (b->align - 1))))
		diag_error(v->c, PT_E_BAD_ALIGN, b->span,
			   "buffer %s: align=%lld is not a power of two in "
			   "1..%d", b->name, (long long)b->align, ALIGN_MAX);
	if (b->kind == BK_VIEW)
		return; /* shape and layout come from the view expression */
	int64_t shape[VIEW_MAX_DIMS];
	bool all = true;
	for (int i = 0; i < b->ndim; i++) {
		if (!b->shape || !b->shape[i] ||
		    !ir_const_int(b->shape[i], &shape[i])) {
			all = false;
			continue;
		}
		if (shape[i] < 1) {
			diag_error(v->c, PT_E_BAD_SHAPE, b->span,
				   "buffer %s: extent %d is %lld; extents must "
				   "be positive", b->name, i,
				   (long long)shape[i]);
			return;
		}
	}
	int64_t bytes;
	if (all && layout_check(v->c, b->span, b->layout, shape, b->ndim, 0) &&
	    ckd_mul64(&bytes, layout_alloc_elems(b->layout, shape, b->ndim),
		      (dtype_bits(b->dtype) + 7) / 8))
		diag_error(v->c, PT_E_INT_OVERFLOW, b->span,
			   "buffer %s: byte size overflows 64 bits", b->name);
}

static void check_block(Validator *v, const Block *b);

/* The buffer a view expression reads (through nested regions and
 * views of one expression); NULL when it is not a buffer. */
static const Buffer *
view_base(const Expr *e)
{
	while (e && (e->kind == EX_REGION || e->kind == EX_VIEW_DTYPE ||
		     e->kind == EX_VIEW_RESHAPE))
		e = e->kind == EX_REGION ? e->u.region.base : e->u.view.base;
	return e && e->kind == EX_BUF ? e->u.buf : NULL;
}

/* Whether b is a view of a view ... more than limit levels deep (codegen
 * resolves a chain recursively); walks at most limit + 1 links. */
static bool
view_chain_longer(const Buffer *b, int limit)
{
	for (int n = 0; b && b->kind == BK_VIEW && b->view; n++) {
		if (n >= limit)
			return true;
		b = view_base(b->view);
	}
	return false;
}

static void
check_var(Validator *v, const Var *x, Span sp)
{
	if (x)
		check_name(v, x->name, sp, "variable");
}

static void
check_stmt(Validator *v, const Stmt *s)
{
	int64_t k;
	switch (s->kind) {
	case ST_VAR_DECL:
		check_var(v, s->u.var.var, s->span);
		break;
	case ST_BUF_DEF:
		if (s->u.buf)
			check_buffer(v, s->u.buf);
		if (s->u.buf && !v->deep_reported &&
		    view_chain_longer(s->u.buf, IR_MAX_DEPTH)) {
			diag_error(v->c, PT_E_DEPTH_BUDGET, s->span,
				   "buffer %s is a view of a view ... more than "
				   "%d levels deep", s->u.buf->name,
				   IR_MAX_DEPTH);
			v->deep_reported = true;
		}
		break;
	case ST_FOR:
		check_var(v, s->u.loop.var, s->span);
		if (s->u.loop.step && ir_const_int(s->u.loop.step, &k) &&
		    k == 0)
			diag_error(v->c, PT_E_ZERO_STEP, s->span,
				   "loop step is zero");
		check_block(v, &s->u.loop.body);
		break;
	case ST_WHILE:
		check_block(v, &s->u.whil.body);
		break;
	case ST_IF:
		check_block(v, &s->u.cond.then);
		check_block(v, &s->u.cond.els);
		break;
	default:
		break;
	}
}

static void
check_block(Validator *v, const Block *b)
{
	for (size_t i = 0; i < b->n; i++)
		check_stmt(v, b->v[i]);
}

/* <kernel>_<stem> for each parameter (codegen/module.c gen_params): the
 * stems must differ, or two .param symbols would collide.  A symbolic
 * size's parameter is <kernel>_<size>$dim, which no validated name can
 * spell, so it collides with none. */
static void
check_param_symbols(Validator *v, const Module *m, const Func *f)
{
	StrSet seen = {0};
	Arena *a = &v->c->arena;
	(void)m;
	for (size_t i = 0; i < f->params.n; i++) {
		const Param *p = &f->params.v[i];
		const char *stem = p->kind == PK_TENSOR ? p->buf->name
							: p->var->name;
		if (!strset_add(a, &seen, stem))
			diag_error(v->c, PT_E_NAME_CLASH, p->span,
				   "parameter %s of %s clashes with another "
				   "parameter", stem, f->name);
	}
}

static void
check_func(Validator *v, const Module *m, const Func *f)
{
	if (!check_name(v, f->name, f->span, "function"))
		return;
	/* a lone `_` is not a PTX identifier ([_$%] needs a follower) and
	 * WARP_SZ is PTX's predefined constant; ptxas refuses both as an
	 * .entry name (PTX ISA, "Identifiers") */
	if (f->is_kernel &&
	    (!strcmp(f->name, "_") || !strcmp(f->name, "WARP_SZ")))
		diag_error(v->c, PT_E_PTX_RESERVED, f->span,
			   "kernel name %s is reserved in PTX", f->name);
	if (f->is_kernel && !strset_add(&v->c->arena, &v->kernels, f->name))
		diag_error(v->c, PT_E_NAME_CLASH, f->span,
			   "kernel %s defined twice", f->name);
	size_t before = v->c->nerrors;
	for (size_t i = 0; i < f->params.n; i++) {
		const Param *p = &f->params.v[i];
		if (p->kind == PK_TENSOR && p->buf) {
			check_buffer(v, p->buf);
			for (int d = 0; p->buf->shape && d < p->buf->ndim; d++)
				check_host_value(v, p->buf->shape[d],
						 "tensor extent of",
						 p->buf->name);
		}
		else if (p->var)
			check_name(v, p->var->name, p->span, "parameter");
		else
			diag_error(v->c, PT_E_BAD_NAME, p->span,
				   "parameter without a name");
	}
	if (f->is_kernel && v->c->nerrors == before) {
		check_param_symbols(v, m, f);
		check_launch(v, f);
	}
	check_block(v, &f->body);
}

void
ir_validate_module(Ctx *c, const Module *m)
{
	Validator v = {c, {0}, false};
	for (size_t i = 0; i < m->dyn.n; i++)
		check_name(&v, m->dyn.v[i]->name, m->dyn.v[i]->span,
			   "symbolic size");
	for (size_t i = 0; i < m->funcs.n; i++)
		check_func(&v, m, m->funcs.v[i]);
}
