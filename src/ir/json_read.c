/*
 * ir/json_read.c - JSON text -> the IR (schema: docs/ir-json.md).
 *
 * Built on the generic DOM of base/json.h.  It trusts nothing: every
 * node's kind, every field (missing, unknown or of the wrong JSON type),
 * every enum and dtype name, every id (defined once, referenced only
 * after its definition and inside its function) and the result type of
 * each child is checked, and the first problem is reported as a
 * PT_E_JSON_* diagnostic at the offending value's byte offset.  Nesting
 * is bounded by the DOM's JSON_MAX_DEPTH, which also bounds this file's
 * recursion.  The writer is json_write.c; json_schema.h holds what both
 * use.
 */
#include "ir/json_schema.h"

typedef struct Reader {
	Ctx *c;
	Arena *a;
	uint32_t file;
	IdMap vars, bufs;
	int scope;   /* function being read; 0 at module level */
	int nscopes; /* functions (and lambdas) opened so far */
} Reader;

static const int builtin_nargs[] = {
#define BUILTIN(id, spelling, nargs, args, result) [BI_##id] = nargs,
#include "ir/builtins.def"
#undef BUILTIN
};

static Expr *rd_expr(Reader *r, const JsonValue *v, unsigned types);
static Func *rd_func(Reader *r, const JsonValue *v, bool lambda);
static bool rd_block(Reader *r, const JsonValue *obj, const char *key,
		     Block *out);

static Span
rd_span(const Reader *r, const JsonValue *v)
{
	uint32_t off = v ? v->offset : 0;
	return (Span){r->file, off, off + 1};
}

static bool rd_fail(Reader *r, const JsonValue *at, int code,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Reports the first problem at the offending value; always false. */
static bool
rd_fail(Reader *r, const JsonValue *at, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(r->c, code, rd_span(r, at), fmt, ap);
	va_end(ap);
	return false;
}

static const char *
kind_of(const JsonValue *v)
{
	return v ? json_kind_name(v->kind) : "nothing";
}

/* True when key[0..len) is one of the space-separated words. */
static bool
word_in(const char *words, const char *key, size_t len)
{
	const char *p = words;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (n && n == len && memcmp(p, key, n) == 0)
			return true;
		p += n;
	}
	return false;
}

/* v must be an object whose members all appear in `common` or `fields`. */
static bool
rd_object(Reader *r, const JsonValue *v, const char *what,
	  const char *common, const char *fields)
{
	if (!json_is(v, JSON_OBJECT))
		return rd_fail(r, v, PT_E_JSON_TYPE, "%s must be an object, "
			       "not %s", what, kind_of(v));
	for (size_t i = 0; i < v->obj.n; i++) {
		const JsonMember *m = &v->obj.members[i];
		if (!word_in(common, m->key, m->key_len) &&
		    !word_in(fields, m->key, m->key_len))
			return rd_fail(r, m->value, PT_E_JSON_UNKNOWN_FIELD,
				       "unknown field \"%s\" in %s", m->key,
				       what);
	}
	return true;
}

/* Member key of obj; reports it missing. */
static const JsonValue *
rd_field(Reader *r, const JsonValue *obj, const char *key)
{
	const JsonValue *v = json_get(obj, key);
	if (!v)
		rd_fail(r, obj, PT_E_JSON_MISSING, "missing field \"%s\"", key);
	return v;
}

static bool
rd_type_error(Reader *r, const JsonValue *v, const char *key,
	      const char *want)
{
	return rd_fail(r, v, PT_E_JSON_TYPE, "field \"%s\" must be %s, not %s",
		       key, want, kind_of(v));
}

static bool
rd_int(Reader *r, const JsonValue *obj, const char *key, int64_t lo,
       int64_t hi, int64_t *out)
{
	const JsonValue *v = rd_field(r, obj, key);
	if (!v)
		return false;
	if (!json_int(v, out))
		return rd_type_error(r, v, key, "an integer");
	if (*out < lo || *out > hi)
		return rd_fail(r, v, PT_E_JSON_VALUE, "field \"%s\" is %lld, "
			       "outside [%lld, %lld]", key, (long long)*out,
			       (long long)lo, (long long)hi);
	return true;
}

static bool
rd_bool(Reader *r, const JsonValue *obj, const char *key, bool *out)
{
	const JsonValue *v = rd_field(r, obj, key);
	if (!v)
		return false;
	if (!json_bool(v, out))
		return rd_type_error(r, v, key, "true or false");
	return true;
}

/* A string member (NULL for null when nullable); no embedded NUL. */
static bool
rd_string(Reader *r, const JsonValue *obj, const char *key, bool nullable,
	  const char **out)
{
	const JsonValue *v = rd_field(r, obj, key);
	if (!v)
		return false;
	*out = NULL;
	if (nullable && json_is(v, JSON_NULL))
		return true;
	if (!json_is(v, JSON_STRING))
		return rd_type_error(r, v, key,
				     nullable ? "a string or null" : "a string");
	if (strlen(v->str.s) != v->str.len)
		return rd_fail(r, v, PT_E_JSON_VALUE,
			       "field \"%s\" contains a NUL character", key);
	*out = v->str.s;
	return true;
}

