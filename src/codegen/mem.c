/*
 * mem.c - buffers: storage, element addresses, loads, stores, ptr_to.
 *
 * Tensor parameters hold a global base register (cvta.to.global of the
 * .param .u64 value) and keep the generic value for generic addresses.
 * Shared allocations are .shared symbols in the entry (bytes from the
 * layout's storage span, default alignment 16); shared.dyn allocations
 * are offsets into one extern array whose total is the kernel's dynamic
 * shared memory.  Local allocations are one register per storage element
 * when every access has a static index (the analysis in module.c), else a
 * .local array.  Shared addresses are 32-bit (shared window), global and
 * local addresses 64-bit.
 *
 * Element offsets: a default layout is row-major over the (possibly
 * symbolic) shape; an explicit layout needs a static shape and maps the
 * row-major flat index through its m-axis iters (div/rem) and swizzle.
 * Views (regions, same-width dtype views) resolve to their root buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"

/* A resolved element access: root buffer, one index per root dim. */
typedef struct Access {
	Buffer *root;
	Val idx[16];
	DType dt;     /* element dtype seen through views */
	bool storage; /* idx[0] counts dt-sized units of the root's storage
		       * (the m axis), as `buf.view(N).view(dtype)` does */
} Access;

BufInfo *
gen_buf(Gen *g, const Buffer *b)
{
	size_t k = dense_find(&g->ids, b->id);
	return k < g->bufs.n ? g->bufs.v[k] : NULL;
}

static void
set_buf(Gen *g, const Buffer *b, BufInfo *bi)
{
	size_t k = dense_index(&g->c->arena, &g->ids, b->id);
	while (g->bufs.n <= k)
		vec_push(&g->c->arena, &g->bufs, NULL);
	g->bufs.v[k] = bi;
}

/* A symbol not yet used in this entry, from a readable stem. */
static const char *
unique_name(Gen *g, const char *stem)
{
	const char *s = stem;
	for (int k = 1;; k++) {
		bool used = false;
		for (size_t i = 0; i < g->names.n && !used; i++)
			used = strcmp(g->names.v[i], s) == 0;
		if (!used)
			break;
		s = arena_printf(&g->c->arena, "%s_%d", stem, k);
	}
	vec_push(&g->c->arena, &g->names, s);
	return s;
}

static bool
static_shape(const Buffer *b, int64_t *shape)
{
	for (int i = 0; i < b->ndim; i++)
		if (!ir_const_int(b->shape[i], &shape[i]))
			return false;
	return true;
}

/* Storage elements of an allocation (layout span or shape product). */
static int64_t
storage_elems(const Buffer *b, const int64_t *shape)
{
	if (b->layout)
		return layout_alloc_elems(b->layout, shape, b->ndim);
	int64_t n = 1;
	for (int i = 0; i < b->ndim; i++)
		n *= shape[i];
	return n;
}

/* n < 2^60 (layout_check), so neither form overflows. */
static int64_t
bytes_of(DType t, int64_t n)
{
	int bits = dtype_bits(t);
	return bits % 8 == 0 ? n * (bits / 8) : (n * bits + 7) / 8;
}

/* a + b, saturating: a sum of allocation sizes only has to be compared
 * against a limit far below INT64_MAX. */
static int64_t
sat_add(int64_t a, int64_t b)
{
	int64_t r;
	return ckd_add64(&r, a, b) ? INT64_MAX : r;
}

void
gen_param_tensor(Gen *g, Buffer *b, const char *param)
{
	BufInfo *bi = NEW(&g->c->arena, BufInfo);
	Val gen = gen_reg(g, DT_UINT64), glob = gen_reg(g, DT_UINT64);
	gen_emit(g, "ld.param.u64 %s, [%s];", gen.s, param);
	gen_emit(g, "cvta.to.global.u64 %s, %s;", glob.s, gen.s);
	bi->st = BS_GLOBAL;
	bi->sym = glob.s;
	bi->generic = gen.s;
	set_buf(g, b, bi);
}

