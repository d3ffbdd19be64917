/*
 * launch.c - checks launch arguments against kernel metadata and builds
 * the launch plan, without touching the driver.
 *
 * Input: an RtKernelMeta and the caller's ptrt_arg array.  Output: a
 * LaunchPlan (bound symbolic sizes, grid/block/cluster, dynamic shared
 * memory, one parameter pointer per PTX parameter, tensor map arguments)
 * in the caller's arena, or a status naming the argument at fault.
 * Arguments are numbered from 1 in messages, as a person counts them.
 */
#include <stdio.h>
#include <string.h>

#include "rt/rt.h"

static const char *
kind_word(ptrt_arg_kind k)
{
	switch (k) {
	case PTRT_ARG_TENSOR: return "a tensor";
	case PTRT_ARG_SCALAR: return "a scalar";
	case PTRT_ARG_TENSORMAP: return "a tensor map";
	}
	return "an unknown kind of argument";
}

static ptrt_arg_kind
param_arg_kind(RtParamKind k)
{
	return k == RP_TENSOR ? PTRT_ARG_TENSOR
	       : k == RP_SCALAR ? PTRT_ARG_SCALAR
				: PTRT_ARG_TENSORMAP;
}

typedef struct Binder {
	const RtKernelMeta *k;
	int64_t *vals;
	int *from_arg; /* argument (0-based) that bound each var, or -1 */
	int *from_dim;
	RtStatus *st;
} Binder;

static int
bind_dim(Binder *b, const RtParam *p, int d, int64_t size)
{
	const RtDim *dim = &p->shape[d];
	if (dim->var < 0) {
		if (size == dim->value)
			return PT_OK;
		return rt_fail(b->st, PT_E_RT_ARG_SHAPE,
			       "argument %d (\"%s\"): dim %d is %lld, the kernel "
			       "needs %lld",
			       p->arg + 1, p->name, d, (long long)size,
			       (long long)dim->value);
	}
	int v = dim->var;
	if (b->from_arg[v] < 0) {
		b->vals[v] = size;
		b->from_arg[v] = p->arg;
		b->from_dim[v] = d;
		return PT_OK;
	}
	if (b->vals[v] == size)
		return PT_OK;
	if (b->from_dim[v] < 0) /* bound by a scalar of that name */
		return rt_fail(b->st, PT_E_RT_SYM_MISMATCH,
			       "symbolic size \"%s\" is %lld from scalar "
			       "argument %d but %lld from argument %d (\"%s\") "
			       "dim %d",
			       b->k->vars[v], (long long)b->vals[v],
			       b->from_arg[v] + 1, (long long)size, p->arg + 1,
			       p->name, d);
	return rt_fail(b->st, PT_E_RT_SYM_MISMATCH,
		       "symbolic size \"%s\" is %lld from argument %d dim %d "
		       "but %lld from argument %d (\"%s\") dim %d",
		       b->k->vars[v], (long long)b->vals[v],
		       b->from_arg[v] + 1, b->from_dim[v], (long long)size,
		       p->arg + 1, p->name, d);
}

/* An integer scalar named by launch expressions binds its var to its
 * value (the var is shared with a symbolic size of the same name, whose
 * value must then agree). */
static int
bind_scalar(Binder *b, const RtParam *p, const ptrt_arg *a)
{
	int64_t v;
	switch (p->dtype) {
	case PTRT_INT32: v = a->scalar.i32; break;
	case PTRT_UINT32: v = a->scalar.u32; break;
	case PTRT_INT64: v = a->scalar.i64; break;
	default:
		if (a->scalar.u64 > (uint64_t)INT64_MAX)
			return rt_fail(b->st, PT_E_RT_DIM_RANGE,
				       "argument %d (\"%s\"): %llu does not fit "
				       "the launch arithmetic (int64)",
				       p->arg + 1, p->name,
				       (unsigned long long)a->scalar.u64);
		v = (int64_t)a->scalar.u64;
	}
	int x = p->var;
	if (b->from_arg[x] >= 0 && b->vals[x] != v)
		return rt_fail(b->st, PT_E_RT_SYM_MISMATCH,
			       "argument %d (\"%s\") is %lld, but size \"%s\" "
			       "is %lld from argument %d",
			       p->arg + 1, p->name, (long long)v, b->k->vars[x],
			       (long long)b->vals[x], b->from_arg[x] + 1);
	b->vals[x] = v;
	b->from_arg[x] = p->arg;
	b->from_dim[x] = -1;
	return PT_OK;
}