/* A non-empty name. */
static bool
rd_name(Reader *r, const JsonValue *obj, const char *key, const char **out)
{
	if (!rd_string(r, obj, key, false, out))
		return false;
	if (!**out)
		return rd_fail(r, json_get(obj, key), PT_E_JSON_VALUE,
			       "field \"%s\" must not be empty", key);
	return true;
}

/* An enum given by name: *out is its index in names. */
static bool
rd_enum(Reader *r, const JsonValue *obj, const char *key,
	const char *const *names, int n, int *out)
{
	const char *s;
	if (!rd_string(r, obj, key, false, &s))
		return false;
	*out = name_index(names, n, s);
	if (*out < 0)
		return rd_fail(r, json_get(obj, key), PT_E_JSON_ENUM,
			       "unknown %s \"%s\"", key, s);
	return true;
}

#define RD_ENUM(r, obj, key, tab, out)                                     \
	rd_enum((r), (obj), (key), (tab), (int)countof(tab), (out))

static bool
rd_dtype(Reader *r, const JsonValue *obj, const char *key, bool nullable,
	 DType *out)
{
	const char *s;
	*out = DT_NONE;
	if (!rd_string(r, obj, key, nullable, &s))
		return false;
	int i = s ? name_index(dtype_names, (int)countof(dtype_names), s) : 0;
	if (i < 0)
		return rd_fail(r, json_get(obj, key), PT_E_JSON_DTYPE,
			       "unknown dtype \"%s\"", s);
	*out = (DType)i;
	return true;
}

static bool
rd_memscope(Reader *r, const JsonValue *obj, MemScope *out)
{
	int i;
	if (!RD_ENUM(r, obj, "scope", memscope_names, &i))
		return false;
	*out = (MemScope)i;
	return true;
}

static bool
rd_execscope(Reader *r, const JsonValue *obj, ExecScope *out)
{
	int i;
	if (!RD_ENUM(r, obj, "scope", execscope_names, &i))
		return false;
	*out = (ExecScope)i;
	return true;
}

static const JsonValue *
rd_array(Reader *r, const JsonValue *obj, const char *key)
{
	const JsonValue *v = rd_field(r, obj, key);
	if (v && !json_is(v, JSON_ARRAY)) {
		rd_type_error(r, v, key, "an array");
		return NULL;
	}
	return v;
}

/* ---- symbols ---- */

static bool
rd_new_id(Reader *r, IdMap *m, const JsonValue *obj, void *sym,
	  int64_t *id)
{
	if (!rd_int(r, obj, "id", 0, INT32_MAX, id))
		return false;
	if (idmap_get(m, (uint64_t)*id))
		return rd_fail(r, json_get(obj, "id"), PT_E_JSON_DUP_ID,
			       "id %lld is defined twice", (long long)*id);
	IdEntry *e = idmap_put(r->a, m, (uint64_t)*id);
	e->sym = sym;
	e->scope = r->scope;
	return true;
}

/* The symbol an id refers to: defined earlier, in this function or at
 * module level. */
static void *
rd_ref(Reader *r, IdMap *m, const JsonValue *obj, const char *key,
       const char *what)
{
	int64_t id;
	if (!rd_int(r, obj, key, 0, INT32_MAX, &id))
		return NULL;
	IdEntry *e = idmap_get(m, (uint64_t)id);
	if (!e || (e->scope != 0 && e->scope != r->scope)) {
		rd_fail(r, json_get(obj, key), PT_E_JSON_UNDEFINED,
			"%s id %lld is not defined %s", what, (long long)id,
			e ? "in this function" : "before this use");
		return NULL;
	}
	return e->sym;
}

static Var *
rd_var_def(Reader *r, const JsonValue *v, VarKind kind)
{
	if (!rd_object(r, v, "a variable", "", "id name dtype"))
		return NULL;
	Var *var = NEW(r->a, Var);
	int64_t id;
	if (!rd_name(r, v, "name", &var->name) ||
	    !rd_dtype(r, v, "dtype", true, &var->dtype) ||
	    !rd_new_id(r, &r->vars, v, var, &id))
		return NULL;
	var->kind = kind;
	var->id = (int)id;
	var->span = rd_span(r, v);
	return var;
}

static Var *
rd_var_def_at(Reader *r, const JsonValue *obj, const char *key,
	      VarKind kind)
{
	const JsonValue *v = rd_field(r, obj, key);
	return v ? rd_var_def(r, v, kind) : NULL;
}

/* ---- layouts ---- */

static bool
rd_iters(Reader *r, const JsonValue *obj, const char *key,
	 LayoutIter **out, int *n)
{
	const JsonValue *arr = rd_array(r, obj, key);
	if (!arr)
		return false;
	*n = (int)arr->arr.n;
	*out = NEWN(r->a, LayoutIter, arr->arr.n);
	for (size_t i = 0; i < arr->arr.n; i++) {
		const JsonValue *it = arr->arr.items[i];
		const char *ax;
		if (!rd_object(r, it, "a layout iter", "", "extent stride axis") ||
		    !rd_int(r, it, "extent", 1, INT64_MAX, &(*out)[i].extent) ||
		    !rd_int(r, it, "stride", INT64_MIN, INT64_MAX,
			    &(*out)[i].stride) ||
		    !rd_string(r, it, "axis", false, &ax))
			return false;
		if (!axis_parse(ax, &(*out)[i].axis))
			return rd_fail(r, json_get(it, "axis"), PT_E_JSON_ENUM,
				       "unknown axis \"%s\"", ax);
	}
	return true;
}

