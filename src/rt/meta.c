/*
 * meta.c - reads kernel metadata JSON (docs/metadata.md) into RtMeta.
 *
 * Input: the JSON text `ptxtile compile --meta` writes.  Output: validated
 * C structs in the module's arena, or PT_E_RT_META with a message that
 * names the JSON path of the problem ("kernels[0].params[2].dtype: ...").
 * Invariants after success: parameter names are unique in a kernel, every
 * tma slot names a tensor parameter of the same rank, every symbolic size
 * used by a dim parameter or a launch expression is bound by some tensor
 * shape, and user arguments are numbered in parameter order.
 *
 * Budget (docs/limits.md): at most META_MAX_BYTES of text, META_MAX_KERNELS
 * kernels and META_MAX_PARAMS parameters a kernel (E5021); every name
 * lookup is a hash probe, so reading is linear in the text.
 */
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "rt/rt.h"

/* ---- dtypes ---- */

static const struct {
	const char *name;
	int bits;
} dtype_rows[PTRT_DTYPE_COUNT] = {
	[PTRT_BOOL] = {"bool", 8},
	[PTRT_INT8] = {"int8", 8},
	[PTRT_INT16] = {"int16", 16},
	[PTRT_INT32] = {"int32", 32},
	[PTRT_INT64] = {"int64", 64},
	[PTRT_UINT8] = {"uint8", 8},
	[PTRT_UINT16] = {"uint16", 16},
	[PTRT_UINT32] = {"uint32", 32},
	[PTRT_UINT64] = {"uint64", 64},
	[PTRT_FLOAT16] = {"float16", 16},
	[PTRT_BFLOAT16] = {"bfloat16", 16},
	[PTRT_FLOAT32] = {"float32", 32},
	[PTRT_FLOAT64] = {"float64", 64},
	[PTRT_TF32] = {"tf32", 32},
	[PTRT_FLOAT8_E4M3FN] = {"float8_e4m3fn", 8},
	[PTRT_FLOAT8_E5M2] = {"float8_e5m2", 8},
	[PTRT_FLOAT6_E2M3FN] = {"float6_e2m3fn", 6},
	[PTRT_FLOAT6_E3M2FN] = {"float6_e3m2fn", 6},
	[PTRT_FLOAT4_E2M1FN] = {"float4_e2m1fn", 4},
};

const char *
ptrt_dtype_name(ptrt_dtype t)
{
	if ((unsigned)t >= PTRT_DTYPE_COUNT || t == PTRT_DTYPE_NONE)
		return NULL;
	return dtype_rows[t].name;
}

int
dtype_bits_rt(ptrt_dtype t)
{
	return (unsigned)t < PTRT_DTYPE_COUNT ? dtype_rows[t].bits : 0;
}

int
dtype_size(ptrt_dtype t)
{
	int bits = dtype_bits_rt(t);
	return bits % 8 == 0 ? bits / 8 : 0;
}

bool
dtype_from_name(const char *s, ptrt_dtype *out)
{
	for (int t = 1; s && t < PTRT_DTYPE_COUNT; t++)
		if (strcmp(dtype_rows[t].name, s) == 0) {
			*out = (ptrt_dtype)t;
			return true;
		}
	return false;
}

/* ---- the budget ----
 * The 16 MiB of the compiler's input budget; a kernel's parameters all
 * fit in the 32 KiB PTX parameter space (each takes at least one byte,
 * so 32768 is beyond any real kernel); 65536 kernels a module. */
enum {
	META_MAX_BYTES = RT_META_MAX_BYTES,
	META_MAX_KERNELS = 65536,
	META_MAX_PARAMS = 32768,
};

/* ---- names to indices: open addressing over an arena ---- */

typedef struct NameMap {
	const char **key;
	int *val;
	size_t n, cap; /* cap is 0 or a power of two */
} NameMap;

