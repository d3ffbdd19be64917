/*
 * module.c - codegen_module: one .entry per kernel, the module header and
 * the metadata document.
 *
 * Per kernel: an analysis walk (which local arrays need .local memory,
 * which symbolic sizes the kernel uses), then the body into Gen.code with
 * declarations in Gen.decl, then the frame: parameters in order (tensors
 * .u64, scalars typed, tensor maps .align 64 .b8[128]), one hidden .s32
 * parameter per symbolic size used, .reqntid from constant block dims and
 * .reqnctapercluster/.explicitcluster from the launch cluster.  Tensor
 * maps of TMA calls on tensor parameters (Func.tmaps) are hidden
 * .align 64 .b8[128] parameters between the user's and the sizes.  The module
 * header's .version is the highest of the target's floor and what the
 * emitted instructions need.  Scalar functions (ewise lambdas) emit
 * nothing of their own.
 */
#include <string.h>

#include "codegen/codegen.h"
#include "base/json.h"
#include "ptx/ptx.h"

/* ---- variable bindings ---- */

void
gen_bind(Gen *g, const Var *v, Val val)
{
	size_t k = dense_index(&g->c->arena, &g->ids, v->id);
	while (g->vars.n <= k) {
		VarSlot s = {0};
		vec_push(&g->c->arena, &g->vars, s);
	}
	g->vars.v[k].bound = true;
	g->vars.v[k].val = val;
}

Val *
gen_var(Gen *g, const Var *v)
{
	size_t k = dense_find(&g->ids, v->id);
	if (k < g->vars.n && g->vars.v[k].bound)
		return &g->vars.v[k].val;
	return NULL;
}

static void
set_flag(Gen *g, void *vecp, int id, bool on)
{
	struct {
		bool *v;
		size_t n, cap;
	} *vec = vecp;
	while (vec->n <= (size_t)id)
		vec_push(&g->c->arena, vec, false);
	vec->v[id] = on;
}

void
gen_set_static(Gen *g, const Var *v, bool on)
{
	set_flag(g, &g->static_var, v->id, on);
}

bool
gen_is_static(Gen *g, const Var *v)
{
	return (size_t)v->id < g->static_var.n && g->static_var.v[v->id];
}

/* ---- analysis: static indices, symbolic sizes ---- */

typedef struct Scan {
	Gen *g;
	VEC(const Var *) dyn; /* symbolic sizes used */
} Scan;

static bool
is_static(Gen *g, const Expr *e)
{
	switch (e->kind) {
	case EX_INT:
	case EX_BOOL:
		return true;
	case EX_VAR:
		return gen_is_static(g, e->u.var);
	case EX_UNARY:
	case EX_CAST:
		return is_static(g, e->u.op.a);
	case EX_BINARY:
		return is_static(g, e->u.op.a) && is_static(g, e->u.op.b);
	default:
		return false;
	}
}

static Buffer *
root_buffer(const Expr *e)
{
	for (;;) {
		switch (e->kind) {
		case EX_BUF:
			if (e->u.buf->kind != BK_VIEW)
				return e->u.buf;
			e = e->u.buf->view;
			break;
		case EX_REGION: e = e->u.region.base; break;
		case EX_VIEW_DTYPE:
		case EX_VIEW_RESHAPE: e = e->u.view.base; break;
		default: return NULL;
		}
	}
}

static bool
region_static(Gen *g, const Expr *e)
{
	for (; e; ) {
		if (e->kind == EX_REGION) {
			for (int d = 0; d < e->u.region.ndims; d++) {
				const Slice *s = &e->u.region.dims[d];
				if (s->begin && !is_static(g, s->begin))
					return false;
			}
			e = e->u.region.base;
		} else if (e->kind == EX_VIEW_DTYPE) {
			e = e->u.view.base;
		} else if (e->kind == EX_BUF && e->u.buf->kind == BK_VIEW) {
			e = e->u.buf->view;
		} else {
			return true;
		}
	}
	return true;
}

static void scan_expr(Scan *s, const Expr *e);

static void
scan_vec(Scan *s, const ExprVec *v)
{
	for (size_t i = 0; i < v->n; i++)
		scan_expr(s, v->v[i]);
}