static bool
rd_offsets(Reader *r, const JsonValue *obj, Layout *l)
{
	const JsonValue *arr = rd_array(r, obj, "offset");
	if (!arr)
		return false;
	l->noffset = (int)arr->arr.n;
	l->offset = NEWN(r->a, LayoutOffset, arr->arr.n);
	for (size_t i = 0; i < arr->arr.n; i++) {
		const JsonValue *o = arr->arr.items[i];
		const char *ax;
		if (!rd_object(r, o, "a layout offset", "", "value axis") ||
		    !rd_int(r, o, "value", INT64_MIN, INT64_MAX,
			    &l->offset[i].value) ||
		    !rd_string(r, o, "axis", false, &ax))
			return false;
		if (!axis_parse(ax, &l->offset[i].axis))
			return rd_fail(r, json_get(o, "axis"), PT_E_JSON_ENUM,
				       "unknown axis \"%s\"", ax);
	}
	return true;
}

static Layout *rd_layout(Reader *r, const JsonValue *v);

static bool
rd_compose(Reader *r, const JsonValue *v, Layout *l)
{
	int64_t m, b, s;
	if (!rd_object(r, v, "a compose layout", "layout",
		       "sw_m sw_b sw_s inner") ||
	    !rd_int(r, v, "sw_m", 0, 31, &m) ||
	    !rd_int(r, v, "sw_b", 0, 31, &b) ||
	    !rd_int(r, v, "sw_s", 0, 31, &s))
		return false;
	l->kind = LAYOUT_COMPOSE;
	l->sw_m = (int)m;
	l->sw_b = (int)b;
	l->sw_s = (int)s;
	const JsonValue *in = rd_field(r, v, "inner");
	if (!in || !(l->inner = rd_layout(r, in)))
		return false;
	if (l->inner->kind != LAYOUT_TILE)
		return rd_fail(r, in, PT_E_JSON_VALUE,
			       "the inner layout of a compose must be a tile "
			       "layout");
	return true;
}

static Layout *
rd_layout(Reader *r, const JsonValue *v)
{
	const char *kind;
	if (!json_is(v, JSON_OBJECT)) {
		rd_fail(r, v, PT_E_JSON_TYPE, "a layout must be an object, "
			"not %s", kind_of(v));
		return NULL;
	}
	if (!rd_string(r, v, "layout", false, &kind))
		return NULL;
	Layout *l = NEW(r->a, Layout);
	if (strcmp(kind, "compose") == 0)
		return rd_compose(r, v, l) ? l : NULL;
	if (strcmp(kind, "tile") != 0) {
		rd_fail(r, json_get(v, "layout"), PT_E_JSON_KIND,
			"unknown layout kind \"%s\"", kind);
		return NULL;
	}
	l->kind = LAYOUT_TILE;
	if (!rd_object(r, v, "a tile layout", "layout",
		       "shard replica offset") ||
	    !rd_iters(r, v, "shard", &l->shard, &l->nshard) ||
	    !rd_iters(r, v, "replica", &l->replica, &l->nreplica) ||
	    !rd_offsets(r, v, l))
		return NULL;
	return l;
}

/* A nullable layout member. */
static bool
rd_layout_at(Reader *r, const JsonValue *obj, const char *key,
	     Layout **out)
{
	const JsonValue *v = rd_field(r, obj, key);
	*out = NULL;
	if (!v)
		return false;
	if (json_is(v, JSON_NULL))
		return true;
	return (*out = rd_layout(r, v)) != NULL;
}

/* ---- expressions ---- */

/* An expression member of one of the result types in `types`; null is
 * accepted (as NULL) when nullable. */
static bool
rd_expr_at(Reader *r, const JsonValue *obj, const char *key,
	   unsigned types, bool nullable, Expr **out)
{
	const JsonValue *v = rd_field(r, obj, key);
	*out = NULL;
	if (!v)
		return false;
	if (json_is(v, JSON_NULL)) {
		if (nullable)
			return true;
		return rd_type_error(r, v, key, "an expression");
	}
	return (*out = rd_expr(r, v, types)) != NULL;
}

static bool
rd_expr_list(Reader *r, const JsonValue *obj, const char *key,
	     unsigned types, ExprVec *out)
{
	const JsonValue *arr = rd_array(r, obj, key);
	if (!arr)
		return false;
	for (size_t i = 0; i < arr->arr.n; i++) {
		Expr *e = rd_expr(r, arr->arr.items[i], types);
		if (!e)
			return false;
		vec_push(r->a, out, e);
	}
	return true;
}

static bool
rd_need_dtype(Reader *r, const JsonValue *v, const Expr *e)
{
	if (e->dtype == DT_NONE)
		return rd_fail(r, v, PT_E_JSON_MISSING,
			       "a \"%s\" expression needs a \"dtype\"",
			       expr_info[e->kind].name);
	return true;
}

static bool
rd_float(Reader *r, const JsonValue *v, double *out)
{
	const JsonValue *x = rd_field(r, v, "value");
	const char *s = json_str(x);
	if (!x)
		return false;
	if (json_num(x, out))
		return true;
	if (s && strcmp(s, "nan") == 0)
		*out = NAN;
	else if (s && strcmp(s, "inf") == 0)
		*out = INFINITY;
	else if (s && strcmp(s, "-inf") == 0)
		*out = -INFINITY;
	else
		return rd_type_error(r, x, "value",
				     "a number, \"inf\", \"-inf\" or \"nan\"");
	return true;
}

