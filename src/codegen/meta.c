/*
 * meta.c - kernel metadata JSON in the schema src/rt/meta.c reads
 * (docs/metadata.md):
 *
 *   {"format": "ptxtile-meta", "version": 1, "target": T, "kernels": [
 *     {"name", "params": [...], "launch": {"grid", "block"[, "cluster"],
 *      "dynamic_smem"}}]}
 *
 * params are in PTX order: the user's parameters, then one "tma" entry
 * per runtime-encoded tensor map (Func.tmaps), then one "dim" entry
 * per symbolic size the kernel uses (a hidden .s32 parameter):
 * tensor {"name", "kind", "dtype", "shape" (ints or size names)[, "align"]},
 * scalar {"name", "kind", "dtype"}, tensormap {"name", "kind"},
 * dim {"name": "<size>$dim", "kind", "dtype": "int32", "var": size}: the
 * "$" keeps it apart from every script name (a scalar n_dim beside
 * T.dynamic("n")).
 * Launch dims are 3 long; each an int or an expression tree {"var": n} /
 * {"op": add|sub|mul|floordiv|mod|ceildiv|min|max, "args": [a, b]}
 * (integer `/` on sizes is written as floordiv: sizes are not negative).
 */
#include <string.h>

#include "codegen/codegen.h"
#include "base/json.h"

static void
write_size(StrBuf *b, const Expr *e)
{
	static const char *const binop[] = {
		[BIN_ADD] = "add", [BIN_SUB] = "sub", [BIN_MUL] = "mul",
		[BIN_DIV] = "floordiv", [BIN_FLOORDIV] = "floordiv",
		[BIN_MOD] = "mod",
	};
	int64_t v;
	if (ir_const_int(e, &v)) {
		json_write_int(b, v);
	} else if (e->kind == EX_VAR) {
		sb_puts(b, "{\"var\": ");
		json_write_string(b, e->u.var->name);
		sb_putc(b, '}');
	} else if (e->kind == EX_CAST) {
		write_size(b, e->u.op.a);
	} else if (e->kind == EX_BINARY && e->u.op.op <= BIN_MOD) {
		sb_printf(b, "{\"op\": \"%s\", \"args\": [", binop[e->u.op.op]);
		write_size(b, e->u.op.a);
		sb_puts(b, ", ");
		write_size(b, e->u.op.b);
		sb_puts(b, "]}");
	} else if (e->kind == EX_BUILTIN && e->u.call.args.n == 2 &&
		   (e->u.call.id == BI_CEILDIV || e->u.call.id == BI_MIN ||
		    e->u.call.id == BI_MAX)) {
		sb_printf(b, "{\"op\": \"%s\", \"args\": [",
			  e->u.call.id == BI_CEILDIV ? "ceildiv"
			  : e->u.call.id == BI_MIN ? "min" : "max");
		write_size(b, e->u.call.args.v[0]);
		sb_puts(b, ", ");
		write_size(b, e->u.call.args.v[1]);
		sb_puts(b, "]}");
	} else {
		sb_puts(b, "null");
	}
}

static void
write_dims(StrBuf *b, Expr *const *d, int n)
{
	sb_putc(b, '[');
	for (int i = 0; i < 3; i++) {
		if (i)
			sb_puts(b, ", ");
		if (i < n)
			write_size(b, d[i]);
		else
			sb_putc(b, '1');
	}
	sb_putc(b, ']');
}

/* A global tensor the kernel reads or writes only through tensor maps
 * (no element access or address of it was generated): the runtime
 * encodes those maps from the argument's own strides, so any strides
 * the maps accept will do. */
static bool
only_tensor_maps(Gen *g, const Param *p)
{
	const BufInfo *bi = gen_buf(g, p->buf);
	if (!bi || bi->addressed)
		return false;
	for (size_t i = 0; i < g->f->tmaps.n; i++) {
		const TmapSlot *t = g->f->tmaps.v[i];
		if (t->tensor == p->buf)
			return true;
	}
	return false;
}

