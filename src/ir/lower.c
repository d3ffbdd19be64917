/*
 * lower.c - AST -> IR: name resolution, types, constant folding.
 * This file holds functions and the module; the pass is split by
 * construct: lower_sym.c (symbols), lower_type.c (literals, folding,
 * operators, casts), lower_expr.c (tensors, expressions), lower_call.c
 * (calls: raw PTX, tile calls, builtins), lower_layout.c (layouts),
 * lower_stmt.c (buffers, statements); lower.h is what they share.
 *
 * Input: the A_MODULE of parse.c.  Output: a Module (ir.h) whose
 * expressions all have a type and every scalar a dtype.  Errors are
 * diagnostics (PT_E_* in codes/sema.def); lowering goes on after an error
 * where it can, and a name whose definition failed is "poisoned" so that
 * its uses report nothing more.
 *
 * The language as lowered (docs/language.md is written from this list):
 *
 * Module level
 *  - `import ...` / `from ... import ...` are accepted.  `from X import
 *    tirx as A` (or `import X.tirx as A`) binds A to the builtin namespace
 *    (any alias).  `from X import S, R, TileLayout, ComposeLayout, Axis,
 *    laneid, ...` binds those builtins by name; other imported names are
 *    ignored (using them is an unknown name).
 *  - `N = expr` binds a compile-time constant (int, float, bool, str, or a
 *    tuple/list of those; expressions of earlier constants are folded).
 *    `L = T.TileLayout(...)` binds a layout.  `n = T.dynamic("n")` makes a
 *    symbolic size (an int32 Var named after the assigned name; the string
 *    is not used).  Rebinding a constant is allowed (Python order).
 *    A constant override (pt_set_constant, lower_const.c) replaces the
 *    value of every assignment of its name, after a type check; an
 *    override that no assignment takes is PT_E_CONST_UNKNOWN.
 *  - `@T.function def f(...)`: several per file.  A function whose first
 *    statement (after a docstring) is `T.device_entry(...)` is a kernel;
 *    any other is a scalar function (for ewise).  Function bodies see every
 *    module constant, whatever its position (Python resolves globals at
 *    call time).  In the IR, scalar functions come first, then kernels,
 *    each group in source order (the printer's order).
 *  - Anything else at module level is PT_E_MODULE_STMT.
 *
 * Types
 *  - Int literals are "weak" (dtype DT_NONE while lowering): next to a
 *    typed operand they take its dtype; alone they become int32 (int64
 *    when the value does not fit; literals above INT64_MAX are uint64).
 *    Float literals likewise become float32 (rounded).  An int literal
 *    adapts to a float dtype; a float literal never adapts to an int one.
 *  - Two different non-literal dtypes in one operation are
 *    PT_E_TYPE_MISMATCH: convert explicitly with T.cast.  Comparisons give
 *    bool; and/or/not and conditions (if, while, T.if_then_else, pred=)
 *    need bool.  & | ^ take ints or bools; << >> ~ take ints.
 *  - Integer `/` truncates, `//` and `%` floor (ir.h).  Constants are
 *    folded with wrap-around at the dtype's width; weak ones (Python
 *    ints) that leave int64 are PT_E_INT_OVERFLOW;
 *    shifts by a negative amount or >= the width, float results that are
 *    not finite, and float // and % are left unfolded.  Constant division
 *    by zero is PT_E_CONST_DIV.
 *  - `T.uint32(5)` is a typed literal whose value must fit the dtype
 *    (PT_E_LITERAL_RANGE; T.cast wraps); `T.uint32(x)` of a non-constant is
 *    a cast (EX_CAST), as is `T.cast(x, "uint32")` / `T.cast(x,
 *    ty="uint32")`.  `T.reinterpret("uint32", x)` needs equal bit widths.
 *
 * Statements (inside functions; Python's flat function scope)
 *  - `x = e` with x new: a tensor-valued e (a view) defines a Buffer
 *    (ST_BUF_DEF, BK_VIEW); `T.alloc_*`/`T.decl_buffer` define BK_ALLOC;
 *    a layout call binds a layout; a constant tuple or string binds a
 *    constant; any other scalar declares a local (ST_VAR_DECL, dtype of
 *    e).  With x an existing local it assigns (ST_ASSIGN; dtypes must
 *    match after literal adaptation).  Parameters, loop variables and
 *    symbolic sizes are not assignable; buffer names are not rebound.
 *  - `x: T.dtype = e` / `x: T.dtype` declare (redeclaring is an error).
 *  - `A[i, j] = e` stores (ST_STORE); `x op= e` and `A[i] op= e` become
 *    an assignment / store of the binary operation.
 *  - `for i in range(a[, b[, s]])` and `T.serial(...)` are FOR_SERIAL,
 *    `T.unroll(...)` FOR_UNROLL; begin, end and step share one int dtype,
 *    which is the loop variable's; each loop makes a new variable.
 *  - `while`, `if/elif/else`, `break`/`continue` (only in loops),
 *    `pass`, docstrings (ignored), expression statements (calls only;
 *    `T.evaluate(call)` is the same as `call`).
 *  - `a, b = x, y` (or a constant tuple) binds after every value is
 *    computed (hidden copies when an existing local is assigned);
 *    `for i, j in T.grid(a, b)` is a nest of serial loops (lower_stmt.c).
 *  - `if T.constexpr(c):` keeps only the branch c picks.
 *  - In a kernel, `return` / `return 0` is an early exit (ST_RETURN
 *    without a value).
 *  - `return e` only in scalar functions, which may hold only scalar
 *    declarations/assignments, if/else and returns, and must return on
 *    every path.  Their result dtype is the annotation or, without one,
 *    the first returned value's.
 *
 * Kernels
 *  - Parameters: `T.Tensor(shape, dtype[, align=, layout=, scope=])`
 *    (scope "global" by default), scalar dtypes (`T.int32`, ...), and
 *    `T.TensorMap()` (a Var of dtype uint64, the map's address).
 *  - First statement `T.device_entry(launch=T.cuda.LaunchConfig(grid=,
 *    block=[, cluster=]))`; grid/block ints, scalar expressions or 1-3
 *    tuples; cluster compile-time ints.
 *  - Allocation: `T.alloc_shared` (scope shared), `T.alloc_local`
 *    (local), `T.alloc_buffer(..., scope=)` (default "global"),
 *    `T.decl_buffer(..., scope="tmem", allocated_addr=e)` (tmem only).
 *    Keywords layout= ("default" or a layout) and align=.
 *
 * Expressions
 *  - Subscripts: all-scalar indices are a load (EX_LOAD), also in tile
 *    operand lists; any slice makes a region (EX_REGION); `X.sub[...]` is
 *    always a region.  Index dims of `.sub` drop from the region's
 *    shape; in `X[i, :]` they stay with extent 1 (TIRx).  Slice
 *    steps are rejected.  `X.view("dtype")` / `X.view(T.dtype)` is
 *    EX_VIEW_DTYPE; `X.view(s0, s1[, layout=L])` or `X.view((s0, s1),
 *    ...)` is EX_VIEW_RESHAPE.  `X.ptr_to([i, ...])` is EX_PTR_TO, a
 *    scalar of dtype uint64.
 *  - Raw PTX: `T.ptx.a.b_.c__d(args, pred=, preserve_dst=)` spells
 *    "a.b.c::d" (per dotted part: one trailing '_' dropped, then "__" ->
 *    "::"); `T.ptx["a.b"](...)` takes the literal (a constant string).
 *    Spellings must use only [A-Za-z0-9_.:] (PT_E_PTX_SPELLING); the form
 *    table check is a later pass.  Both are EX_PTX (void).
 *  - `T.cuda.tile.apply(T.ptx["op"] | T.ptx.op.chain, *operands,
 *    scope="thread", **params)`: every keyword except scope is a named
 *    parameter in written order; the generic keywords attrs, ty, ty_args
 *    and loc are rejected (PT_E_UNSUPPORTED).  `T.cuda.tile.ewise(fn, dst,
 *    *inputs, scope=)` names a scalar @T.function.
 *  - f-strings fold to a constant string (fields: constant str, int or
 *    bool); `x if c else y` picks a side when c is constant, else is a
 *    select; `T.constexpr(e)` must fold; constant strings compare with
 *    == and !=; `A.data` is A.ptr_to([0, ...]); `T.decl_tensor(A.data,
 *    ty_args=[T.Tensor(shape, dtype)])` is a view of A.  TIRx's one-PTX
 *    helpers (T.cuda.atomic_add, wait_until, ballot_sync, clock64,
 *    uint_as_float, float_as_uint) become raw PTX calls (lower_tirx.c).
 *  - Star arguments `*[a, b]`, `*(a, b)` and `*NAME` (a constant tuple)
 *    expand in place; constant sequences are limited to 4096 elements.
 *  - Layouts: `T.TileLayout(S[...] [+ R[...]] [+ k@axis | k]...)`,
 *    `T.ComposeLayout(M, B, S, tile)`, a name bound to a layout, or
 *    "default".  Iters: `S[(e0, e1):(s0, s1)]`, `S[e:s]`, `S[e0, e1]`
 *    (row-major strides on m); a stride is k (axis m), `k@axis` or an
 *    axis-name string (1@axis).  Axes: bare imported names, `Axis.x`,
 *    `T.Axis.x`.  Offset terms on the same axis are merged.
 */