static bool
rd_builtin(Reader *r, const JsonValue *v, Expr *e)
{
	const char *name;
	if (!rd_string(r, v, "name", false, &name))
		return false;
	int id = name_index(builtin_names, (int)countof(builtin_names), name);
	if (id < 0)
		return rd_fail(r, json_get(v, "name"), PT_E_JSON_ENUM,
			       "unknown builtin \"%s\"", name);
	e->u.call.id = (Builtin)id;
	if (!rd_expr_list(r, v, "args", TY_ANY, &e->u.call.args))
		return false;
	int want = builtin_nargs[id];
	if (want >= 0 && e->u.call.args.n != (size_t)want)
		return rd_fail(r, json_get(v, "args"), PT_E_JSON_VALUE,
			       "%s takes %d arguments, not %zu", name, want,
			       e->u.call.args.n);
	return true;
}

static bool
rd_slice(Reader *r, const JsonValue *d, Slice *s)
{
	if (!rd_object(r, d, "a region dimension", "", "index begin end"))
		return false;
	if (json_get(d, "index")) {
		if (json_get(d, "begin") || json_get(d, "end"))
			return rd_fail(r, d, PT_E_JSON_VALUE, "a region dimension "
				       "is an index or a slice, not both");
		return rd_expr_at(r, d, "index", TY(ET_SCALAR), false,
				  &s->begin);
	}
	s->is_slice = true;
	return rd_expr_at(r, d, "begin", TY(ET_SCALAR), true, &s->begin) &&
	       rd_expr_at(r, d, "end", TY(ET_SCALAR), true, &s->end);
}

static bool
rd_region(Reader *r, const JsonValue *v, Expr *e)
{
	if (!rd_expr_at(r, v, "base", TY(ET_TENSOR), false,
			&e->u.region.base) ||
	    !rd_bool(r, v, "sub", &e->u.region.sub))
		return false;
	const JsonValue *dims = rd_array(r, v, "dims");
	if (!dims)
		return false;
	e->u.region.ndims = (int)dims->arr.n;
	e->u.region.dims = NEWN(r->a, Slice, dims->arr.n);
	for (size_t i = 0; i < dims->arr.n; i++)
		if (!rd_slice(r, dims->arr.items[i], &e->u.region.dims[i]))
			return false;
	return true;
}

static bool
rd_named_args(Reader *r, const JsonValue *v, NamedArgVec *out)
{
	const JsonValue *arr = rd_array(r, v, "params");
	if (!arr)
		return false;
	for (size_t i = 0; i < arr->arr.n; i++) {
		const JsonValue *p = arr->arr.items[i];
		NamedArg na = {0};
		if (!rd_object(r, p, "a tile parameter", "", "name value") ||
		    !rd_name(r, p, "name", &na.name) ||
		    !rd_expr_at(r, p, "value", TY_ANY, false, &na.value))
			return false;
		for (size_t j = 0; j < out->n; j++)
			if (strcmp(out->v[j].name, na.name) == 0)
				return rd_fail(r, p, PT_E_JSON_VALUE,
					       "tile parameter \"%s\" given "
					       "twice", na.name);
		na.span = rd_span(r, p);
		vec_push(r->a, out, na);
	}
	return true;
}

static bool
rd_ptx(Reader *r, const JsonValue *v, Expr *e)
{
	return rd_name(r, v, "spelling", &e->u.ptx.spelling) &&
	       rd_expr_list(r, v, "args", TY_ANY, &e->u.ptx.args) &&
	       rd_expr_at(r, v, "pred", TY(ET_SCALAR), true, &e->u.ptx.pred) &&
	       rd_bool(r, v, "preserve_dst", &e->u.ptx.preserve_dst);
}

static bool
rd_apply(Reader *r, const JsonValue *v, Expr *e)
{
	return rd_name(r, v, "opcode", &e->u.apply.opcode) &&
	       rd_expr_list(r, v, "operands", TY_ANY, &e->u.apply.operands) &&
	       rd_named_args(r, v, &e->u.apply.params) &&
	       rd_execscope(r, v, &e->u.apply.scope);
}

static bool
rd_ewise(Reader *r, const JsonValue *v, Expr *e)
{
	const JsonValue *fn = rd_field(r, v, "fn");
	if (!fn || !(e->u.ewise.fn = rd_func(r, fn, true)))
		return false;
	return rd_expr_at(r, v, "dst", TY(ET_TENSOR), false,
			  &e->u.ewise.dst) &&
	       rd_expr_list(r, v, "inputs", TY_ANY, &e->u.ewise.inputs) &&
	       rd_execscope(r, v, &e->u.ewise.scope);
}

static bool
rd_op(Reader *r, const JsonValue *v, Expr *e, bool binary)
{
	if (binary ? !RD_ENUM(r, v, "op", binop_names, &e->u.op.op)
		   : !RD_ENUM(r, v, "op", unop_names, &e->u.op.op))
		return false;
	return rd_expr_at(r, v, "a", TY(ET_SCALAR), false, &e->u.op.a) &&
	       (!binary ||
		rd_expr_at(r, v, "b", TY(ET_SCALAR), false, &e->u.op.b));
}