static size_t
name_slot(const NameMap *m, const char *name)
{
	size_t i = (size_t)hash_bytes(name, strlen(name)) & (m->cap - 1);
	while (m->key[i] && strcmp(m->key[i], name) != 0)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int
name_get(const NameMap *m, const char *name)
{
	if (!m->cap)
		return -1;
	size_t i = name_slot(m, name);
	return m->key[i] ? m->val[i] : -1;
}

/* Adds name -> v (a name not yet there); the table stays half empty. */
static void
name_put(Arena *a, NameMap *m, const char *name, int v)
{
	if (2 * (m->n + 1) > m->cap) {
		NameMap g = {NULL, NULL, 0, m->cap ? 2 * m->cap : 64};
		g.key = NEWN(a, const char *, g.cap);
		g.val = NEWN(a, int, g.cap);
		for (size_t i = 0; i < m->cap; i++)
			if (m->key[i]) {
				size_t j = name_slot(&g, m->key[i]);
				g.key[j] = m->key[i];
				g.val[j] = m->val[i];
			}
		g.n = m->n;
		*m = g;
	}
	size_t i = name_slot(m, name);
	m->key[i] = name;
	m->val[i] = v;
	m->n++;
}

/* ---- the reader ---- */

typedef struct MetaReader {
	Arena *a;
	RtStatus *st;
	VEC(const char *) vars; /* symbolic sizes of the current kernel */
	NameMap var_index;      /* vars.v[i] -> i */
	NameMap param_index;    /* the current kernel's parameters */
} MetaReader;

static bool
bad(MetaReader *r, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool
bad(MetaReader *r, const char *path, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	rt_fail(r->st, PT_E_RT_META, "kernel metadata: %s: %s", path, what);
	return false;
}

static bool
over_budget(MetaReader *r, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool
over_budget(MetaReader *r, const char *path, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	rt_fail(r->st, PT_E_RT_META_BUDGET, "kernel metadata: %s: %s", path,
		what);
	return false;
}

static const char *
sub(MetaReader *r, const char *path, const char *key)
{
	return arena_printf(r->a, "%s.%s", path, key);
}

static const char *
idx(MetaReader *r, const char *path, size_t i)
{
	return arena_printf(r->a, "%s[%zu]", path, i);
}

/* Rejects keys outside allowed (a NULL-terminated list). */
static bool
only_keys(MetaReader *r, const JsonValue *obj, const char *path,
	  const char *const *allowed)
{
	for (size_t i = 0; i < obj->obj.n; i++) {
		const char *k = obj->obj.members[i].key;
		bool ok = false;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = strcmp(*a, k) == 0;
		if (!ok)
			return bad(r, path, "unknown key \"%s\"", k);
	}
	return true;
}

static bool
need_kind(MetaReader *r, const JsonValue *v, JsonKind k, const char *path)
{
	if (!v)
		return bad(r, path, "missing (expected %s)", json_kind_name(k));
	if (v->kind != k)
		return bad(r, path, "expected %s, found %s", json_kind_name(k),
			   json_kind_name(v->kind));
	return true;
}

static bool
get_int(MetaReader *r, const JsonValue *v, const char *path, int64_t lo,
	int64_t hi, int64_t *out)
{
	if (!need_kind(r, v, JSON_INT, path))
		return false;
	if (v->i < lo || v->i > hi)
		return bad(r, path, "%lld is outside [%lld, %lld]",
			   (long long)v->i, (long long)lo, (long long)hi);
	*out = v->i;
	return true;
}

static bool
get_str(MetaReader *r, const JsonValue *v, const char *path,
	const char **out)
{
	if (!need_kind(r, v, JSON_STRING, path))
		return false;
	if (v->str.len == 0 || strlen(v->str.s) != v->str.len)
		return bad(r, path, "empty name or NUL in name");
	*out = v->str.s;
	return true;
}

static bool
get_dtype(MetaReader *r, const JsonValue *v, const char *path,
	  ptrt_dtype *out)
{
	const char *s;
	if (!get_str(r, v, path, &s))
		return false;
	if (!dtype_from_name(s, out))
		return bad(r, path, "unknown dtype \"%s\"", s);
	return true;
}

/* Maps a string to one of names[i] (NULL-terminated) -> i. */
static bool
get_enum(MetaReader *r, const JsonValue *v, const char *path,
	 const char *const *names, int *out)
{
	const char *s;
	if (!get_str(r, v, path, &s))
		return false;
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], s) == 0) {
			*out = i;
			return true;
		}
	return bad(r, path, "unknown value \"%s\"", s);
}

static int
find_var(MetaReader *r, const char *name)
{
	return name_get(&r->var_index, name);
}

static int
add_var(MetaReader *r, const char *name)
{
	int i = find_var(r, name);
	if (i >= 0)
		return i;
	vec_push(r->a, &r->vars, name);
	name_put(r->a, &r->var_index, name, (int)r->vars.n - 1);
	return (int)r->vars.n - 1;
}

/* ---- expressions ----
 * expr := integer | {"var": name} | {"op": OP, "args": [expr, ...]} */