static void
mark_access(Scan *s, const Expr *base, const ExprVec *idx, bool addr)
{
	Buffer *b = root_buffer(base);
	if (!b || b->kind != BK_ALLOC || b->scope != MS_LOCAL)
		return;
	bool dyn = addr || !region_static(s->g, base);
	for (size_t i = 0; idx && i < idx->n && !dyn; i++)
		dyn = !is_static(s->g, idx->v[i]);
	if (dyn)
		set_flag(s->g, &s->g->dyn_local, b->id, true);
}

static void
note_dyn(Scan *s, const Var *v)
{
	for (size_t i = 0; i < s->dyn.n; i++)
		if (s->dyn.v[i] == v)
			return;
	vec_push(&s->g->c->arena, &s->dyn, v);
}

static void
scan_expr(Scan *s, const Expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case EX_VAR:
		if (e->u.var->kind == VK_DYN)
			note_dyn(s, e->u.var);
		break;
	case EX_UNARY: case EX_BINARY: case EX_CAST: case EX_REINTERPRET:
	case EX_SELECT:
		scan_expr(s, e->u.op.a);
		scan_expr(s, e->u.op.b);
		scan_expr(s, e->u.op.c);
		break;
	case EX_LOAD:
	case EX_PTR_TO:
		mark_access(s, e->u.access.base, &e->u.access.indices,
			    e->kind == EX_PTR_TO);
		scan_expr(s, e->u.access.base);
		scan_vec(s, &e->u.access.indices);
		break;
	case EX_BUILTIN: scan_vec(s, &e->u.call.args); break;
	case EX_REGION:
		scan_expr(s, e->u.region.base);
		for (int d = 0; d < e->u.region.ndims; d++) {
			scan_expr(s, e->u.region.dims[d].begin);
			scan_expr(s, e->u.region.dims[d].end);
		}
		break;
	case EX_VIEW_DTYPE:
	case EX_VIEW_RESHAPE:
		scan_expr(s, e->u.view.base);
		break;
	case EX_TUPLE: scan_vec(s, &e->u.tuple); break;
	case EX_PTX:
		scan_vec(s, &e->u.ptx.args);
		scan_expr(s, e->u.ptx.pred);
		break;
	case EX_TILE_APPLY: scan_vec(s, &e->u.apply.operands); break;
	default: break;
	}
}

static void scan_block(Scan *s, const Block *b);

static void
scan_stmt(Scan *s, const Stmt *st)
{
	switch (st->kind) {
	case ST_VAR_DECL:
	case ST_ASSIGN:
		scan_expr(s, st->u.var.value);
		break;
	case ST_STORE:
		mark_access(s, st->u.store.base, &st->u.store.indices, false);
		scan_expr(s, st->u.store.base);
		scan_vec(s, &st->u.store.indices);
		scan_expr(s, st->u.store.value);
		break;
	case ST_BUF_DEF:
		for (int i = 0; i < st->u.buf->ndim; i++)
			scan_expr(s, st->u.buf->shape[i]);
		scan_expr(s, st->u.buf->view);
		scan_expr(s, st->u.buf->allocated_addr);
		break;
	case ST_FOR:
		scan_expr(s, st->u.loop.begin);
		scan_expr(s, st->u.loop.end);
		scan_expr(s, st->u.loop.step);
		gen_set_static(s->g, st->u.loop.var,
			       st->u.loop.kind == FOR_UNROLL &&
			       is_static(s->g, st->u.loop.begin) &&
			       is_static(s->g, st->u.loop.end) &&
			       (!st->u.loop.step ||
				is_static(s->g, st->u.loop.step)));
		scan_block(s, &st->u.loop.body);
		break;
	case ST_WHILE:
		scan_expr(s, st->u.whil.cond);
		scan_block(s, &st->u.whil.body);
		break;
	case ST_IF:
		scan_expr(s, st->u.cond.cond);
		scan_block(s, &st->u.cond.then);
		scan_block(s, &st->u.cond.els);
		break;
	case ST_RETURN:
	case ST_EVAL:
		scan_expr(s, st->u.value);
		break;
	default:
		break;
	}
}

static void
scan_block(Scan *s, const Block *b)
{
	for (size_t i = 0; i < b->n; i++)
		scan_stmt(s, b->v[i]);
}