/* The kind-specific members of e (kind, type and dtype are set). */
static bool
rd_expr_body(Reader *r, const JsonValue *v, Expr *e)
{
	const unsigned S = TY(ET_SCALAR), T = TY(ET_TENSOR);
	bool b;
	switch (e->kind) {
	/* Literals may lack a dtype: the front end leaves the elements of
	 * a constant tuple parameter (box=(1, 32)) untyped. */
	case EX_INT:
		return rd_int(r, v, "value", INT64_MIN, INT64_MAX, &e->u.ival);
	case EX_FLOAT:
		/* no PTX immediate spells a float8/6/4 value */
		if (ir_dtype_is_storage(e->dtype))
			return rd_fail(r, v, PT_E_JSON_VALUE,
				       "a %s float constant (a storage format)",
				       dtype_name(e->dtype));
		return rd_float(r, v, &e->u.fval);
	case EX_BOOL:
		if (!rd_bool(r, v, "value", &b))
			return false;
		e->u.ival = b;
		return true;
	case EX_STR: return rd_string(r, v, "value", false, &e->u.str);
	case EX_VAR:
		return (e->u.var = rd_ref(r, &r->vars, v, "var", "variable"));
	case EX_BUF:
		return (e->u.buf = rd_ref(r, &r->bufs, v, "buf", "buffer"));
	case EX_UNARY: return rd_op(r, v, e, false);
	case EX_BINARY: return rd_op(r, v, e, true);
	case EX_CAST:
	case EX_REINTERPRET:
		return rd_expr_at(r, v, "a", S, false, &e->u.op.a) &&
		       rd_need_dtype(r, v, e);
	case EX_SELECT:
		return rd_expr_at(r, v, "cond", S, false, &e->u.op.a) &&
		       rd_expr_at(r, v, "then", S, false, &e->u.op.b) &&
		       rd_expr_at(r, v, "else", S, false, &e->u.op.c);
	case EX_LOAD:
	case EX_PTR_TO:
		return rd_expr_at(r, v, "base", T, false, &e->u.access.base) &&
		       rd_expr_list(r, v, "indices", S, &e->u.access.indices);
	case EX_BUILTIN: return rd_builtin(r, v, e);
	case EX_REGION: return rd_region(r, v, e);
	case EX_VIEW_DTYPE:
		return rd_expr_at(r, v, "base", T, false, &e->u.view.base) &&
		       rd_need_dtype(r, v, e);
	case EX_VIEW_RESHAPE:
		return rd_expr_at(r, v, "base", T, false, &e->u.view.base) &&
		       rd_expr_list(r, v, "shape", S, &e->u.view.shape) &&
		       rd_layout_at(r, v, "layout", &e->u.view.layout);
	case EX_TUPLE: return rd_expr_list(r, v, "items", TY_ANY, &e->u.tuple);
	case EX_PTX: return rd_ptx(r, v, e);
	case EX_TILE_APPLY: return rd_apply(r, v, e);
	case EX_TILE_EWISE: return rd_ewise(r, v, e);
	}
	return false;
}

/* Kind, "type" (default per kind) and "dtype" of an expression node. */
static Expr *
rd_expr_head(Reader *r, const JsonValue *v)
{
	const char *name;
	if (!json_is(v, JSON_OBJECT)) {
		rd_fail(r, v, PT_E_JSON_TYPE, "an expression must be an "
			"object, not %s", kind_of(v));
		return NULL;
	}
	if (!rd_string(r, v, "expr", false, &name))
		return NULL;
	int k = -1;
	for (size_t i = 0; i < countof(expr_info) && k < 0; i++)
		if (strcmp(expr_info[i].name, name) == 0)
			k = (int)i;
	if (k < 0) {
		rd_fail(r, json_get(v, "expr"), PT_E_JSON_KIND,
			"unknown expression kind \"%s\"", name);
		return NULL;
	}
	const ExprInfo *in = &expr_info[k];
	if (!rd_object(r, v, "an expression", "expr type dtype", in->fields))
		return NULL;
	Expr *e = NEW(r->a, Expr);
	e->kind = (ExprKind)k;
	e->type = in->type;
	e->span = rd_span(r, v);
	if (json_get(v, "type")) {
		int t;
		if (!RD_ENUM(r, v, "type", type_names, &t))
			return NULL;
		e->type = (ExprType)t;
		if (!(in->types & TY(t))) {
			rd_fail(r, json_get(v, "type"), PT_E_JSON_VALUE,
				"a \"%s\" expression cannot have type \"%s\"",
				name, type_names[t]);
			return NULL;
		}
	}
	if (json_get(v, "dtype") && !rd_dtype(r, v, "dtype", true, &e->dtype))
		return NULL;
	return e;
}