#include "ir/lower.h"

/* ---- functions ---- */

static bool
tensor_param(Lower *L, Ast *p, Ast *ann, Param *out)
{
	Buffer *b = lw_new_buf(L, p->name, BK_PARAM, p->span);
	Args a;
	if (!lw_split_args(L, ann, &a))
		return false;
	static const char *const kws[] = {"shape", "dtype", "align", "layout",
					  "scope", NULL};
	if (!lw_check_keywords(L, &a, kws, "T.Tensor") ||
	    !lw_shape_and_dtype(L, &a, ann, "T.Tensor", b))
		return false;
	b->scope = MS_GLOBAL;
	Ast *sk = lw_kwarg(&a, "scope");
	if (sk && !lw_scope_of(L, sk, &b->scope))
		return false;
	Ast *lay = lw_kwarg(&a, "layout");
	if (lay && !lower_layout(L, lay, &b->layout))
		return false;
	if (!lw_alloc_int_kw(L, &a, "align", &b->align))
		return false;
	out->kind = PK_TENSOR;
	out->buf = b;
	lw_bind(L, b->name, SYM_BUF)->buf = b;
	return true;
}

static bool
lower_param(Lower *L, Ast *p, Param *out)
{
	out->span = p->span;
	if (!p->a)
		return diag_error(L->c, PT_E_BAD_PARAM, p->span,
				  "parameter '%s' needs an annotation",
				  p->name);
	if (lw_lookup_local(L, p->name))
		return diag_error(L->c, PT_E_REDEFINED, p->span,
				  "duplicate parameter '%s'", p->name);
	const char *cp = lw_call_path(L, p->a);
	const char *ap = lw_ast_path(L, p->a);
	if (lw_path_is(cp, "Tensor") || lw_path_is(cp, "TensorMap") ||
	    lw_path_is(ap, "TensorMap")) {
		if (!L->fn->is_kernel)
			return diag_error(L->c, PT_E_BAD_PARAM, p->a->span,
					  "a scalar function takes only scalar "
					  "parameters");
		if (lw_path_is(cp, "Tensor"))
			return tensor_param(L, p, p->a, out);
		if (cp && p->a->list.n)
			return diag_error(L->c, PT_E_ARG_COUNT, p->a->span,
					  "T.TensorMap() takes no arguments");
		out->kind = PK_TENSORMAP;
		out->var = lw_new_var(L, p->name, DT_UINT64, VK_PARAM, p->span);
		lw_bind(L, p->name, SYM_VAR)->var = out->var;
		return true;
	}
	DType t;
	if (!ap || !*ap || !dtype_parse(ap, &t))
		return diag_error(L->c, PT_E_BAD_PARAM, p->a->span,
				  "expected T.Tensor(...), T.TensorMap() or a "
				  "scalar dtype such as T.int32");
	out->kind = PK_SCALAR;
	out->var = lw_new_var(L, p->name, t, VK_PARAM, p->span);
	lw_bind(L, p->name, SYM_VAR)->var = out->var;
	return true;
}