/* Dense row-major strides in bits are size(inner dims) * element bits. */
static int
check_contiguous(const RtParam *p, const ptrt_arg *a, RtStatus *st)
{
	int n = a->tensor.ndim, bits = dtype_bits_rt(a->dtype);
	int64_t want_bits = bits;
	for (int d = n - 1; d >= 0; d--) {
		bool checked = want_bits % 8 == 0 && (bits >= 8 || d < n - 1);
		if (checked && a->tensor.shape[d] > 1 &&
		    a->tensor.strides[d] != want_bits / 8)
			return rt_fail(st, PT_E_RT_ARG_STRIDE,
				       "argument %d (\"%s\"): dim %d has stride "
				       "%lld bytes; the kernel needs a dense "
				       "row-major tensor (stride %lld)",
				       p->arg + 1, p->name, d,
				       (long long)a->tensor.strides[d],
				       (long long)(want_bits / 8));
		if (__builtin_mul_overflow(want_bits, a->tensor.shape[d],
					   &want_bits))
			return rt_fail(st, PT_E_RT_ARG_SHAPE,
				       "argument %d (\"%s\"): the tensor is "
				       "too large",
				       p->arg + 1, p->name);
	}
	return PT_OK;
}

static int
check_tensor(Binder *b, const RtParam *p, const ptrt_arg *a)
{
	RtStatus *st = b->st;
	if (a->dtype != p->dtype)
		return rt_fail(st, PT_E_RT_ARG_DTYPE,
			       "argument %d (\"%s\"): tensor of %s, the kernel "
			       "needs %s",
			       p->arg + 1, p->name,
			       ptrt_dtype_name(a->dtype) ? ptrt_dtype_name(a->dtype)
							 : "an unknown dtype",
			       ptrt_dtype_name(p->dtype));
	if (a->tensor.ptr == 0)
		return rt_fail(st, PT_E_RT_ARG_NULL,
			       "argument %d (\"%s\"): null device pointer",
			       p->arg + 1, p->name);
	if (a->tensor.ndim != p->ndim)
		return rt_fail(st, PT_E_RT_ARG_SHAPE,
			       "argument %d (\"%s\"): rank %d, the kernel needs "
			       "rank %d",
			       p->arg + 1, p->name, a->tensor.ndim, p->ndim);
	if (a->tensor.ptr % (uint64_t)p->align != 0)
		return rt_fail(st, PT_E_RT_ARG_ALIGN,
			       "argument %d (\"%s\"): address 0x%llx is not "
			       "%lld-byte aligned",
			       p->arg + 1, p->name,
			       (unsigned long long)a->tensor.ptr,
			       (long long)p->align);
	for (int d = 0; d < p->ndim; d++) {
		if (a->tensor.shape[d] < 0)
			return rt_fail(st, PT_E_RT_ARG_SHAPE,
				       "argument %d (\"%s\"): negative size "
				       "in dim %d",
				       p->arg + 1, p->name, d);
		int rc = bind_dim(b, p, d, a->tensor.shape[d]);
		if (rc != PT_OK)
			return rc;
	}
	return p->contiguous ? check_contiguous(p, a, st) : PT_OK;
}