static Expr *
rd_expr(Reader *r, const JsonValue *v, unsigned types)
{
	Expr *e = rd_expr_head(r, v);
	if (!e || !rd_expr_body(r, v, e))
		return NULL;
	/* a literal's kind and dtype agree (the script front end types
	 * them so): an int node of a float dtype, or a float node of an
	 * integer one, reached PTX as `setp.ge.s32 %p, %r, 0f41000000` */
	bool flt = dtype_kind(e->dtype) == DK_FLOAT;
	if ((e->kind == EX_FLOAT && e->dtype != DT_NONE && !flt) ||
	    (e->kind == EX_INT && flt)) {
		rd_fail(r, v, PT_E_JSON_VALUE, "a%s literal of dtype %s",
			e->kind == EX_FLOAT ? " float" : "n integer",
			dtype_name(e->dtype));
		return NULL;
	}
	if (!(types & TY(e->type))) {
		rd_fail(r, v, PT_E_JSON_VALUE, "a %s expression is not allowed "
			"here", type_names[e->type]);
		return NULL;
	}
	return e;
}

/* ---- buffers ---- */

static Buffer *
rd_buf_fields(Reader *r, const JsonValue *v, Buffer *b)
{
	ExprVec shape = {0};
	int64_t align;
	if (!rd_name(r, v, "name", &b->name) ||
	    !rd_dtype(r, v, "dtype", true, &b->dtype) ||
	    !rd_expr_list(r, v, "shape", TY(ET_SCALAR), &shape) ||
	    !rd_memscope(r, v, &b->scope) ||
	    !rd_layout_at(r, v, "layout", &b->layout) ||
	    !rd_int(r, v, "align", 0, INT64_MAX, &align) ||
	    !rd_expr_at(r, v, "allocated_addr", TY(ET_SCALAR), true,
			&b->allocated_addr) ||
	    !rd_expr_at(r, v, "view", TY(ET_TENSOR), true, &b->view))
		return NULL;
	b->ndim = (int)shape.n;
	b->shape = shape.v;
	b->align = align;
	return b;
}

/* A buffer definition: a parameter's (is_param) or an allocation's or
 * named view's.  The buffer is defined after its own fields. */
static Buffer *
rd_buf_def(Reader *r, const JsonValue *obj, const char *key, bool is_param)
{
	const JsonValue *v = rd_field(r, obj, key);
	int kind;
	int64_t id;
	if (!v || !rd_object(r, v, "a buffer", "",
			     "id name kind dtype shape scope layout align "
			     "allocated_addr view") ||
	    !RD_ENUM(r, v, "kind", bufkind_names, &kind))
		return NULL;
	if ((kind == BK_PARAM) != is_param) {
		rd_fail(r, json_get(v, "kind"), PT_E_JSON_VALUE,
			"buffer kind \"%s\" does not belong %s",
			bufkind_names[kind],
			is_param ? "in a parameter" : "in a buf_def");
		return NULL;
	}
	Buffer *b = NEW(r->a, Buffer);
	b->kind = (BufKind)kind;
	b->span = rd_span(r, v);
	if (!rd_buf_fields(r, v, b))
		return NULL;
	if ((b->view != NULL) != (kind == BK_VIEW)) {
		rd_fail(r, json_get(v, "view"), PT_E_JSON_VALUE,
			"a buffer has a \"view\" exactly when its kind is "
			"\"view\"");
		return NULL;
	}
	if (!rd_new_id(r, &r->bufs, v, b, &id))
		return NULL;
	b->id = (int)id;
	return b;
}

/* ---- statements ---- */

static bool
rd_loop(Reader *r, const JsonValue *v, Stmt *s)
{
	const unsigned S = TY(ET_SCALAR);
	int kind;
	if (!rd_expr_at(r, v, "begin", S, true, &s->u.loop.begin) ||
	    !rd_expr_at(r, v, "end", S, false, &s->u.loop.end) ||
	    !rd_expr_at(r, v, "step", S, true, &s->u.loop.step) ||
	    !RD_ENUM(r, v, "kind", forkind_names, &kind) ||
	    !(s->u.loop.var = rd_var_def_at(r, v, "var", VK_LOOP)))
		return false;
	s->u.loop.kind = (ForKind)kind;
	return rd_block(r, v, "body", &s->u.loop.body);
}

static bool
rd_stmt_body(Reader *r, const JsonValue *v, Stmt *s)
{
	const unsigned S = TY(ET_SCALAR), T = TY(ET_TENSOR);
	switch (s->kind) {
	case ST_VAR_DECL:
		/* The initial value cannot refer to the variable itself. */
		if (!rd_expr_at(r, v, "value", S, true, &s->u.var.value))
			return false;
		return (s->u.var.var = rd_var_def_at(r, v, "var", VK_LOCAL));
	case ST_ASSIGN:
		return (s->u.var.var = rd_ref(r, &r->vars, v, "var",
					      "variable")) &&
		       rd_expr_at(r, v, "value", S, false, &s->u.var.value);
	case ST_STORE:
		return rd_expr_at(r, v, "base", T, false, &s->u.store.base) &&
		       rd_expr_list(r, v, "indices", S, &s->u.store.indices) &&
		       rd_expr_at(r, v, "value", S, false, &s->u.store.value);
	case ST_BUF_DEF:
		return (s->u.buf = rd_buf_def(r, v, "buf", false));
	case ST_FOR: return rd_loop(r, v, s);
	case ST_WHILE:
		return rd_expr_at(r, v, "cond", S, false, &s->u.whil.cond) &&
		       rd_block(r, v, "body", &s->u.whil.body);
	case ST_IF:
		return rd_expr_at(r, v, "cond", S, false, &s->u.cond.cond) &&
		       rd_block(r, v, "then", &s->u.cond.then) &&
		       rd_block(r, v, "else", &s->u.cond.els);
	case ST_BREAK:
	case ST_CONTINUE: return true;
	case ST_RETURN:
		return rd_expr_at(r, v, "value", S, true, &s->u.value);
	case ST_EVAL:
		return rd_expr_at(r, v, "value", TY_ALL, false, &s->u.value);
	}
	return false;
}