/* Symbolic sizes of the kernel in module order. */
static void
scan_func(Gen *g, Func *f, Scan *s)
{
	s->g = g;
	for (size_t i = 0; i < f->params.n; i++) {
		const Buffer *b = f->params.v[i].buf;
		for (int d = 0; b && d < b->ndim; d++)
			scan_expr(s, b->shape[d]);
	}
	for (int i = 0; i < f->launch.ngrid; i++)
		scan_expr(s, f->launch.grid[i]);
	for (int i = 0; i < f->launch.nblock; i++)
		scan_expr(s, f->launch.block[i]);
	scan_block(s, &f->body);
}

/* ---- the entry frame ---- */

static const char *
param_type(DType t)
{
	if (t == DT_BOOL)
		return "u8";
	if (t == DT_FLOAT32)
		return "f32";
	if (t == DT_FLOAT64)
		return "f64";
	if (dtype_is_float(t) || dtype_kind(t) == DK_BITS)
		return dtype_bits(t) == 16 ? "b16" : dtype_bits(t) == 32
			? "b32" : dtype_bits(t) == 64 ? "b64" : "b8";
	return ptx_int_suffix(t);
}

static const char *
param_name(Gen *g, const char *stem)
{
	const char *s = arena_printf(&g->c->arena, "%s_%s", g->f->name, stem);
	vec_push(&g->c->arena, &g->names, s);
	return s;
}

static void
load_scalar_param(Gen *g, const Var *v, const char *name)
{
	DType t = v->dtype;
	Val r = gen_reg(g, t == DT_BOOL ? DT_UINT16 : t);
	gen_emit(g, "ld.param.%s %s, [%s];", param_type(t), r.s, name);
	gen_bind(g, v, gen_convert(g, r, t, v->span));
}

/* A tensor map is addressed generically: the parameter's own address
 * through cvta.param (ptxas rejects the bare .param symbol as the tensor
 * operand of cp.async.bulk.tensor). */
static void
tensormap_param(Gen *g, const Var *v, const char *name)
{
	Val p = gen_reg(g, DT_UINT64), a = gen_reg(g, DT_UINT64);
	gen_emit(g, "mov.u64 %s, %s;", p.s, name);
	gen_emit(g, "cvta.param.u64 %s, %s;", a.s, p.s);
	gen_need_ptx(g, 77);
	gen_bind(g, v, a);
}

/* Parameter list text; binds parameters and symbolic sizes. */
static void
gen_params(Gen *g, const Scan *s, StrBuf *out)
{
	Func *f = g->f;
	const char *sep = "\n";
	sb_puts(out, "(");
	for (size_t i = 0; i < f->params.n; i++, sep = ",\n") {
		Param *p = &f->params.v[i];
		const char *stem = p->kind == PK_TENSOR ? p->buf->name
							: p->var->name;
		const char *name = param_name(g, stem);
		sb_puts(out, sep);
		if (p->kind == PK_TENSOR) {
			sb_printf(out, "\t.param .u64 %s", name);
			gen_param_tensor(g, p->buf, name);
		} else if (p->kind == PK_TENSORMAP) {
			sb_printf(out, "\t.param .align 64 .b8 %s[128]", name);
			tensormap_param(g, p->var, name);
		} else {
			sb_printf(out, "\t.param .%s %s",
				  param_type(p->var->dtype), name);
			load_scalar_param(g, p->var, name);
		}
	}
	for (size_t i = 0; i < f->tmaps.n; i++) {
		const TmapSlot *t = f->tmaps.v[i];
		const char *name = param_name(g, t->name);
		sb_printf(out, "%s\t.param .align 64 .b8 %s[128]", sep, name);
		tensormap_param(g, t->var, name);
		sep = ",\n";
	}
	for (size_t i = 0; i < s->dyn.n; i++, sep = ",\n") {
		const Var *v = s->dyn.v[i];
		/* '$' is in no script name: a scalar parameter n_dim
		 * beside T.dynamic("n") keeps its own symbol */
		const char *name = param_name(g, arena_printf(
			&g->c->arena, "%s$dim", v->name));
		sb_printf(out, "%s\t.param .s32 %s", sep, name);
		Val r = gen_reg(g, DT_INT32);
		gen_emit(g, "ld.param.s32 %s, [%s];", r.s, name);
		gen_bind(g, v, gen_convert(g, r, v->dtype, v->span));
	}
	sb_puts(out, strcmp(sep, "\n") ? "\n)\n" : ")\n");
}

/* Whether the target has directive d (its gate row), recording the PTX
 * version it needs; what: the script feature that asks for it. */