static int
check_arg(Binder *b, const RtParam *p, const ptrt_arg *a)
{
	RtStatus *st = b->st;
	ptrt_arg_kind want = param_arg_kind(p->kind);
	if (a->kind != want)
		return rt_fail(st, PT_E_RT_ARG_KIND,
			       "argument %d (\"%s\"): %s, the kernel needs %s",
			       p->arg + 1, p->name, kind_word(a->kind),
			       kind_word(want));
	switch (p->kind) {
	case RP_TENSOR:
		return check_tensor(b, p, a);
	case RP_SCALAR:
		if (a->dtype == p->dtype)
			return p->var >= 0 ? bind_scalar(b, p, a) : PT_OK;
		return rt_fail(st, PT_E_RT_ARG_DTYPE,
			       "argument %d (\"%s\"): scalar of %s, the "
			       "kernel needs %s",
			       p->arg + 1, p->name,
			       ptrt_dtype_name(a->dtype) ? ptrt_dtype_name(a->dtype)
							 : "an unknown dtype",
			       ptrt_dtype_name(p->dtype));
	default:
		if (a->tensormap)
			return PT_OK;
		return rt_fail(st, PT_E_RT_ARG_NULL,
			       "argument %d (\"%s\"): null tensor map pointer",
			       p->arg + 1, p->name);
	}
}

/* Storage for a hidden dim parameter of type t holding v. */
static void *
dim_value(Arena *a, const RtParam *p, int64_t v, const char *var,
	  RtStatus *st)
{
	int64_t lo = 0, hi = INT64_MAX;
	if (p->dtype == PTRT_INT32) {
		lo = INT32_MIN;
		hi = INT32_MAX;
	} else if (p->dtype == PTRT_UINT32) {
		hi = UINT32_MAX;
	} else if (p->dtype == PTRT_INT64) {
		lo = INT64_MIN;
	}
	if (v < lo || v > hi) {
		rt_fail(st, PT_E_RT_DIM_RANGE,
			"symbolic size \"%s\" = %lld does not fit parameter "
			"\"%s\" of type %s",
			var, (long long)v, p->name, ptrt_dtype_name(p->dtype));
		return NULL;
	}
	if (p->dtype == PTRT_INT32 || p->dtype == PTRT_UINT32) {
		uint32_t *x = NEW(a, uint32_t);
		*x = (uint32_t)v;
		return x;
	}
	uint64_t *x = NEW(a, uint64_t);
	*x = (uint64_t)v;
	return x;
}

/* Builds the pointer to each PTX parameter's value. */
static int
fill_params(Arena *a, const RtKernelMeta *k, const ptrt_arg *args,
	    LaunchPlan *p, RtStatus *st)
{
	for (size_t i = 0; i < k->nparams; i++) {
		const RtParam *q = &k->params[i];
		const ptrt_arg *arg = q->arg >= 0 ? &args[q->arg] : NULL;
		switch (q->kind) {
		case RP_TENSOR:
			p->params[i] = arena_dup(a, &arg->tensor.ptr, 8);
			break;
		case RP_SCALAR:
			p->params[i] = arena_dup(a, &arg->scalar, 8);
			break;
		case RP_TENSORMAP:
			memcpy(&p->maps[i], arg->tensormap, sizeof(CUtensorMap));
			p->params[i] = &p->maps[i];
			break;
		case RP_TMA: {
			const RtParam *t = &k->params[q->tma.tensor];
			int rc = tma_compute(&q->tma, q->name, &args[t->arg],
					     &p->tma[i], st);
			if (rc != PT_OK)
				return rc;
			p->params[i] = &p->maps[i]; /* encoded at launch */
			break;
		}
		case RP_DIM:
			p->params[i] = dim_value(a, q, p->vars[q->var],
						 k->vars[q->var], st);
			if (!p->params[i])
				return st->code;
			break;
		}
	}
	return PT_OK;
}