static const char *const op_names[] = {
	"", "", "add", "sub", "mul", "floordiv", "ceildiv", "mod", "min",
	"max", NULL,
};

static RtExpr *read_expr(MetaReader *r, const JsonValue *v,
			 const char *path, int depth);

static RtExpr *
read_var_expr(MetaReader *r, const JsonValue *v, const char *path)
{
	static const char *const keys[] = {"var", NULL};
	const char *name;
	if (!only_keys(r, v, path, keys) ||
	    !get_str(r, json_get(v, "var"), sub(r, path, "var"), &name))
		return NULL;
	int var = find_var(r, name);
	if (var < 0) {
		bad(r, path, "symbolic size \"%s\" is not bound by any tensor "
			     "parameter's shape", name);
		return NULL;
	}
	RtExpr *e = NEW(r->a, RtExpr);
	e->op = RX_VAR;
	e->var = var;
	return e;
}

static RtExpr *
read_op_expr(MetaReader *r, const JsonValue *v, const char *path, int depth)
{
	static const char *const keys[] = {"op", "args", NULL};
	int op;
	if (!only_keys(r, v, path, keys) ||
	    !get_enum(r, json_get(v, "op"), sub(r, path, "op"), op_names, &op))
		return NULL;
	if (op < RX_ADD) {
		bad(r, sub(r, path, "op"), "unknown operator");
		return NULL;
	}
	const JsonValue *args = json_get(v, "args");
	const char *apath = sub(r, path, "args");
	if (!need_kind(r, args, JSON_ARRAY, apath))
		return NULL;
	bool binary = op == RX_SUB || op == RX_FLOORDIV || op == RX_CEILDIV ||
		      op == RX_MOD;
	if (binary ? args->arr.n != 2 : args->arr.n < 2) {
		bad(r, apath, "\"%s\" takes %s arguments, found %zu",
		    op_names[op], binary ? "2" : "2 or more", args->arr.n);
		return NULL;
	}
	RtExpr *e = NEW(r->a, RtExpr);
	e->op = (RtExprOp)op;
	e->nargs = args->arr.n;
	e->args = NEWN(r->a, RtExpr *, e->nargs);
	for (size_t i = 0; i < e->nargs; i++) {
		e->args[i] = read_expr(r, args->arr.items[i], idx(r, apath, i),
				       depth + 1);
		if (!e->args[i])
			return NULL;
	}
	return e;
}

static RtExpr *
read_expr(MetaReader *r, const JsonValue *v, const char *path, int depth)
{
	if (depth > 32) {
		bad(r, path, "expression nested too deeply");
		return NULL;
	}
	if (json_is(v, JSON_INT)) {
		RtExpr *e = NEW(r->a, RtExpr);
		e->op = RX_CONST;
		e->value = v->i;
		return e;
	}
	if (json_is(v, JSON_OBJECT) && json_get(v, "var"))
		return read_var_expr(r, v, path);
	if (json_is(v, JSON_OBJECT))
		return read_op_expr(r, v, path, depth);
	bad(r, path, "expected an integer or an expression object");
	return NULL;
}

/* A 1..3 element array of expressions; missing entries are 1. */
static bool
read_dims3(MetaReader *r, const JsonValue *v, const char *path,
	   RtExpr *out[3], bool required)
{
	for (int i = 0; i < 3; i++) {
		out[i] = NEW(r->a, RtExpr);
		out[i]->op = RX_CONST;
		out[i]->value = 1;
	}
	if (!v && !required)
		return true;
	if (!need_kind(r, v, JSON_ARRAY, path))
		return false;
	if (v->arr.n < 1 || v->arr.n > 3)
		return bad(r, path, "expected 1 to 3 dimensions, found %zu",
			   v->arr.n);
	for (size_t i = 0; i < v->arr.n; i++)
		if (!(out[i] = read_expr(r, v->arr.items[i], idx(r, path, i),
					 0)))
			return false;
	return true;
}

/* ---- parameters ---- */

static bool
read_shape(MetaReader *r, const JsonValue *v, const char *path, RtParam *p)
{
	if (!need_kind(r, v, JSON_ARRAY, path))
		return false;
	if (v->arr.n < 1 || v->arr.n > PTRT_MAX_DIMS)
		return bad(r, path, "rank %zu is outside [1, %d]", v->arr.n,
			   PTRT_MAX_DIMS);
	p->ndim = (int)v->arr.n;
	for (size_t i = 0; i < v->arr.n; i++) {
		const JsonValue *d = v->arr.items[i];
		const char *dpath = idx(r, path, i);
		p->shape[i].var = -1;
		if (json_is(d, JSON_STRING)) {
			const char *name;
			if (!get_str(r, d, dpath, &name))
				return false;
			p->shape[i].var = add_var(r, name);
		} else if (!get_int(r, d, dpath, 0, INT64_MAX,
				    &p->shape[i].value)) {
			return false;
		}
	}
	return true;
}