static bool
is_dyn_local(Gen *g, const Buffer *b)
{
	return (size_t)b->id < g->dyn_local.n && g->dyn_local.v[b->id];
}

static void
def_local(Gen *g, Buffer *b, BufInfo *bi, int64_t n)
{
	if (is_dyn_local(g, b)) {
		int64_t align = b->align > 16 ? b->align : 16;
		bi->st = BS_LOCAL_MEM;
		bi->sym = unique_name(g, arena_printf(&g->c->arena, "lmem_%s",
						      b->name));
		sb_printf(&g->decl, "\t.local .align %lld .b8 %s[%lld];\n",
			  (long long)align, bi->sym,
			  (long long)bytes_of(b->dtype, n));
		return;
	}
	bi->st = BS_LOCAL_REG;
	bi->regs = NEWN(&g->c->arena, Val, n > 0 ? n : 1);
	for (int64_t i = 0; i < n; i++)
		bi->regs[i] = gen_reg(g, b->dtype);
}

void
gen_buf_def(Gen *g, Buffer *b)
{
	int64_t shape[16];
	if (b->kind != BK_ALLOC || b->scope == MS_TMEM)
		return;
	BufInfo *bi = NEW(&g->c->arena, BufInfo);
	set_buf(g, b, bi);
	if (b->ndim > 16 || !static_shape(b, shape)) {
		gen_error(g, PT_E_CODEGEN_ACCESS, b->span,
			  "allocation '%s' needs a static shape", b->name);
		/* later accesses still format text (never emitted) */
		bi->st = BS_LOCAL_MEM;
		bi->sym = b->name;
		return;
	}
	int64_t n = storage_elems(b, shape);
	int64_t align = b->align > 16 ? b->align : 16;
	bi->nelems = n;
	switch (b->scope) {
	case MS_SHARED:
		bi->st = BS_SHARED;
		bi->sym = unique_name(g, arena_printf(&g->c->arena, "smem_%s",
						      b->name));
		sb_printf(&g->decl, "\t.shared .align %lld .b8 %s[%lld];\n",
			  (long long)align, bi->sym,
			  (long long)bytes_of(b->dtype, n));
		/* ptxas places static shared variables in declaration
		 * order, each at its alignment: count the padding too */
		g->static_smem = sat_add(sat_add(g->static_smem, align - 1) /
						 align * align,
					 bytes_of(b->dtype, n));
		break;
	case MS_SHARED_DYN:
		bi->st = BS_DYN;
		bi->sym = "dyn_smem";
		bi->offset = sat_add(g->dyn_bytes, align - 1) / align * align;
		g->dyn_bytes = sat_add(bi->offset, bytes_of(b->dtype, n));
		if (align > g->dyn_align)
			g->dyn_align = align;
		break;
	default:
		def_local(g, b, bi, n);
		break;
	}
}

/* ---- resolving accesses through views ---- */

static bool resolve(Gen *g, const Expr *base, const Val *idx, int n,
		    Access *out, Span sp);

static bool
resolve_region(Gen *g, const Expr *r, const Val *idx, int n, Access *out,
	       Span sp)
{
	Val full[16];
	int k = 0;
	if (r->u.region.ndims > 16)
		return false;
	for (int d = 0; d < r->u.region.ndims; d++) {
		const Slice *s = &r->u.region.dims[d];
		Val begin = s->begin ? gen_expr(g, s->begin)
				     : val_int(g, 0, DT_INT32);
		if (!s->is_slice) {
			full[d] = begin;
			continue;
		}
		if (k >= n)
			return false;
		Val i = gen_convert(g, idx[k++], begin.dt, sp);
		full[d] = gen_iadd(g, gen_convert(g, begin, i.dt, sp), i);
	}
	return resolve(g, r->u.region.base, full, r->u.region.ndims, out, sp);
}

/* `buf.view(N)` (no layout, N = the storage length) or a 1-D buffer with
 * the default layout: its index is the storage offset.  A reshape without
 * a layout of more dimensions (TIRx's T.decl_tensor over X.data) is
 * row-major over that storage: its indices fold into one offset. */