/* grid=/block=/cluster= value: an int expression or a 1-3 tuple. */
static bool
launch_dims(Lower *L, Ast *a, Expr **dims, int *n, bool *tuple)
{
	Expr *e = lower_expr(L, a);
	if (!e)
		return false;
	*tuple = e->kind == EX_TUPLE;
	size_t cnt = *tuple ? e->u.tuple.n : 1;
	if (cnt < 1 || cnt > 3)
		return diag_error(L->c, PT_E_BAD_LAUNCH, a->span,
				  "expected 1 to 3 dimensions");
	for (size_t i = 0; i < cnt; i++) {
		Expr *d = lw_need_int(L, *tuple ? e->u.tuple.v[i] : e, a->span);
		if (!d)
			return false;
		dims[i] = d;
	}
	*n = (int)cnt;
	return true;
}

/* kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=,
 * max_blocks_per_cluster=, max_registers_per_thread=): positive constants
 * that become the .minnctapersm, .maxclusterrank and .maxnreg
 * directives; required_block_size= (above). */
/* required_block_size=True|False: TIRx's __block_size__ (.reqntid of the
 * launch block, .reqnctapercluster of its cluster).  Every kernel here
 * already declares both (.reqntid always, .reqnctapercluster with a
 * cluster) and the launch check holds a launch to them, so either value
 * leaves the kernel as it is; it must be a constant bool. */