static bool
read_tensor(MetaReader *r, const JsonValue *v, const char *path, RtParam *p)
{
	static const char *const keys[] = {"name", "kind", "dtype", "shape",
					   "align", "contiguous", NULL};
	if (!only_keys(r, v, path, keys) ||
	    !get_dtype(r, json_get(v, "dtype"), sub(r, path, "dtype"),
		       &p->dtype) ||
	    !read_shape(r, json_get(v, "shape"), sub(r, path, "shape"), p))
		return false;
	int esize = dtype_size(p->dtype);
	p->align = esize ? esize : 1;
	const JsonValue *al = json_get(v, "align");
	if (al) {
		const char *apath = sub(r, path, "align");
		if (!get_int(r, al, apath, 1, 1 << 20, &p->align))
			return false;
		if (p->align & (p->align - 1))
			return bad(r, apath, "%lld is not a power of two",
				   (long long)p->align);
	}
	p->contiguous = true;
	const JsonValue *c = json_get(v, "contiguous");
	if (c && !json_bool(c, &p->contiguous))
		return bad(r, sub(r, path, "contiguous"), "expected boolean");
	return true;
}

static bool
read_scalar(MetaReader *r, const JsonValue *v, const char *path, RtParam *p,
	    bool is_dim)
{
	static const char *const scalar_keys[] = {"name", "kind", "dtype",
						  NULL};
	static const char *const dim_keys[] = {"name", "kind", "dtype", "var",
					       NULL};
	if (!only_keys(r, v, path, is_dim ? dim_keys : scalar_keys))
		return false;
	const char *dpath = sub(r, path, "dtype");
	p->dtype = PTRT_INT32;
	if ((!is_dim || json_get(v, "dtype")) &&
	    !get_dtype(r, json_get(v, "dtype"), dpath, &p->dtype))
		return false;
	ptrt_dtype t = p->dtype;
	bool is_int = t == PTRT_INT32 || t == PTRT_UINT32 ||
		      t == PTRT_INT64 || t == PTRT_UINT64;
	if (!is_int && (is_dim || (t != PTRT_FLOAT32 && t != PTRT_FLOAT64)))
		return bad(r, dpath, "%s parameters take %s, not %s",
			   is_dim ? "dim" : "scalar",
			   is_dim ? "int32, uint32, int64 or uint64"
				  : "int32, uint32, int64, uint64, float32 "
				    "or float64",
			   ptrt_dtype_name(t));
	if (!is_dim) {
		/* an integer scalar is also a size launch expressions may
		 * name (grid=T.min(sms, tiles)), bound from its value */
		if (is_int)
			p->var = add_var(r, p->name);
		return true;
	}
	const char *name;
	const char *vpath = sub(r, path, "var");
	if (!get_str(r, json_get(v, "var"), vpath, &name))
		return false;
	/* Bound later, once every tensor shape is known. */
	p->var = add_var(r, name);
	return true;
}

static const char *const swizzle_names[] = {
	"none", "32B", "64B", "128B", "128B_atom_32B", "128B_atom_32B_flip_8B",
	"128B_atom_64B", NULL,
};
static const char *const interleave_names[] = {"none", "16B", "32B", NULL};
static const char *const l2_names[] = {"none", "64B", "128B", "256B", NULL};
static const char *const oob_names[] = {"zero", "nan", NULL};
/* Formats beyond the plain dtypes (CUtensorMapDataType 10, 12..15). */
static const struct {
	const char *name;
	TmaFormat f;
} extra_formats[] = {
	{"float32_ftz", TMA_FLOAT32_FTZ},
	{"tf32_ftz", TMA_TFLOAT32_FTZ},
	{"16u4_align8b", TMA_16U4_ALIGN8B},
	{"16u4_align16b", TMA_16U4_ALIGN16B},
	{"16u6_align16b", TMA_16U6_ALIGN16B},
};

/* The driver format that holds elements of dtype t (CUTLASS mapping,
 * ptx_facts.md §4.2); false when none does. */