static bool
resolve_storage(Gen *g, const Expr *base, const Val *idx, int n,
		Access *out)
{
	const Expr *b = base;
	Val flat;
	if (b->kind == EX_VIEW_RESHAPE && !b->u.view.layout && n > 1 &&
	    b->u.view.shape.n == (size_t)n) {
		flat = idx[0];
		for (int d = 1; d < n; d++) {
			Val ext = gen_convert(g, gen_expr(g, b->u.view.shape.v[d]),
					      flat.dt, b->span);
			flat = gen_iadd(g, gen_imul(g, flat, ext),
					gen_convert(g, idx[d], flat.dt, b->span));
		}
		idx = &flat;
		n = 1;
		b = b->u.view.base;
	} else if (b->kind == EX_VIEW_RESHAPE) {
		if (b->u.view.layout || b->u.view.shape.n != 1)
			return false;
		b = b->u.view.base;
	} else if (b->kind == EX_BUF && (b->u.buf->ndim != 1 ||
					 b->u.buf->layout)) {
		return false;
	}
	if (b->kind != EX_BUF || b->u.buf->kind == BK_VIEW || n != 1)
		return false;
	out->root = b->u.buf;
	out->idx[0] = idx[0];
	out->storage = true;
	if (!out->dt)
		out->dt = b->u.buf->dtype;
	return true;
}

static bool
resolve(Gen *g, const Expr *base, const Val *idx, int n, Access *out,
	Span sp)
{
	switch (base->kind) {
	case EX_BUF:
		if (base->u.buf->kind == BK_VIEW)
			return resolve(g, base->u.buf->view, idx, n, out, sp);
		if (n != base->u.buf->ndim || n > 16)
			return false;
		out->root = base->u.buf;
		memcpy(out->idx, idx, sizeof(Val) * (size_t)n);
		if (!out->dt)
			out->dt = base->u.buf->dtype;
		return true;
	case EX_REGION:
		return resolve_region(g, base, idx, n, out, sp);
	case EX_VIEW_DTYPE:
		if (!out->dt)
			out->dt = base->dtype;
		if (dtype_bits(base->dtype) !=
		    dtype_bits(base->u.view.base->dtype))
			return resolve_storage(g, base->u.view.base, idx, n,
					       out);
		return resolve(g, base->u.view.base, idx, n, out, sp);
	case EX_VIEW_RESHAPE:
		return resolve_storage(g, base, idx, n, out);
	default:
		return false;
	}
}

static bool
resolve_access(Gen *g, const Expr *e, Access *a)
{
	Val idx[16];
	int n = (int)e->u.access.indices.n;
	memset(a, 0, sizeof *a);
	if (n > 16)
		return false;
	for (int i = 0; i < n; i++)
		idx[i] = gen_expr(g, e->u.access.indices.v[i]);
	if (resolve(g, e->u.access.base, idx, n, a, e->span) &&
	    gen_buf(g, a->root))
		return true;
	gen_error(g, PT_E_CODEGEN_ACCESS, e->span,
		  "element access through this view is not supported");
	return false;
}

/* ---- element offsets ---- */

static DType
index_type(const Access *a)
{
	int64_t v, elems = 1;
	for (int i = 0; i < a->root->ndim; i++) {
		if (dtype_bits(a->idx[i].dt) == 64 ||
		    (a->root->ndim > 1 && !ir_const_int(a->root->shape[i], &v)))
			return DT_INT64;
		if (a->root->ndim > 1 && ckd_mul64(&elems, elems, v))
			return DT_INT64;
	}
	/* with a runtime size, a flat index over several axes can pass
	 * 2^31 (n rows of 4), and so can one over a static shape of more
	 * than 2^31 - 1 elements (row 1 of a (2, 3000000000) tensor); one
	 * axis is the int32 index itself */
	return elems > INT32_MAX ? DT_INT64 : DT_INT32;
}