static Stmt *
rd_stmt(Reader *r, const JsonValue *v)
{
	int k;
	if (!json_is(v, JSON_OBJECT)) {
		rd_fail(r, v, PT_E_JSON_TYPE, "a statement must be an object, "
			"not %s", kind_of(v));
		return NULL;
	}
	const char *name;
	if (!rd_string(r, v, "stmt", false, &name))
		return NULL;
	k = name_index(stmt_names, (int)countof(stmt_names), name);
	if (k < 0) {
		rd_fail(r, json_get(v, "stmt"), PT_E_JSON_KIND,
			"unknown statement kind \"%s\"", name);
		return NULL;
	}
	if (!rd_object(r, v, "a statement", "stmt", stmt_fields[k]))
		return NULL;
	Stmt *s = NEW(r->a, Stmt);
	s->kind = (StmtKind)k;
	s->span = rd_span(r, v);
	return rd_stmt_body(r, v, s) ? s : NULL;
}

static bool
rd_block(Reader *r, const JsonValue *obj, const char *key, Block *out)
{
	const JsonValue *arr = rd_array(r, obj, key);
	if (!arr)
		return false;
	for (size_t i = 0; i < arr->arr.n; i++) {
		Stmt *s = rd_stmt(r, arr->arr.items[i]);
		if (!s)
			return false;
		vec_push(r->a, out, s);
	}
	return true;
}

/* ---- functions and the module ---- */

static bool
rd_param(Reader *r, const JsonValue *v, Param *p)
{
	int kind;
	if (!json_is(v, JSON_OBJECT))
		return rd_fail(r, v, PT_E_JSON_TYPE, "a parameter must be an "
			       "object, not %s", kind_of(v));
	if (!RD_ENUM(r, v, "param", paramkind_names, &kind) ||
	    !rd_object(r, v, "a parameter", "param",
		       kind == PK_TENSOR ? "buf" : "var"))
		return false;
	p->kind = (ParamKind)kind;
	p->span = rd_span(r, v);
	if (kind == PK_TENSOR)
		return (p->buf = rd_buf_def(r, v, "buf", true));
	return (p->var = rd_var_def_at(r, v, "var", VK_PARAM));
}

/* grid/block: 1..3 scalar expressions; a single one unless a tuple. */
static bool
rd_dims3(Reader *r, const JsonValue *v, const char *key, Expr **out,
	 int *n, bool *tuple)
{
	char tkey[16];
	ExprVec dims = {0};
	snprintf(tkey, sizeof(tkey), "%s_tuple", key);
	if (!rd_expr_list(r, v, key, TY(ET_SCALAR), &dims) ||
	    !rd_bool(r, v, tkey, tuple))
		return false;
	if (dims.n < 1 || dims.n > 3 || (!*tuple && dims.n != 1))
		return rd_fail(r, json_get(v, key), PT_E_JSON_VALUE,
			       "\"%s\" has %zu entries; it needs 1 (or 1 to 3 "
			       "as a tuple)", key, dims.n);
	*n = (int)dims.n;
	for (size_t i = 0; i < dims.n; i++)
		out[i] = dims.v[i];
	return true;
}

/* Optional "kernel_attrs": {min_blocks_per_sm, max_blocks_per_cluster,
 * max_registers_per_thread}, 0 meaning not set. */
static bool
rd_kernel_attrs(Reader *r, const JsonValue *v, Launch *l)
{
	const JsonValue *ka = json_get(v, "kernel_attrs");
	if (!ka)
		return true;
	return rd_object(r, ka, "kernel attributes", "",
			 "min_blocks_per_sm max_blocks_per_cluster "
			 "max_registers_per_thread") &&
	       rd_int(r, ka, "min_blocks_per_sm", 0, 1024,
		      &l->min_blocks_per_sm) &&
	       rd_int(r, ka, "max_blocks_per_cluster", 0, 1024,
		      &l->max_blocks_per_cluster) &&
	       rd_int(r, ka, "max_registers_per_thread", 0, 255,
		      &l->max_registers);
}

static bool
rd_cluster(Reader *r, const JsonValue *v, Launch *l)
{
	const JsonValue *arr = rd_array(r, v, "cluster");
	if (!arr || !rd_bool(r, v, "cluster_tuple", &l->cluster_tuple))
		return false;
	if (arr->arr.n > 3 || (!l->cluster_tuple && arr->arr.n > 1))
		return rd_fail(r, arr, PT_E_JSON_VALUE, "\"cluster\" has %zu "
			       "entries", arr->arr.n);
	l->ncluster = (int)arr->arr.n;
	for (size_t i = 0; i < arr->arr.n; i++) {
		const JsonValue *x = arr->arr.items[i];
		if (!json_int(x, &l->cluster[i]))
			return rd_type_error(r, x, "cluster", "integers");
		if (l->cluster[i] < 1 || l->cluster[i] > INT32_MAX)
			return rd_fail(r, x, PT_E_JSON_VALUE,
				       "cluster extent %lld is out of range",
				       (long long)l->cluster[i]);
	}
	return true;
}