static bool
tma_format_of(ptrt_dtype t, TmaFormat *f)
{
	switch (t) {
	case PTRT_BOOL: case PTRT_INT8: case PTRT_UINT8:
	case PTRT_FLOAT8_E4M3FN: case PTRT_FLOAT8_E5M2:
		*f = TMA_UINT8; return true;
	case PTRT_INT16: case PTRT_UINT16: *f = TMA_UINT16; return true;
	case PTRT_UINT32: *f = TMA_UINT32; return true;
	case PTRT_INT32: *f = TMA_INT32; return true;
	case PTRT_UINT64: *f = TMA_UINT64; return true;
	case PTRT_INT64: *f = TMA_INT64; return true;
	case PTRT_FLOAT16: *f = TMA_FLOAT16; return true;
	case PTRT_BFLOAT16: *f = TMA_BFLOAT16; return true;
	case PTRT_FLOAT32: *f = TMA_FLOAT32; return true;
	case PTRT_FLOAT64: *f = TMA_FLOAT64; return true;
	case PTRT_TF32: *f = TMA_TFLOAT32; return true;
	case PTRT_FLOAT6_E2M3FN: case PTRT_FLOAT6_E3M2FN:
		*f = TMA_16U6_ALIGN16B; return true;
	case PTRT_FLOAT4_E2M1FN: *f = TMA_16U4_ALIGN8B; return true;
	default: return false;
	}
}

static bool
read_format(MetaReader *r, const JsonValue *v, const char *path,
	    ptrt_dtype tensor_dtype, TmaFormat *f)
{
	if (!v) {
		if (tma_format_of(tensor_dtype, f))
			return true;
		return bad(r, path, "no tensor map format holds %s",
			   ptrt_dtype_name(tensor_dtype));
	}
	const char *s;
	if (!get_str(r, v, path, &s))
		return false;
	for (size_t i = 0; i < countof(extra_formats); i++)
		if (strcmp(extra_formats[i].name, s) == 0) {
			*f = extra_formats[i].f;
			return true;
		}
	ptrt_dtype t;
	if (dtype_from_name(s, &t) && tma_format_of(t, f))
		return true;
	return bad(r, path, "unknown tensor map format \"%s\"", s);
}

/* Reads an outermost-first array of n ints in [lo, hi] into out[]
 * innermost first (the driver's order). */
static bool
read_reversed(MetaReader *r, const JsonValue *v, const char *path, int n,
	      int64_t lo, int64_t hi, uint32_t *out)
{
	if (!need_kind(r, v, JSON_ARRAY, path))
		return false;
	if ((int)v->arr.n != n)
		return bad(r, path, "expected %d entries (the rank), found %zu",
			   n, v->arr.n);
	for (int i = 0; i < n; i++) {
		int64_t x = 0;
		if (!get_int(r, v->arr.items[i], idx(r, path, (size_t)i), lo,
			     hi, &x))
			return false;
		out[n - 1 - i] = (uint32_t)x;
	}
	return true;
}