static bool
required_block_size(Lower *L, Ast *v)
{
	Expr *e = v ? lower_expr(L, v) : NULL;
	if (!v || (e && e->kind == EX_BOOL))
		return true;
	return e ? diag_error(L->c, PT_E_NOT_CONST, v->span,
			      "required_block_size must be True or False")
		 : false;
}

static bool
lower_kernel_attrs(Lower *L, Ast *ka, Launch *out)
{
	if (!lw_path_is(lw_call_path(L, ka), "cuda.KernelAttributes"))
		return diag_error(L->c, PT_E_BAD_LAUNCH, ka->span,
				  "expected kernel_attrs=T.cuda.KernelAttributes"
				  "(...)");
	Args k;
	if (!lw_split_args(L, ka, &k))
		return false;
	static const char *const kws[] = {"min_blocks_per_sm",
					  "max_blocks_per_cluster",
					  "max_registers_per_thread",
					  "required_block_size", NULL};
	if (!lw_check_keywords(L, &k, kws, "T.cuda.KernelAttributes") ||
	    !lw_check_count(L, &k, 0, 0, ka->span, "T.cuda.KernelAttributes") ||
	    !required_block_size(L, lw_kwarg(&k, "required_block_size")))
		return false;
	int64_t *dst[] = {&out->min_blocks_per_sm, &out->max_blocks_per_cluster,
			  &out->max_registers};
	const int64_t hi[] = {1024, 1024, 255};
	for (int i = 0; i < 3; i++) {
		Ast *v = lw_kwarg(&k, kws[i]);
		if (!v)
			continue;
		Expr *e = lower_expr(L, v);
		if (!e)
			return false;
		if (!ir_const_int(e, dst[i]))
			return diag_error(L->c, PT_E_NOT_CONST, v->span,
					  "%s must be a constant", kws[i]);
		if (*dst[i] < 1 || *dst[i] > hi[i])
			return diag_error(L->c, PT_E_BAD_LAUNCH, v->span,
					  "%s is %lld, outside 1..%lld", kws[i],
					  (long long)*dst[i], (long long)hi[i]);
	}
	return true;
}