static bool
directive(Gen *g, PtxDirective d, const char *what)
{
	const PtxDirectiveRow *row = ptx_directive(d);
	if (!ptx_gate_allows(row->gate, g->c->target)) {
		gen_error(g, PT_E_CODEGEN_TARGET, g->f->span,
			  "%s needs %s or newer", what,
			  ptx_gate_min_target(row->gate));
		return false;
	}
	gen_need_ptx(g, row->min_ptx);
	return true;
}

static void
gen_directives(Gen *g, StrBuf *out)
{
	const Launch *l = &g->f->launch;
	int64_t d[3] = {1, 1, 1};
	bool all = l->nblock > 0;
	for (int i = 0; i < l->nblock && i < 3; i++)
		all &= ir_const_int(l->block[i], &d[i]);
	if (all)
		sb_printf(out, ".reqntid %lld, %lld, %lld\n", (long long)d[0],
			  (long long)d[1], (long long)d[2]);
	if (l->max_registers)
		sb_printf(out, ".maxnreg %lld\n", (long long)l->max_registers);
	if (l->min_blocks_per_sm)
		sb_printf(out, ".minnctapersm %lld\n",
			  (long long)l->min_blocks_per_sm);
	if (l->max_blocks_per_cluster) {
		directive(g, PTXD_MAXCLUSTERRANK, "max_blocks_per_cluster");
		sb_printf(out, "%s %lld\n",
			  ptx_directive(PTXD_MAXCLUSTERRANK)->name,
			  (long long)l->max_blocks_per_cluster);
	}
	if (l->ncluster == 0)
		return;
	if (!directive(g, PTXD_REQNCTAPERCLUSTER, "a launch cluster") ||
	    !directive(g, PTXD_EXPLICITCLUSTER, "a launch cluster"))
		return;
	int64_t c[3] = {1, 1, 1};
	for (int i = 0; i < l->ncluster && i < 3; i++)
		c[i] = l->cluster[i];
	sb_printf(out, "%s %lld, %lld, %lld\n%s\n",
		  ptx_directive(PTXD_REQNCTAPERCLUSTER)->name, (long long)c[0],
		  (long long)c[1], (long long)c[2],
		  ptx_directive(PTXD_EXPLICITCLUSTER)->name);
}

static void
reg_decls(Gen *g, StrBuf *out)
{
	static const char *const decl[RC_COUNT] = {
		[RC_PRED] = ".pred %p", [RC_B16] = ".b16 %rs",
		[RC_B32] = ".b32 %r", [RC_B64] = ".b64 %rd",
		[RC_F32] = ".f32 %f", [RC_F64] = ".f64 %fd",
	};
	for (int k = 0; k < RC_COUNT; k++)
		if (g->nreg[k])
			sb_printf(out, "\t.reg %s<%d>;\n", decl[k],
				  g->nreg[k] + 1);
}

/* Emits one kernel into out; false after errors. */
static bool
gen_kernel(Gen *g, Func *f, StrBuf *out)
{
	Scan s = {0};
	scan_func(g, f, &s);
	StrBuf params;
	sb_init(&params, &g->c->arena);
	gen_params(g, &s, &params);
	g->dims = s.dyn.v;
	g->ndims = s.dyn.n;
	gen_block(g, &f->body);
	StrBuf dirs;
	sb_init(&dirs, &g->c->arena);
	gen_directives(g, &dirs);
	if (g->static_smem > 48 * 1024)
		gen_error(g, PT_E_CODEGEN_SMEM_LIMIT, f->span,
			  "%lld bytes of static shared memory; use"
			  " shared.dyn above 48 KiB",
			  (long long)g->static_smem);
	/* the opt-in maximum per block: 163 KiB on sm_80, 227 KiB on
	 * sm_90 and sm_100 (CUDA programming guide, compute capabilities) */
	int64_t smem_max = target_sm(g->c->target) < 90 ? 163 * 1024
							 : 227 * 1024;
	if (g->dyn_bytes > smem_max - g->static_smem)
		gen_error(g, PT_E_SMEM_TARGET, f->span,
			  "%lld bytes of shared memory (%lld static, %lld "
			  "dynamic); %s allows at most %lld per block",
			  (long long)(g->static_smem > INT64_MAX - g->dyn_bytes
					      ? INT64_MAX
					      : g->static_smem + g->dyn_bytes),
			  (long long)g->static_smem, (long long)g->dyn_bytes,
			  target_name(g->c->target), (long long)smem_max);
	if (g->failed)
		return false;
	sb_printf(out, "\n\t// .globl\t%s\n.visible .entry %s", f->name,
		  f->name);
	sb_puts(out, sb_cstr(&params));
	sb_puts(out, sb_cstr(&dirs));
	sb_puts(out, "{\n");
	reg_decls(g, out);
	sb_puts(out, sb_cstr(&g->decl));
	sb_putc(out, '\n');
	sb_puts(out, sb_cstr(&g->code));
	sb_puts(out, "\tret;\n}\n");
	return true;
}