static bool
read_tma(MetaReader *r, const JsonValue *v, const char *path, RtParam *p,
	 const RtParam *all, size_t nall)
{
	static const char *const keys[] = {
		"name", "kind", "tensor", "rank", "box", "element_strides",
		"format", "interleave", "swizzle", "l2_promotion", "oob_fill",
		"region_origin", "region_extent", NULL};
	TmaSlot *s = &p->tma;
	const char *tname;
	const char *tpath = sub(r, path, "tensor");
	int64_t rank = 0;
	if (!only_keys(r, v, path, keys) ||
	    !get_str(r, json_get(v, "tensor"), tpath, &tname) ||
	    !get_int(r, json_get(v, "rank"), sub(r, path, "rank"), 1,
		     TMA_MAX_RANK, &rank))
		return false;
	s->tensor = name_get(&r->param_index, tname);
	if (s->tensor < 0 || (size_t)s->tensor >= nall ||
	    all[s->tensor].kind != RP_TENSOR)
		return bad(r, tpath, "\"%s\" is not a tensor parameter", tname);
	const RtParam *t = &all[s->tensor];
	s->rank = (int)rank;
	if (!read_reversed(r, json_get(v, "box"), sub(r, path, "box"),
			   s->rank, 1, 256, s->box))
		return false;
	for (int i = 0; i < s->rank; i++)
		s->elem_strides[i] = 1;
	const JsonValue *es = json_get(v, "element_strides");
	if (es && !read_reversed(r, es, sub(r, path, "element_strides"),
				 s->rank, 1, 8, s->elem_strides))
		return false;
	const JsonValue *ro = json_get(v, "region_origin");
	const JsonValue *rx = json_get(v, "region_extent");
	if ((ro != NULL) != (rx != NULL))
		return bad(r, path, "region_origin and region_extent come "
			   "together");
	s->region = ro != NULL;
	if (ro && (!read_reversed(r, ro, sub(r, path, "region_origin"),
				  s->rank, 0, UINT32_MAX, s->region_origin) ||
		   !read_reversed(r, rx, sub(r, path, "region_extent"),
				  s->rank, 0, UINT32_MAX, s->region_extent)))
		return false;
	s->l2_promotion = 2; /* 128B, the CUTLASS and Triton default */
	const JsonValue *e;
	if (((e = json_get(v, "interleave")) &&
	     !get_enum(r, e, sub(r, path, "interleave"), interleave_names,
		       &s->interleave)) ||
	    ((e = json_get(v, "swizzle")) &&
	     !get_enum(r, e, sub(r, path, "swizzle"), swizzle_names,
		       &s->swizzle)) ||
	    ((e = json_get(v, "l2_promotion")) &&
	     !get_enum(r, e, sub(r, path, "l2_promotion"), l2_names,
		       &s->l2_promotion)) ||
	    ((e = json_get(v, "oob_fill")) &&
	     !get_enum(r, e, sub(r, path, "oob_fill"), oob_names,
		       &s->oob_fill)))
		return false;
	/* an interleaved tensor may carry its channel slice as an extra
	 * innermost axis (N, C_slices, *spatial, Ci) */
	if (t->ndim != rank && !(s->interleave && t->ndim == rank + 1))
		return bad(r, sub(r, path, "rank"),
			   "rank %lld differs from tensor \"%s\" of rank %d",
			   (long long)rank, tname, t->ndim);
	return read_format(r, json_get(v, "format"), sub(r, path, "format"),
			   t->dtype, &s->format);
}

static const char *const kind_names[] = {"tensor", "scalar", "tensormap",
					 "tma", "dim", NULL};

static bool
read_param(MetaReader *r, const JsonValue *v, const char *path, RtParam *ps,
	   size_t i)
{
	RtParam *p = &ps[i];
	int kind;
	p->arg = -1;
	p->var = -1;
	if (!need_kind(r, v, JSON_OBJECT, path) ||
	    !get_str(r, json_get(v, "name"), sub(r, path, "name"), &p->name) ||
	    !get_enum(r, json_get(v, "kind"), sub(r, path, "kind"), kind_names,
		      &kind))
		return false;
	if (name_get(&r->param_index, p->name) >= 0)
		return bad(r, sub(r, path, "name"), "duplicate parameter \"%s\"",
			   p->name);
	name_put(r->a, &r->param_index, p->name, (int)i);
	p->kind = (RtParamKind)kind;
	switch (p->kind) {
	case RP_TENSOR: return read_tensor(r, v, path, p);
	case RP_SCALAR: return read_scalar(r, v, path, p, false);
	case RP_DIM: return read_scalar(r, v, path, p, true);
	case RP_TMA: return read_tma(r, v, path, p, ps, i);
	case RP_TENSORMAP: {
		static const char *const keys[] = {"name", "kind", NULL};
		return only_keys(r, v, path, keys);
	}
	}
	return false;
}

/* Every symbolic size must come from some tensor shape. */
static bool
check_vars_bound(MetaReader *r, const RtKernelMeta *k, const char *path)
{
	bool *bound = NEWN(r->a, bool, r->vars.n + 1);
	for (size_t i = 0; i < k->nparams; i++) {
		const RtParam *p = &k->params[i];
		for (int d = 0; p->kind == RP_TENSOR && d < p->ndim; d++)
			if (p->shape[d].var >= 0 &&
			    (size_t)p->shape[d].var < r->vars.n)
				bound[p->shape[d].var] = true;
		if (p->kind == RP_SCALAR && p->var >= 0 &&
		    (size_t)p->var < r->vars.n)
			bound[p->var] = true;
	}
	for (size_t v = 0; v < r->vars.n; v++)
		if (!bound[v])
			return bad(r, path, "symbolic size \"%s\" is not bound "
					    "by any tensor parameter's shape",
				   r->vars.v[v]);
	return true;
}