static void
write_param(Gen *g, StrBuf *b, const Param *p)
{
	static const char *const kind[] = {
		[PK_TENSOR] = "tensor", [PK_SCALAR] = "scalar",
		[PK_TENSORMAP] = "tensormap",
	};
	const char *name = p->kind == PK_TENSOR ? p->buf->name : p->var->name;
	sb_puts(b, "{\"name\": ");
	json_write_string(b, name);
	sb_printf(b, ", \"kind\": \"%s\"", kind[p->kind]);
	if (p->kind == PK_TENSOR) {
		sb_printf(b, ", \"dtype\": \"%s\", \"shape\": [",
			  dtype_name(p->buf->dtype));
		for (int d = 0; d < p->buf->ndim; d++) {
			if (d)
				sb_puts(b, ", ");
			const Expr *e = p->buf->shape[d];
			if (e->kind == EX_VAR)
				json_write_string(b, e->u.var->name);
			else
				write_size(b, e);
		}
		sb_putc(b, ']');
		if (p->buf->align > 0)
			sb_printf(b, ", \"align\": %lld",
				  (long long)p->buf->align);
		if (only_tensor_maps(g, p))
			sb_puts(b, ", \"contiguous\": false");
	} else if (p->kind == PK_SCALAR) {
		sb_printf(b, ", \"dtype\": \"%s\"", dtype_name(p->var->dtype));
	}
	sb_putc(b, '}');
}

static void
write_ints(StrBuf *b, const char *key, const int64_t *v, int n)
{
	sb_printf(b, ", \"%s\": [", key);
	for (int i = 0; i < n; i++)
		sb_printf(b, i ? ", %lld" : "%lld", (long long)v[i]);
	sb_putc(b, ']');
}

/* A tensor map the runtime encodes (docs/metadata.md kind "tma"); every
 * field is written, so no runtime default decides anything. */
static void
write_tma(StrBuf *b, const TmapSlot *t)
{
	sb_puts(b, "{\"name\": ");
	json_write_string(b, t->name);
	sb_puts(b, ", \"kind\": \"tma\", \"tensor\": ");
	json_write_string(b, t->tensor->name);
	sb_printf(b, ", \"rank\": %d", t->rank);
	write_ints(b, "box", t->box, t->rank);
	write_ints(b, "element_strides", t->elem_strides, t->rank);
	if (t->region) {
		write_ints(b, "region_origin", t->region_origin, t->rank);
		write_ints(b, "region_extent", t->region_extent, t->rank);
	}
	sb_printf(b, ", \"format\": \"%s\", \"interleave\": \"%s\", "
		  "\"swizzle\": \"%s\", \"l2_promotion\": \"%s\", "
		  "\"oob_fill\": \"%s\"}", t->format, t->interleave,
		  t->swizzle, t->l2_promotion, t->oob_fill);
}

void
meta_kernel(Gen *g, StrBuf *b, bool first)
{
	const Func *f = g->f;
	size_t np = f->params.n;
	if (!first)
		sb_puts(b, ", ");
	sb_puts(b, "{\"name\": ");
	json_write_string(b, f->name);
	sb_puts(b, ", \"params\": [");
	for (size_t i = 0; i < np; i++) {
		if (i)
			sb_puts(b, ", ");
		write_param(g, b, &f->params.v[i]);
	}
	for (size_t i = 0; i < f->tmaps.n; i++) {
		const TmapSlot *t = f->tmaps.v[i];
		if (np++)
			sb_puts(b, ", ");
		write_tma(b, t);
	}
	for (size_t i = 0; i < g->ndims; i++) {
		if (i || np)
			sb_puts(b, ", ");
		sb_puts(b, "{\"name\": ");
		json_write_string(b, arena_printf(&g->c->arena, "%s$dim",
						  g->dims[i]->name));
		sb_puts(b, ", \"kind\": \"dim\", \"dtype\": \"int32\", "
			"\"var\": ");
		json_write_string(b, g->dims[i]->name);
		sb_putc(b, '}');
	}
	sb_puts(b, "], \"launch\": {\"grid\": ");
	write_dims(b, f->launch.grid, f->launch.ngrid);
	sb_puts(b, ", \"block\": ");
	write_dims(b, f->launch.block, f->launch.nblock);
	if (f->launch.ncluster) {
		sb_printf(b, ", \"cluster\": [%lld, %lld, %lld]",
			  (long long)f->launch.cluster[0],
			  (long long)(f->launch.ncluster > 1
				      ? f->launch.cluster[1] : 1),
			  (long long)(f->launch.ncluster > 2
				      ? f->launch.cluster[2] : 1));
	}
	sb_printf(b, ", \"dynamic_smem\": %lld}", (long long)g->dyn_bytes);
	for (size_t i = 0; i < f->assume.n; i++) {
		sb_puts(b, i ? ", " : ", \"assume\": [");
		sb_puts(b, "{\"var\": ");
		json_write_string(b, f->assume.v[i].var->name);
		sb_printf(b, ", \"multiple_of\": %lld}",
			  (long long)f->assume.v[i].multiple_of);
	}
	sb_puts(b, f->assume.n ? "]}" : "}");
}