/* Row-major flat index over the root's (possibly symbolic) shape. */
static Val
flat_index(Gen *g, const Access *a, DType it, Span sp)
{
	Val off = gen_convert(g, a->idx[0], it, sp);
	for (int i = 1; i < a->root->ndim; i++) {
		Val ext = gen_convert(g, gen_expr(g, a->root->shape[i]), it, sp);
		off = gen_iadd(g, gen_imul(g, off, ext),
			       gen_convert(g, a->idx[i], it, sp));
	}
	return off;
}

static Val
swizzle(Gen *g, const Layout *l, Val m)
{
	/* swz(m) = f(m >> M) << M | m & (2^M - 1),
	 * f(x) = x ^ ((x & ((2^B - 1) << S)) >> S) */
	DType t = m.dt;
	Val x = gen_ibin(g, "shr", m, val_int(g, l->sw_m, DT_UINT32));
	Val hi = gen_ibin(g, "and", x,
			  val_int(g, ((INT64_C(1) << l->sw_b) - 1) << l->sw_s,
				  t));
	hi = gen_ibin(g, "shr", hi, val_int(g, l->sw_s, DT_UINT32));
	x = gen_ibin(g, "xor", x, hi);
	x = gen_ibin(g, "shl", x, val_int(g, l->sw_m, DT_UINT32));
	Val lo = gen_ibin(g, "and", m,
			  val_int(g, (INT64_C(1) << l->sw_m) - 1, t));
	return gen_ibin(g, "or", x, lo);
}

/* m of a symbolic flat index through a tile/compose layout. */
static Val
layout_offset(Gen *g, const Layout *l, Val flat)
{
	const Layout *t = layout_tile(l);
	DType it = flat.dt;
	Val m = val_int(g, 0, it);
	int64_t inner = 1;
	for (int k = t->nshard - 1; k >= 0; k--) {
		const LayoutIter *s = &t->shard[k];
		if (s->axis == AX_M && s->stride != 0) {
			Val c = inner == 1 ? flat
				: gen_ibin(g, "div", gen_in_reg(g, flat),
					   val_int(g, inner, it));
			if (k > 0)
				c = gen_ibin(g, "rem", gen_in_reg(g, c),
					     val_int(g, s->extent, it));
			m = gen_iadd(g, m, gen_imul(g, c,
						    val_int(g, s->stride, it)));
		}
		inner *= s->extent;
	}
	for (int k = 0; k < t->noffset; k++)
		if (t->offset[k].axis == AX_M)
			m = gen_iadd(g, m, val_int(g, t->offset[k].value, it));
	if (l->kind == LAYOUT_COMPOSE)
		m = swizzle(g, l, gen_in_reg(g, m));
	return m;
}

/* A constant index against a constant extent: A[16] of 16 elements
 * would address the next buffer (or wrap a huge offset). */
static bool
const_index_in_bounds(Gen *g, const Access *a, Span sp)
{
	const Buffer *b = a->root;
	int64_t ext;
	for (int i = 0; i < b->ndim; i++)
		if (a->idx[i].imm && ir_const_int(b->shape[i], &ext) &&
		    (a->idx[i].i < 0 || a->idx[i].i >= ext)) {
			gen_error(g, PT_E_INDEX_BOUNDS, sp,
				  "index %lld of dimension %d of %s is outside "
				  "0..%lld", (long long)a->idx[i].i, i,
				  b->name, (long long)ext - 1);
			return false;
		}
	return true;
}