static bool
read_params(MetaReader *r, const JsonValue *v, const char *path,
	    RtKernelMeta *k)
{
	if (!need_kind(r, v, JSON_ARRAY, path))
		return false;
	if (v->arr.n > META_MAX_PARAMS)
		return over_budget(r, path, "%zu parameters, over the budget of "
				   "%d a kernel", v->arr.n, META_MAX_PARAMS);
	k->nparams = v->arr.n;
	k->params = NEWN(r->a, RtParam, k->nparams ? k->nparams : 1);
	for (size_t i = 0; i < k->nparams; i++) {
		if (!read_param(r, v->arr.items[i], idx(r, path, i), k->params,
				i))
			return false;
		RtParamKind kind = k->params[i].kind;
		if (kind == RP_TENSOR || kind == RP_SCALAR ||
		    kind == RP_TENSORMAP)
			k->params[i].arg = (int)k->nargs++;
	}
	return check_vars_bound(r, k, path);
}

static bool
read_launch(MetaReader *r, const JsonValue *v, const char *path,
	    RtKernelMeta *k)
{
	static const char *const keys[] = {"grid", "block", "cluster",
					   "dynamic_smem", NULL};
	if (!need_kind(r, v, JSON_OBJECT, path) ||
	    !only_keys(r, v, path, keys) ||
	    !read_dims3(r, json_get(v, "grid"), sub(r, path, "grid"), k->grid,
			true) ||
	    !read_dims3(r, json_get(v, "block"), sub(r, path, "block"),
			k->block, true) ||
	    !read_dims3(r, json_get(v, "cluster"), sub(r, path, "cluster"),
			k->cluster, false))
		return false;
	const JsonValue *s = json_get(v, "dynamic_smem");
	if (!s) {
		k->smem = NEW(r->a, RtExpr); /* RX_CONST 0 */
		return true;
	}
	k->smem = read_expr(r, s, sub(r, path, "dynamic_smem"), 0);
	return k->smem != NULL;
}

/* "assume": [{"var": name, "multiple_of": k}]: facts the compiler
 * assumed of symbolic sizes (strides it proved aligned with them). */
static bool
read_assume(MetaReader *r, const JsonValue *v, const char *path,
	    RtKernelMeta *k)
{
	static const char *const keys[] = {"var", "multiple_of", NULL};
	size_t nv = r->vars.n ? r->vars.n : 1;
	k->multiple_of = NEWN(r->a, int64_t, nv);
	for (size_t i = 0; i < nv; i++)
		k->multiple_of[i] = 1;
	if (!v)
		return true;
	if (!need_kind(r, v, JSON_ARRAY, path))
		return false;
	for (size_t i = 0; i < v->arr.n; i++) {
		const JsonValue *a = v->arr.items[i];
		const char *p = idx(r, path, i), *name = NULL;
		int64_t m = 1;
		if (!need_kind(r, a, JSON_OBJECT, p) || !only_keys(r, a, p, keys) ||
		    !get_str(r, json_get(a, "var"), sub(r, p, "var"), &name) ||
		    !get_int(r, json_get(a, "multiple_of"),
			     sub(r, p, "multiple_of"), 1, INT32_MAX, &m))
			return false;
		int x = find_var(r, name);
		if (x < 0)
			return bad(r, sub(r, p, "var"), "\"%s\" is not a symbolic "
				   "size of this kernel", name);
		k->multiple_of[x] = m;
	}
	return true;
}

static bool
read_kernel(MetaReader *r, const JsonValue *v, const char *path,
	    RtKernelMeta *k)
{
	static const char *const keys[] = {"name", "params", "launch",
					   "assume", NULL};
	r->vars.v = NULL;
	r->vars.n = r->vars.cap = 0;
	memset(&r->var_index, 0, sizeof(r->var_index));
	memset(&r->param_index, 0, sizeof(r->param_index));
	if (!need_kind(r, v, JSON_OBJECT, path) ||
	    !only_keys(r, v, path, keys) ||
	    !get_str(r, json_get(v, "name"), sub(r, path, "name"), &k->name) ||
	    !read_params(r, json_get(v, "params"), sub(r, path, "params"), k) ||
	    !read_launch(r, json_get(v, "launch"), sub(r, path, "launch"), k) ||
	    !read_assume(r, json_get(v, "assume"), sub(r, path, "assume"), k))
		return false;
	k->vars = r->vars.v;
	k->nvars = r->vars.n;
	return true;
}