static bool
lower_launch(Lower *L, Ast *s, Launch *out)
{
	Ast *call = s->a;
	Args a;
	if (!lw_split_args(L, call, &a))
		return false;
	static const char *const kws[] = {"launch", "kernel_attrs", NULL};
	if (!lw_check_keywords(L, &a, kws, "T.device_entry") ||
	    !lw_check_count(L, &a, 0, 0, call->span, "T.device_entry"))
		return false;
	Ast *lc = lw_kwarg(&a, "launch");
	if (!lc || !lw_path_is(lw_call_path(L, lc), "cuda.LaunchConfig"))
		return diag_error(L->c, PT_E_BAD_LAUNCH, call->span,
				  "expected launch=T.cuda.LaunchConfig(grid=..., "
				  "block=...)");
	Args la;
	if (!lw_split_args(L, lc, &la))
		return false;
	static const char *const lkws[] = {"grid", "block", "cluster", NULL};
	if (!lw_check_keywords(L, &la, lkws, "T.cuda.LaunchConfig") ||
	    !lw_check_count(L, &la, 0, 0, lc->span, "T.cuda.LaunchConfig"))
		return false;
	Ast *ka = lw_kwarg(&a, "kernel_attrs");
	if (ka && !lower_kernel_attrs(L, ka, out))
		return false;
	Ast *g = lw_kwarg(&la, "grid"), *b = lw_kwarg(&la, "block");
	Ast *cl = lw_kwarg(&la, "cluster");
	if (cl && out->max_blocks_per_cluster)
		/* PTX: .reqnctapercluster and .maxclusterrank conflict */
		return diag_error(L->c, PT_E_BAD_LAUNCH, ka->span,
				  "max_blocks_per_cluster bounds a cluster "
				  "chosen at launch; it cannot be combined "
				  "with cluster=, which fixes the cluster");
	if (!g || !b)
		return diag_error(L->c, PT_E_MISSING_ARG, lc->span,
				  "LaunchConfig needs grid= and block=");
	if (!launch_dims(L, g, out->grid, &out->ngrid, &out->grid_tuple) ||
	    !launch_dims(L, b, out->block, &out->nblock, &out->block_tuple))
		return false;
	if (!cl)
		return true;
	Expr *dims[3];
	if (!launch_dims(L, cl, dims, &out->ncluster, &out->cluster_tuple))
		return false;
	for (int i = 0; i < out->ncluster; i++)
		if (!ir_const_int(dims[i], &out->cluster[i]))
			return diag_error(L->c, PT_E_NOT_CONST, cl->span,
					  "cluster dimensions must be constants");
	return true;
}

static bool
is_device_entry(Lower *L, Ast *s)
{
	return s->kind == S_EXPR && lw_path_is(lw_call_path(L, s->a), "device_entry");
}

/* Index of the first statement that is not a docstring. */
static size_t
first_stmt(Ast *def)
{
	size_t i = 0;
	if (def->body.n > 0 && def->body.v[0]->kind == S_EXPR &&
	    def->body.v[0]->a->kind == A_STR)
		i = 1;
	return i;
}

static bool
block_returns(const Block *b)
{
	if (b->n == 0)
		return false;
	const Stmt *s = b->v[b->n - 1];
	if (s->kind == ST_RETURN)
		return true;
	return s->kind == ST_IF && block_returns(&s->u.cond.then) &&
	       block_returns(&s->u.cond.els);
}