/* Element offset (in root elements) of an access. */
static Val
elem_offset(Gen *g, const Access *a, Span sp)
{
	DType it = index_type(a);
	const Buffer *b = a->root;
	if (a->storage)
		return gen_convert(g, a->idx[0], it, sp);
	if (!const_index_in_bounds(g, a, sp))
		return val_int(g, 0, it);
	if (!b->layout)
		return flat_index(g, a, it, sp);
	int64_t shape[16], coord[16];
	if (b->ndim > 16 || !static_shape(b, shape))
		return gen_error(g, PT_E_CODEGEN_ACCESS, sp,
				 "layout access needs a static shape");
	bool all_const = true;
	for (int i = 0; i < b->ndim; i++) {
		all_const &= a->idx[i].imm;
		coord[i] = a->idx[i].i;
	}
	if (all_const) {
		PhysCoord p;
		layout_eval(b->layout, shape, b->ndim, coord, &p);
		return val_int(g, p.v[AX_M], it);
	}
	return layout_offset(g, b->layout, flat_index(g, a, it, sp));
}

/* Adds a byte offset to an address text: "sym+N" or a register. */
static const char *
addr_plus(Gen *g, const char *base, Val off, DType at)
{
	if (off.imm) {
		if (off.i == 0)
			return base;
		/* "[r+-8]": ptxas parses a signed immediate after '+', but
		 * not "[r-8]" */
		return arena_printf(&g->c->arena, "%s+%lld", base,
				    (long long)off.i);
	}
	if (base[0] != '%') {
		Val d = gen_reg(g, at);
		gen_emit(g, "mov.%s %s, %s;", at == DT_UINT32 ? "u32" : "u64",
			 d.s, base);
		base = d.s;
	}
	Val o = gen_convert(g, off, at == DT_UINT32 ? DT_INT32 : DT_INT64,
			    (Span){0});
	Val r = gen_reg(g, at);
	gen_emit(g, "add.%s %s, %s, %s;", at == DT_UINT32 ? "s32" : "s64",
		 r.s, base, o.s);
	return r.s;
}

static Val
byte_offset(Gen *g, Val elems, DType dt, DType at, Span sp)
{
	int64_t size = dtype_bits(dt) / 8, bytes;
	/* a constant index into a symbolic extent is not bounds-checked:
	 * 2^63-1 elements of 4 bytes must not wrap to [base-4] */
	if (elems.imm && ckd_mul64(&bytes, elems.i, size))
		return gen_error(g, PT_E_INT_OVERFLOW, sp,
				 "element offset %lld is more than 2^63 bytes",
				 (long long)elems.i);
	if (elems.imm)
		return val_int(g, bytes, DT_INT64);
	if (at == DT_UINT64 && dtype_bits(elems.dt) == 32) {
		Val d = gen_reg(g, DT_INT64);
		gen_emit(g, "mul.wide.%s %s, %s, %lld;",
			 dtype_is_signed(elems.dt) ? "s32" : "u32", d.s,
			 elems.s, (long long)size);
		return d;
	}
	DType t = at == DT_UINT64 ? DT_INT64 : DT_INT32;
	return gen_imul(g, gen_convert(g, elems, t, sp), val_int(g, size, t));
}

/* Address text of an access in its own state space. */
static const char *
access_addr(Gen *g, const Access *a, Span sp, BufInfo **bip)
{
	BufInfo *bi = gen_buf(g, a->root);
	*bip = bi;
	bi->addressed = true;
	/* a whole-byte storage view (`buf.view(N).view("uint8")`) of
	 * sub-byte storage addresses bytes */
	DType unit = a->storage ? a->dt : a->root->dtype;
	if (dtype_bits(unit) % 8) {
		gen_error(g, PT_E_CODEGEN_ACCESS, sp,
			  "no element access to sub-byte %s",
			  dtype_name(unit));
		return "0";
	}
	Val off = elem_offset(g, a, sp);
	DType at = bi->st == BS_SHARED || bi->st == BS_DYN ? DT_UINT32
							    : DT_UINT64;
	Val bo = byte_offset(g, off, a->storage ? a->dt : a->root->dtype, at,
			     sp);
	int64_t sum;
	if (bi->st == BS_DYN && bo.imm && ckd_add64(&sum, bo.i, bi->offset))
		gen_error(g, PT_E_INT_OVERFLOW, sp, "byte offset overflows");
	else if (bi->st == BS_DYN)
		bo = bo.imm ? val_int(g, sum, bo.dt)
			    : gen_iadd(g, bo, val_int(g, bi->offset, bo.dt));
	return addr_plus(g, bi->sym, bo, at);
}