static bool
read_meta(MetaReader *r, const JsonValue *root, RtMeta *out)
{
	static const char *const keys[] = {"format", "version", "target",
					   "kernels", NULL};
	const char *fmt;
	int64_t version;
	if (!need_kind(r, root, JSON_OBJECT, "$") ||
	    !only_keys(r, root, "$", keys) ||
	    !get_str(r, json_get(root, "format"), "$.format", &fmt))
		return false;
	if (strcmp(fmt, "ptxtile-meta") != 0)
		return bad(r, "$.format", "expected \"ptxtile-meta\"");
	if (!get_int(r, json_get(root, "version"), "$.version", 1, 1,
		     &version))
		return false;
	const JsonValue *t = json_get(root, "target");
	if (t && !need_kind(r, t, JSON_STRING, "$.target"))
		return false;
	const JsonValue *ks = json_get(root, "kernels");
	if (!need_kind(r, ks, JSON_ARRAY, "$.kernels"))
		return false;
	if (ks->arr.n > META_MAX_KERNELS)
		return over_budget(r, "$.kernels", "%zu kernels, over the budget "
				   "of %d", ks->arr.n, META_MAX_KERNELS);
	out->nkernels = ks->arr.n;
	out->kernels = NEWN(r->a, RtKernelMeta, out->nkernels + 1);
	StrSet names = {0};
	for (size_t i = 0; i < out->nkernels; i++) {
		RtKernelMeta *k = &out->kernels[i];
		if (!read_kernel(r, ks->arr.items[i], idx(r, "$.kernels", i), k))
			return false;
		if (!strset_add(r->a, &names, k->name))
			return bad(r, idx(r, "$.kernels", i),
				   "duplicate kernel \"%s\"", k->name);
	}
	return true;
}

int
meta_parse(Arena *a, const char *json, size_t len, RtMeta *out,
	   RtStatus *st)
{
	memset(out, 0, sizeof(*out));
	if (len > META_MAX_BYTES)
		return rt_fail(st, PT_E_RT_META_BUDGET,
			       "kernel metadata: %zu bytes, over the budget of "
			       "%d", len, META_MAX_BYTES);
	JsonError err;
	JsonValue *root = json_parse(a, json, len, &err);
	if (!root)
		return rt_fail(st, PT_E_RT_META,
			       "kernel metadata: invalid JSON at line %d, "
			       "column %d: %s",
			       err.line, err.col, err.msg);
	MetaReader r = {.a = a, .st = st};
	return read_meta(&r, root, out) ? PT_OK : st->code;
}

/* ---- expression evaluation ---- */

static int64_t
floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static bool
apply_op(RtExprOp op, int64_t a, int64_t b, int64_t *out, RtStatus *st)
{
	bool ovf = false;
	if ((op == RX_FLOORDIV || op == RX_CEILDIV || op == RX_MOD) && b == 0) {
		rt_fail(st, PT_E_RT_LAUNCH_DIMS,
			"launch expression divides by zero");
		return false;
	}
	if ((op == RX_FLOORDIV || op == RX_MOD) && a == INT64_MIN && b == -1)
		ovf = true;
	else if (op == RX_CEILDIV && a == INT64_MIN)
		ovf = true;
	else if (op == RX_ADD)
		ovf = __builtin_add_overflow(a, b, out);
	else if (op == RX_SUB)
		ovf = __builtin_sub_overflow(a, b, out);
	else if (op == RX_MUL)
		ovf = __builtin_mul_overflow(a, b, out);
	else if (op == RX_FLOORDIV)
		*out = floordiv(a, b);
	else if (op == RX_CEILDIV)
		*out = -floordiv(-a, b); /* -a is safe: a != INT64_MIN */
	else if (op == RX_MOD) /* not a - floordiv(a, b) * b: that product
				 * overflows for a near INT64_MIN */
		*out = a % b != 0 && ((a % b < 0) != (b < 0)) ? a % b + b
							       : a % b;
	else if (op == RX_MIN)
		*out = a < b ? a : b;
	else
		*out = a > b ? a : b;
	if (ovf) {
		rt_fail(st, PT_E_RT_LAUNCH_DIMS,
			"launch expression overflows 64 bits");
		return false;
	}
	return true;
}

bool
meta_eval(const RtExpr *e, const int64_t *vals, int64_t *out, RtStatus *st)
{
	if (e->op == RX_CONST) {
		*out = e->value;
		return true;
	}
	if (e->op == RX_VAR) {
		*out = vals[e->var];
		return true;
	}
	int64_t acc;
	if (!meta_eval(e->args[0], vals, &acc, st))
		return false;
	for (size_t i = 1; i < e->nargs; i++) {
		int64_t b;
		if (!meta_eval(e->args[i], vals, &b, st) ||
		    !apply_op(e->op, acc, b, &acc, st))
			return false;
	}
	*out = acc;
	return true;
}