static bool
rd_launch(Reader *r, const JsonValue *f, Func *fn)
{
	const JsonValue *v = rd_field(r, f, "launch");
	if (!v)
		return false;
	if (!fn->is_kernel) {
		if (!json_is(v, JSON_NULL))
			return rd_fail(r, v, PT_E_JSON_VALUE, "a scalar "
				       "function has no launch (null)");
		return true;
	}
	Launch *l = &fn->launch;
	return rd_object(r, v, "a launch", "",
			 "grid grid_tuple block block_tuple cluster "
			 "cluster_tuple kernel_attrs") &&
	       rd_dims3(r, v, "grid", l->grid, &l->ngrid, &l->grid_tuple) &&
	       rd_dims3(r, v, "block", l->block, &l->nblock,
			&l->block_tuple) &&
	       rd_cluster(r, v, l) && rd_kernel_attrs(r, v, l);
}

static bool
rd_func_sig(Reader *r, const JsonValue *v, Func *f)
{
	const JsonValue *params = rd_array(r, v, "params");
	if (!params)
		return false;
	for (size_t i = 0; i < params->arr.n; i++) {
		Param p = {0};
		if (!rd_param(r, params->arr.items[i], &p))
			return false;
		vec_push(r->a, &f->params, p);
	}
	if (!rd_dtype(r, v, "ret", true, &f->ret))
		return false;
	if ((f->ret != DT_NONE) == f->is_kernel)
		return rd_fail(r, json_get(v, "ret"), PT_E_JSON_VALUE,
			       f->is_kernel ? "a kernel returns nothing (null)"
					    : "a scalar function needs a "
					      "return dtype");
	return rd_launch(r, v, f);
}

/* A function: a module-level one, or an ewise call's lambda.  Each has a
 * scope of its own; module-level symbols (dyn) are visible in all. */
static Func *
rd_func(Reader *r, const JsonValue *v, bool lambda)
{
	if (!rd_object(r, v, "a function", "",
		       "name kernel params ret launch body"))
		return NULL;
	Func *f = NEW(r->a, Func);
	f->span = rd_span(r, v);
	if (!rd_name(r, v, "name", &f->name) ||
	    !rd_bool(r, v, "kernel", &f->is_kernel))
		return NULL;
	if (lambda && f->is_kernel) {
		rd_fail(r, json_get(v, "kernel"), PT_E_JSON_VALUE,
			"an ewise function must be a scalar function");
		return NULL;
	}
	int saved = r->scope;
	r->scope = ++r->nscopes;
	bool ok = rd_func_sig(r, v, f) && rd_block(r, v, "body", &f->body);
	r->scope = saved;
	return ok ? f : NULL;
}

/* The "format" and "version" members that identify a document. */
static bool
rd_header(Reader *r, const JsonValue *root)
{
	if (!json_is(root, JSON_OBJECT))
		return rd_fail(r, root, PT_E_JSON_FORMAT, "an IR document is "
			       "a JSON object, not %s", kind_of(root));
	const JsonValue *f = json_get(root, "format");
	const char *s = json_str(f);
	if (!s || strcmp(s, "ptxtile-ir") != 0)
		return rd_fail(r, f ? f : root, PT_E_JSON_FORMAT,
			       "not a ptxtile IR document: \"format\" must be "
			       "\"ptxtile-ir\"");
	const JsonValue *ver = json_get(root, "version");
	int64_t n;
	if (!json_int(ver, &n) || n != 1)
		return rd_fail(r, ver ? ver : root, PT_E_JSON_VERSION,
			       "unsupported IR JSON version (this reader "
			       "knows version 1)");
	return rd_object(r, root, "the module", "format version",
			 "dyn funcs");
}

static bool
rd_module(Reader *r, const JsonValue *root, Module *m)
{
	if (!rd_header(r, root))
		return false;
	const JsonValue *dyn = rd_array(r, root, "dyn");
	if (!dyn)
		return false;
	for (size_t i = 0; i < dyn->arr.n; i++) {
		Var *v = rd_var_def(r, dyn->arr.items[i], VK_DYN);
		if (!v)
			return false;
		vec_push(r->a, &m->dyn, v);
	}
	const JsonValue *funcs = rd_array(r, root, "funcs");
	if (!funcs)
		return false;
	for (size_t i = 0; i < funcs->arr.n; i++) {
		Func *f = rd_func(r, funcs->arr.items[i], false);
		if (!f)
			return false;
		vec_push(r->a, &m->funcs, f);
	}
	return true;
}

Module *
ir_module_from_json(Ctx *c, const char *text, size_t len, uint32_t file)
{
	Reader r = {.c = c, .a = &c->arena, .file = file};
	JsonError err;
	JsonValue *root = json_parse(r.a, text, len, &err);
	if (!root) {
		int code = strstr(err.msg, "nesting") ? PT_E_JSON_DEPTH
						      : PT_E_JSON_SYNTAX;
		uint32_t off = (uint32_t)err.offset;
		diag_error(c, code, (Span){file, off, off < len ? off + 1 : off},
			   "%s", err.msg);
		return NULL;
	}
	Module *m = NEW(r.a, Module);
	return rd_module(&r, root, m) ? m : NULL;
}