static const char *
space_of(BufStore st)
{
	switch (st) {
	case BS_GLOBAL: return "global";
	case BS_SHARED:
	case BS_DYN: return "shared";
	default: return "local";
	}
}

/* ld/st type suffix of an element dtype. */
static const char *
mem_suffix(DType t)
{
	if (t == DT_BOOL || dtype_bits(t) == 8)
		return dtype_is_signed(t) ? "s8" : "u8";
	if (t == DT_FLOAT32 || t == DT_TF32)
		return "f32";
	if (t == DT_FLOAT64)
		return "f64";
	return ptx_int_suffix(t);
}

static const char *
mem_sfx(Gen *g, DType t)
{
	if ((dtype_is_float(t) && dtype_bits(t) == 16) ||
	    dtype_kind(t) == DK_BITS)
		return arena_printf(&g->c->arena, "b%d", dtype_bits(t));
	return mem_suffix(t);
}

/* The register slot of a static access to a register array: first
 * register and, through a width-changing view, the bit position inside
 * it (narrower view) or the number of registers (wider view). */
typedef struct Slot {
	int64_t reg;
	int bitpos; /* narrower view: bits below the element */
	int count;  /* registers covered (1 unless the view is wider) */
} Slot;

static bool
local_slot(Gen *g, const Access *a, Span sp, Slot *out)
{
	Val off = elem_offset(g, a, sp);
	BufInfo *bi = gen_buf(g, a->root);
	int vb = dtype_bits(a->dt), rb = dtype_bits(a->root->dtype);
	int64_t bit = off.imm ? off.i * vb : -1;
	out->reg = bit / rb;
	out->bitpos = (int)(bit % rb);
	out->count = vb > rb ? vb / rb : 1;
	bool ok = off.imm && bit >= 0 && (vb % rb == 0 || rb % vb == 0) &&
		  (rb >= 16 || vb == rb) &&
		  out->reg + out->count <= bi->nelems;
	if (!ok)
		gen_error(g, PT_E_CODEGEN_ACCESS, sp,
			  "register array '%s' index is not a static in-range"
			  " value", a->root->name);
	return ok;
}

/* A register of the same width with integer bits (float registers are
 * moved; PTX shifts and bfi want .bN registers of integer class). */
static Val
int_bits(Gen *g, Val v)
{
	int bits = dtype_bits(v.dt) < 16 ? 16 : dtype_bits(v.dt);
	DType t = bits == 16 ? DT_UINT16 : bits == 32 ? DT_UINT32 : DT_UINT64;
	if (rc_of(v.dt) == rc_of(t))
		return (Val){v.s, t, false, 0, 0};
	Val d = gen_reg(g, t);
	gen_emit(g, "mov.b%d %s, %s;", bits, d.s, v.s);
	return d;
}

