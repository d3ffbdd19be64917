/*
 * launch_cache.c - the launch plan of a kernel's last accepted argument
 * signature, so that a repeated launch costs a comparison instead of the
 * full check and plan of launch.c.
 *
 * Input: the arguments of a launch and, after a full check accepted
 * them, the LaunchPlan it built.  Output: the cached parameter values and
 * launch dimensions, rewritten for new arguments of the same signature.
 *
 * Why this is exact: of everything launch_plan reads, only a tensor's
 * data pointer and a scalar's value may differ between two launches of
 * one signature (same count, kinds, dtypes, ranks, shapes, strides).  A
 * pointer enters the plan as its own parameter value after the null and
 * alignment checks, which are redone here; a scalar that binds a symbolic
 * size is part of the signature (its value must match), any other scalar
 * enters as its own value, unchecked.  Sizes, strides and bound symbols
 * therefore give the same checks, the same hidden size parameters and
 * the same grid, block, cluster and shared memory.  Kernels with tensor
 * map parameters are not cached: their maps are per launch.
 */
#include <string.h>

#include "rt/rt.h"

void
launch_cache_init(Arena *a, ptrt_kernel *k)
{
	const RtKernelMeta *m = k->meta;
	LaunchCache *c = &k->cache;
	memset(c, 0, sizeof(*c));
	c->usable = true;
	for (size_t i = 0; i < m->nparams; i++)
		if (m->params[i].kind == RP_TENSORMAP ||
		    m->params[i].kind == RP_TMA)
			c->usable = false;
	if (!c->usable)
		return;
	c->sig = NEWN(a, ptrt_arg, m->nargs ? m->nargs : 1);
	c->values = NEWN(a, uint64_t, m->nparams ? m->nparams : 1);
	c->params = NEWN(a, void *, m->nparams ? m->nparams : 1);
	for (size_t i = 0; i < m->nparams; i++)
		c->params[i] = &c->values[i];
}

/* Same dtype, rank, shape and strides (only the dims of the rank). */
static bool
same_tensor(const ptrt_arg *a, const ptrt_arg *s)
{
	int n = s->tensor.ndim;
	return a->dtype == s->dtype && a->tensor.ndim == n &&
	       memcmp(a->tensor.shape, s->tensor.shape,
		      (size_t)n * sizeof(int64_t)) == 0 &&
	       memcmp(a->tensor.strides, s->tensor.strides,
		      (size_t)n * sizeof(int64_t)) == 0;
}

/* The value of an integer scalar as bind_scalar reads it. */
static uint64_t
scalar_bits(const ptrt_arg *a)
{
	switch (a->dtype) {
	case PTRT_INT32:
		return (uint64_t)(int64_t)a->scalar.i32;
	case PTRT_UINT32:
		return a->scalar.u32;
	default:
		return a->scalar.u64;
	}
}

static bool
match_param(LaunchCache *c, const RtParam *p, const ptrt_arg *a, size_t i)
{
	const ptrt_arg *s = &c->sig[p->arg];
	if (a->kind != s->kind)
		return false;
	if (p->kind == RP_TENSOR) {
		if (!same_tensor(a, s) || a->tensor.ptr == 0 ||
		    a->tensor.ptr % (uint64_t)p->align != 0)
			return false;
		c->values[i] = a->tensor.ptr;
		return true;
	}
	if (a->dtype != s->dtype ||
	    (p->var >= 0 && scalar_bits(a) != scalar_bits(s)))
		return false;
	memcpy(&c->values[i], &a->scalar, sizeof(uint64_t));
	return true;
}

bool
launch_cache_match(ptrt_kernel *k, const ptrt_arg *args, size_t nargs)
{
	LaunchCache *c = &k->cache;
	const RtKernelMeta *m = k->meta;
	if (!c->valid || nargs != m->nargs || (nargs && !args))
		return false;
	for (size_t i = 0; i < m->nparams; i++) {
		const RtParam *p = &m->params[i];
		if (p->arg >= 0 && !match_param(c, p, &args[p->arg], i))
			return false;
	}
	return true;
}

/* Bytes of a parameter's value: hidden 32-bit sizes are stored in 4. */
static size_t
param_bytes(const RtParam *p)
{
	return p->kind == RP_DIM && (p->dtype == PTRT_INT32 ||
				     p->dtype == PTRT_UINT32)
		       ? 4
		       : 8;
}

void
launch_cache_fill(ptrt_kernel *k, const ptrt_arg *args, const LaunchPlan *p)
{
	LaunchCache *c = &k->cache;
	const RtKernelMeta *m = k->meta;
	if (!c->usable)
		return;
	memcpy(c->sig, args, m->nargs * sizeof(ptrt_arg));
	for (size_t i = 0; i < m->nparams; i++) {
		c->values[i] = 0;
		memcpy(&c->values[i], p->params[i], param_bytes(&m->params[i]));
	}
	memcpy(c->grid, p->grid, sizeof(c->grid));
	memcpy(c->block, p->block, sizeof(c->block));
	memcpy(c->cluster, p->cluster, sizeof(c->cluster));
	c->smem = p->smem;
	c->valid = true;
}