static void
lower_function(Lower *L, Ast *def, Func *f)
{
	L->fn = f;
	L->func_base = L->syms.n;
	L->loops = 0;
	for (size_t i = 0; i < def->params.n; i++) {
		Param p = {0};
		if (!lower_param(L, def->params.v[i], &p)) {
			lw_poison(L, def->params.v[i]->name);
			continue;
		}
		vec_push(&L->c->arena, &f->params, p);
	}
	if (def->b && !f->is_kernel && !lw_ast_dtype(L, def->b, &f->ret))
		f->ret = DT_NONE;
	AstVec body = def->body;
	size_t k = first_stmt(def);
	if (f->is_kernel) {
		lower_launch(L, def->body.v[k], &f->launch);
		k++;
	}
	body.v += k;
	body.n -= k;
	lower_block(L, &body, &f->body);
	if (!f->is_kernel && !ctx_has_errors(L->c) && !block_returns(&f->body))
		diag_error(L->c, PT_E_SCALAR_FN, def->span,
			   "scalar function '%s' must return a value on every "
			   "path", f->name);
	lw_unbind_to(L, L->func_base);
}

/* ---- module ---- */

static bool
is_function_decorator(Lower *L, Ast *d)
{
	const char *p = lw_ast_path(L, d);
	if (lw_path_is(p, "function"))
		return true;
	if (d->kind != A_CALL || !lw_path_is(lw_ast_path(L, d->a), "function"))
		return false;
	/* @T.function(private=True|False): TVM's private drops the
	 * function's module-level global symbol, which a PTX module does
	 * not have; the kernel is emitted the same either way */
	for (size_t i = 0; i < d->list.n; i++) {
		Ast *k = d->list.v[i];
		if (k->kind != A_KWARG || strcmp(k->name, "private") ||
		    k->a->kind != A_BOOL)
			return false;
	}
	return true;
}

static Func *
declare_function(Lower *L, Ast *def)
{
	if (def->list.n != 1 || !is_function_decorator(L, def->list.v[0])) {
		Span sp = def->list.n ? def->list.v[0]->span : def->span;
		diag_error(L->c, PT_E_BAD_DECORATOR, sp,
			   "function '%s' needs exactly one decorator, "
			   "@T.function or @T.function(private=True)",
			   def->name);
		return NULL;
	}
	Sym *old = lw_lookup(L, def->name);
	if (old && old->kind == SYM_FUNC) {
		diag_error(L->c, PT_E_REDEFINED, def->span,
			   "function '%s' is defined twice", def->name);
		return NULL;
	}
	Func *f = NEW(&L->c->arena, Func);
	f->name = def->name;
	f->span = def->span;
	size_t k = first_stmt(def);
	f->is_kernel = k < def->body.n && is_device_entry(L, def->body.v[k]);
	lw_bind(L, def->name, SYM_FUNC)->fn = f;
	return f;
}

static const char *
last_component(const char *dotted)
{
	const char *p = strrchr(dotted, '.');
	return p ? p + 1 : dotted;
}

static bool
is_builtin_import(const char *name)
{
	static const char *const names[] = {
#define IMPORT(name, module) name,
#include "ir/imports.def"
#undef IMPORT
		NULL};
	Axis ax;
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return axis_parse(name, &ax);
}

static void
lower_import(Lower *L, Ast *s)
{
	for (size_t i = 0; i < s->list.n; i++) {
		Ast *al = s->list.v[i];
		const char *as = al->str ? al->str : al->name;
		if (s->kind == S_IMPORT) {
			if (al->str && !strcmp(last_component(al->name), "tirx"))
				lw_bind(L, as, SYM_NS);
			continue;
		}
		if (!strcmp(al->name, "tirx")) {
			lw_bind(L, as, SYM_NS);
		} else if (is_builtin_import(al->name)) {
			Axis ax;
			Sym *b = lw_bind(L, as, SYM_BUILTIN);
			b->path = axis_parse(al->name, &ax)
					  ? arena_printf(&L->c->arena, "Axis.%s",
							 al->name)
					  : al->name;
		}
	}
}