static const char *
reg_list(Gen *g, const BufInfo *bi, const Slot *sl)
{
	StrBuf b;
	sb_init(&b, &g->c->arena);
	sb_putc(&b, '{');
	for (int i = 0; i < sl->count; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", bi->regs[sl->reg + i].s);
	sb_putc(&b, '}');
	return sb_cstr(&b);
}

/* Reads a register-array element through any static view. */
static Val
local_read(Gen *g, const Access *a, Span sp)
{
	BufInfo *bi = gen_buf(g, a->root);
	Slot sl;
	if (!local_slot(g, a, sp, &sl))
		return val_int(g, 0, a->dt);
	Val r = bi->regs[sl.reg];
	int vb = dtype_bits(a->dt), rb = dtype_bits(r.dt);
	if (vb == rb) {
		r.dt = a->dt;
		return r;
	}
	Val d;
	if (vb > rb) {
		d = gen_reg(g, a->dt);
		gen_emit(g, "mov.b%d %s, %s;", vb, d.s, reg_list(g, bi, &sl));
		return d;
	}
	Val w = int_bits(g, r);
	if (sl.bitpos) {
		Val x = gen_reg(g, w.dt);
		gen_emit(g, "shr.b%d %s, %s, %d;", rb, x.s, w.s, sl.bitpos);
		w = x;
	}
	Val n = gen_reg(g, vb <= 16 ? DT_UINT16 : DT_UINT32);
	gen_emit(g, "cvt.u%d.u%d %s, %s;", vb <= 16 ? 16 : 32, rb, n.s, w.s);
	if (vb == 8)
		gen_emit(g, "and.b16 %s, %s, 255;", n.s, n.s);
	if (rc_of(n.dt) == rc_of(a->dt))
		return (Val){n.s, a->dt, false, 0, 0};
	d = gen_reg(g, a->dt);
	gen_emit(g, "mov.b%d %s, %s;", vb, d.s, n.s);
	return d;
}

/* Writes v (of the view's dtype) into a register-array element. */
static void
local_write(Gen *g, const Access *a, Val v, Span sp)
{
	BufInfo *bi = gen_buf(g, a->root);
	Slot sl;
	if (!local_slot(g, a, sp, &sl))
		return;
	const Val *r = &bi->regs[sl.reg];
	int vb = dtype_bits(a->dt), rb = dtype_bits(r->dt);
	if (vb == rb) {
		gen_emit(g, "mov.%s %s, %s;", ptx_mov_suffix(r->dt), r->s,
			 v.imm ? gen_convert(g, v, r->dt, sp).s : v.s);
		return;
	}
	v = gen_in_reg(g, v);
	if (vb > rb) {
		gen_emit(g, "mov.b%d %s, %s;", vb, reg_list(g, bi, &sl), v.s);
		return;
	}
	Val w = int_bits(g, *r), x = int_bits(g, v);
	Val wide = gen_reg(g, w.dt);
	gen_emit(g, "cvt.u%d.u%d %s, %s;", rb, vb <= 16 ? 16 : vb, wide.s, x.s);
	gen_emit(g, "bfi.b%d %s, %s, %s, %d, %d;", rb, w.s, wide.s, w.s,
		 sl.bitpos, vb);
	if (strcmp(w.s, r->s))
		gen_emit(g, "mov.b%d %s, %s;", rb, r->s, w.s);
}

const Val *
gen_local_elem(Gen *g, const Expr *e)
{
	Access a;
	if (e->kind != EX_LOAD || !resolve_access(g, e, &a))
		return NULL;
	BufInfo *bi = gen_buf(g, a.root);
	Slot sl;
	if (bi->st != BS_LOCAL_REG ||
	    dtype_bits(a.dt) != dtype_bits(a.root->dtype) ||
	    !local_slot(g, &a, e->span, &sl))
		return NULL;
	return &bi->regs[sl.reg];
}

Val
gen_load(Gen *g, const Expr *e)
{
	Access a;
	if (!resolve_access(g, e, &a))
		return val_int(g, 0, e->dtype);
	BufInfo *bi = gen_buf(g, a.root);
	if (bi->st == BS_LOCAL_REG)
		return local_read(g, &a, e->span);
	if (bi->st == BS_TMEM)
		return gen_error(g, PT_E_CODEGEN_ACCESS, e->span,
				 "tensor memory has no element loads");
	BufInfo *unused;
	const char *addr = access_addr(g, &a, e->span, &unused);
	DType t = a.dt;
	Val d = gen_reg(g, t == DT_BOOL ? DT_UINT16 : t);
	gen_emit(g, "ld.%s.%s %s, [%s];", space_of(bi->st), mem_sfx(g, t),
		 d.s, addr);
	if (t == DT_BOOL)
		return gen_convert(g, d, DT_BOOL, e->span);
	return d;
}

void
gen_store_val(Gen *g, const Expr *le, Val v)
{
	Access a;
	if (!resolve_access(g, le, &a))
		return;
	v = gen_convert(g, v, a.dt, le->span);
	BufInfo *bi = gen_buf(g, a.root);
	if (bi->st == BS_LOCAL_REG) {
		local_write(g, &a, v, le->span);
		return;
	}
	if (bi->st == BS_TMEM) {
		gen_error(g, PT_E_CODEGEN_ACCESS, le->span,
			  "tensor memory has no element stores");
		return;
	}
	if (a.dt == DT_BOOL)
		v = gen_convert(g, v, DT_UINT16, le->span);
	v = gen_in_reg(g, v);
	BufInfo *unused;
	const char *addr = access_addr(g, &a, le->span, &unused);
	gen_emit(g, "st.%s.%s [%s], %s;", space_of(bi->st), mem_sfx(g, a.dt),
		 addr, v.s);
}

void
gen_store(Gen *g, const Stmt *s)
{
	Expr le = {0};
	le.kind = EX_LOAD;
	le.span = s->span;
	le.u.access.base = s->u.store.base;
	le.u.access.indices = s->u.store.indices;
	gen_store_val(g, &le, gen_expr(g, s->u.store.value));
}

/* "%reg+off" (an address text) as one register: cvta and cvt take no
 * offset operand (ptxas accepts one in cvta, the emulator and the ISA's
 * grammar do not). */
static const char *
addr_reg(Gen *g, const char *addr, bool wide)
{
	const char *k = addr[0] == '%' ? strpbrk(addr, "+-") : NULL;
	if (!k)
		return addr;
	Val r = gen_reg(g, wide ? DT_UINT64 : DT_UINT32);
	gen_emit(g, "add.%s %s, %.*s, %lld;", wide ? "s64" : "s32", r.s,
		 (int)(k - addr), addr, (long long)strtoll(k, NULL, 10));
	return r.s;
}

static const char *
to_generic(Gen *g, const char *addr, BufStore st)
{
	addr = addr_reg(g, addr, st != BS_SHARED && st != BS_DYN);
	Val d = gen_reg(g, DT_UINT64);
	if (st == BS_SHARED || st == BS_DYN) {
		Val w = gen_reg(g, DT_UINT64);
		if (addr[0] == '%')
			gen_emit(g, "cvt.u64.u32 %s, %s;", w.s, addr);
		else
			gen_emit(g, "mov.u64 %s, %s;", w.s, addr);
		gen_emit(g, "cvta.shared.u64 %s, %s;", d.s, w.s);
		return d.s;
	}
	if (addr[0] != '%') {
		Val w = gen_reg(g, DT_UINT64);
		gen_emit(g, "mov.u64 %s, %s;", w.s, addr);
		addr = w.s;
	}
	gen_emit(g, "cvta.%s.u64 %s, %s;", st == BS_GLOBAL ? "global" : "local",
		 d.s, addr);
	return d.s;
}

const char *
gen_ptr_to(Gen *g, const Expr *e, const char *space, bool *wide)
{
	Access a;
	if (!resolve_access(g, e, &a))
		return "0";
	BufInfo *bi = gen_buf(g, a.root);
	if (bi->st == BS_LOCAL_REG || bi->st == BS_TMEM) {
		gen_error(g, PT_E_CODEGEN_ADDRESS, e->span,
			  "'%s' has no memory address", a.root->name);
		return "0";
	}
	const char *own = space_of(bi->st);
	bool generic = !space[0];
	bool shared_like = strncmp(space, "shared", 6) == 0;
	if (!generic && !(shared_like && !strcmp(own, "shared")) &&
	    strcmp(space, own)) {
		gen_error(g, PT_E_CODEGEN_ADDRESS, e->span,
			  "'%s' lives in %s memory, the operand wants %s",
			  a.root->name, own, space);
		return "0";
	}
	BufInfo *unused;
	const char *addr = access_addr(g, &a, e->span, &unused);
	*wide = !(bi->st == BS_SHARED || bi->st == BS_DYN) || generic;
	if (generic)
		return to_generic(g, addr, bi->st);
	return addr;
}