static void
gen_init(Gen *g, Ctx *c, const Module *m, Func *f)
{
	memset(g, 0, sizeof *g);
	g->c = c;
	g->m = m;
	g->f = f;
	sb_init(&g->decl, &c->arena);
	sb_init(&g->code, &c->arena);
	g->ptx_ver = ptx_target_min_version(c->target);
}

/* ptxas 13.0 reads a .file name as bytes between quotes: it has no escape
 * for '"' ("Parsing error") and refuses non-ASCII bytes ("Unexpected
 * non-ASCII character"); control bytes would end the line.  A name the
 * directive cannot hold is an error, not a silently different name. */
static void
check_file_names(Ctx *c)
{
	for (size_t i = 0; i < c->files.n; i++) {
		const char *n = c->files.v[i].name;
		for (const unsigned char *p = (const unsigned char *)n; p && *p;
		     p++)
			if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\') {
				diag_error(c, PT_E_LINEINFO_PATH, (Span){0},
					   "--lineinfo: source path %s holds "
					   "byte 0x%02x, which a PTX .file "
					   "directive cannot spell; compile "
					   "it from another path", n, *p);
				break;
			}
	}
}

void
codegen_module(Ctx *c, Module *m, const char **ptx, const char **meta)
{
	StrBuf body, doc;
	sb_init(&body, &c->arena);
	sb_init(&doc, &c->arena);
	int ver = ptx_target_min_version(c->target);
	int64_t dyn_align = 0;
	bool first = true;
	ModDecl mod = {0};
	sb_init(&mod.decl, &c->arena);
	c->stmts = 0;
	sb_puts(&doc, "{\"format\": \"ptxtile-meta\", \"version\": 1, "
		"\"target\": ");
	json_write_string(&doc, target_name(c->target));
	sb_puts(&doc, ", \"kernels\": [");
	for (size_t i = 0; i < m->funcs.n; i++) {
		Func *f = m->funcs.v[i];
		if (!f->is_kernel)
			continue;
		Gen g;
		gen_init(&g, c, m, f);
		g.mod = &mod;
		g.ptx_done = body.n;
		if (!gen_kernel(&g, f, &body))
			continue;
		if (g.ptx_ver > ver)
			ver = g.ptx_ver;
		if (g.dyn_align > dyn_align)
			dyn_align = g.dyn_align;
		meta_kernel(&g, &doc, first);
		first = false;
	}
	sb_puts(&doc, "]}\n");
	if (c->lineinfo)
		check_file_names(c);
	if (ctx_has_errors(c))
		return;
	StrBuf out;
	sb_init(&out, &c->arena);
	sb_printf(&out, "//\n// Generated by ptxtile %s\n//\n\n", PT_VERSION);
	sb_printf(&out, ".version %d.%d\n.target %s\n.address_size 64\n",
		  ver / 10, ver % 10, target_name(c->target));
	if (c->lineinfo) /* the scripts the .loc lines name */
		for (size_t i = 0; i < c->files.n; i++) {
			sb_printf(&out, "%s.file %zu ", i ? "" : "\n", i + 1);
			json_write_string(&out, c->files.v[i].name);
			sb_putc(&out, '\n');
		}
	if (dyn_align)
		sb_printf(&out, "\n.extern .shared .align %lld .b8 dyn_smem[];\n",
			  (long long)dyn_align);
	if (mod.vprintf)
		sb_puts(&out, "\n.extern .func (.param .b32 func_retval0) vprintf"
			"(.param .b64 vprintf_param_0, .param .b64 "
			"vprintf_param_1);\n");
	if (mod.nstr)
		sb_printf(&out, "\n%s", sb_cstr(&mod.decl));
	sb_puts(&out, sb_cstr(&body));
	*ptx = sb_cstr(&out);
	*meta = sb_cstr(&doc);
}