static void
lower_module_assign(Lower *L, Ast *s)
{
	if (s->a->kind != A_NAME) {
		diag_error(L->c, PT_E_MODULE_STMT, s->span,
			   "module level assigns constants to names");
		return;
	}
	const char *name = s->a->name;
	const char *p = lw_call_path(L, s->b);
	Sym *old = lw_lookup(L, name);
	if (old && (old->kind == SYM_FUNC || old->kind == SYM_VAR)) {
		diag_error(L->c, PT_E_REDEFINED, s->a->span,
			   "'%s' is already defined", name);
		return;
	}
	if (lw_path_is(p, "dynamic")) {
		lw_refuse_override(L, name, "a T.dynamic size", s->a->span);
		if (s->b->list.n != 1 || s->b->list.v[0]->kind != A_STR) {
			diag_error(L->c, PT_E_ARG_COUNT, s->b->span,
				   "T.dynamic takes one name string");
			lw_bind(L, name, SYM_ERROR);
			return;
		}
		Var *v = lw_new_var(L, name, DT_INT32, VK_DYN, s->a->span);
		vec_push(&L->c->arena, &L->m->dyn, v);
		lw_bind(L, name, SYM_VAR)->var = v;
		return;
	}
	if (lw_is_layout_path(p)) {
		lw_refuse_override(L, name, "a layout", s->a->span);
		Layout *lay;
		if (lower_layout(L, s->b, &lay))
			lw_bind(L, name, SYM_LAYOUT)->layout = lay;
		else
			lw_bind(L, name, SYM_ERROR);
		return;
	}
	Expr *e = lower_expr(L, s->b);
	if (e && !lw_is_const_value(e)) {
		diag_error(L->c, PT_E_NOT_CONST, s->b->span,
			   "module-level values must be compile-time "
			   "constants");
		e = NULL;
	}
	e = lw_override_const(L, name, e, s->span);
	if (e)
		lw_bind(L, name, SYM_CONST)->cval = e;
	else
		lw_bind(L, name, SYM_ERROR);
}

static void
lower_module_stmt(Lower *L, Ast *s, AstVec *defs, FuncVec *fns)
{
	switch (s->kind) {
	case S_IMPORT:
	case S_FROM:
		lower_import(L, s);
		return;
	case S_ASSIGN:
		lower_module_assign(L, s);
		return;
	case S_DEF: {
		Func *f = declare_function(L, s);
		if (f) {
			vec_push(&L->c->arena, defs, s);
			vec_push(&L->c->arena, fns, f);
		}
		return;
	}
	case S_EXPR:
		if (s->a->kind == A_STR)
			return;
		/* fall through */
	default:
		diag_error(L->c, PT_E_MODULE_STMT, s->span,
			   "only imports, constants, T.dynamic and "
			   "@T.function definitions are allowed at module "
			   "level");
	}
}

Module *
lower_module(Ctx *c, Ast *mod)
{
	Lower L = {0};
	L.c = c;
	L.m = NEW(&c->arena, Module);
	AstVec defs = {0};
	FuncVec fns = {0};
	lw_parse_overrides(&L);
	for (size_t i = 0; i < mod->body.n; i++)
		lower_module_stmt(&L, mod->body.v[i], &defs, &fns);
	lw_check_overrides_used(&L);
	for (size_t i = 0; i < defs.n; i++)
		lower_function(&L, defs.v[i], fns.v[i]);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < fns.n; i++)
			if (fns.v[i]->is_kernel == (pass == 1))
				vec_push(&c->arena, &L.m->funcs, fns.v[i]);
	return L.m;
}