static int
eval_dim(const RtExpr *e, const int64_t *vals, int64_t lo, const char *what,
	 int axis, uint32_t *out, RtStatus *st)
{
	int64_t v;
	if (!meta_eval(e, vals, &v, st))
		return st->code;
	if (v >= lo && v <= UINT32_MAX) {
		*out = (uint32_t)v;
		return PT_OK;
	}
	/* the name is formatted only here: profiles of the launch path
	 * showed its snprintf as the largest cost */
	char name[40];
	if (axis >= 0)
		snprintf(name, sizeof(name), "%s.%c", what, "xyz"[axis]);
	else
		snprintf(name, sizeof(name), "%s", what);
	return rt_fail(st, PT_E_RT_LAUNCH_DIMS,
		       "%s is %lld, outside [%lld, 2^32)", name, (long long)v,
		       (long long)lo);
}

static int
eval_launch(const RtKernelMeta *k, LaunchPlan *p, RtStatus *st)
{
	int rc;
	for (int i = 0; i < 3; i++) {
		if ((rc = eval_dim(k->grid[i], p->vars, 1, "grid", i,
				   &p->grid[i], st)) != PT_OK ||
		    (rc = eval_dim(k->block[i], p->vars, 1, "block", i,
				   &p->block[i], st)) != PT_OK ||
		    (rc = eval_dim(k->cluster[i], p->vars, 1, "cluster", i,
				   &p->cluster[i], st)) != PT_OK)
			return rc;
		if (p->grid[i] % p->cluster[i] != 0)
			return rt_fail(st, PT_E_RT_LAUNCH_DIMS,
				       "grid.%c = %u is not a multiple of "
				       "cluster.%c = %u",
				       "xyz"[i], p->grid[i], "xyz"[i],
				       p->cluster[i]);
	}
	return eval_dim(k->smem, p->vars, 0, "dynamic shared memory", -1,
			&p->smem, st);
}

int
launch_plan(Arena *a, const RtKernelMeta *k, const ptrt_arg *args,
	    size_t nargs, LaunchPlan *p, RtStatus *st)
{
	memset(p, 0, sizeof(*p));
	if (nargs != k->nargs || (nargs && !args))
		return rt_fail(st, PT_E_RT_ARG_COUNT,
			       "kernel \"%s\" takes %zu arguments, got %zu",
			       k->name, k->nargs, nargs);
	size_t nv = k->nvars ? k->nvars : 1;
	Binder b = {k, NEWN(a, int64_t, nv), NEWN(a, int, nv),
		    NEWN(a, int, nv), st};
	for (size_t v = 0; v < k->nvars; v++)
		b.from_arg[v] = -1;
	for (size_t i = 0; i < k->nparams; i++) {
		const RtParam *q = &k->params[i];
		int rc = q->arg >= 0 ? check_arg(&b, q, &args[q->arg]) : PT_OK;
		if (rc != PT_OK)
			return rc;
	}
	for (size_t v = 0; v < k->nvars && k->multiple_of; v++)
		if (b.from_arg[v] >= 0 && b.vals[v] % k->multiple_of[v] != 0)
			return rt_fail(st, PT_E_RT_ASSUME,
				       "symbolic size \"%s\" is %lld (argument %d "
				       "dim %d), but the kernel was compiled "
				       "assuming it is a multiple of %lld (its "
				       "row addresses are aligned only then)",
				       k->vars[v], (long long)b.vals[v],
				       b.from_arg[v] + 1, b.from_dim[v],
				       (long long)k->multiple_of[v]);
	p->vars = b.vals;
	size_t np = k->nparams ? k->nparams : 1;
	p->params = NEWN(a, void *, np);
	p->tma = NEWN(a, TmaEncode, np);
	/* arena blocks are 16-byte aligned; maps need 64 */
	char *raw = arena_alloc(a, np * sizeof(CUtensorMap) + 64);
	p->maps = (CUtensorMap *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
	int rc = fill_params(a, k, args, p, st);
	return rc != PT_OK ? rc : eval_launch(k, p, st);
}
