/*
 * check.c - ptrt_check_launch: the launch argument checks of launch.c on
 * their own, with no driver, device or module; ptrt_plan_launch: the same
 * with the planned launch handed out (for the emulator).
 *
 * Input: metadata JSON, a kernel name and the caller's arguments.
 * Output: PT_OK or the status (and message) ptrt_launch would report for
 * them.  Bindings such as Python's use it to report a bad argument the same
 * way on a machine without a GPU, so the checks have one implementation.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

/* The bytes a PTX parameter of kind q takes. */
static uint32_t
param_bytes(const RtParam *q)
{
	switch (q->kind) {
	case RP_TENSOR: return 8;
	case RP_TMA: case RP_TENSORMAP: return 128;
	default: {
		int s = dtype_size(q->dtype);
		return s > 0 ? (uint32_t)s : 4;
	}
	}
}

static int
plan_out(const RtKernelMeta *k, const LaunchPlan *p, ptrt_plan *out,
	 RtStatus *st)
{
	if (out->nparams < k->nparams || !out->params)
		return rt_fail(st, PT_E_RT_BAD_CALL,
			       "ptrt_plan_launch: room for %u parameters, the "
			       "kernel has %zu", out->nparams, k->nparams);
	for (int d = 0; d < 3; d++) {
		out->grid[d] = p->grid[d];
		out->block[d] = p->block[d];
		out->cluster[d] = p->cluster[d];
	}
	out->smem = p->smem;
	out->nparams = (uint32_t)k->nparams;
	for (size_t i = 0; i < k->nparams; i++) {
		const RtParam *q = &k->params[i];
		ptrt_plan_param *o = &out->params[i];
		memset(o, 0, sizeof(*o));
		o->size = param_bytes(q);
		if (q->kind != RP_TMA) {
			memcpy(o->bytes, p->params[i], o->size);
			continue;
		}
		const TmaEncode *t = &p->tma[i];
		o->is_tma = 1;
		o->tma.format = (int)t->format;
		o->tma.rank = (int)t->rank;
		o->tma.addr = t->addr;
		for (uint32_t d = 0; d < t->rank && d < TMA_MAX_RANK; d++) {
			o->tma.dims[d] = t->dims[d];
			o->tma.box[d] = t->box[d];
			o->tma.elem_strides[d] = t->elem_strides[d];
			if (d + 1 < t->rank)
				o->tma.strides[d] = t->strides[d];
		}
		o->tma.interleave = t->interleave;
		o->tma.swizzle = t->swizzle;
		o->tma.oob_fill = t->oob_fill;
	}
	return PT_OK;
}

static int
check_body(Arena *a, const char *meta_json, size_t meta_len,
	   const char *name, const ptrt_arg *args, size_t nargs,
	   ptrt_plan *out, RtStatus *st)
{
	RtMeta meta;
	int rc = meta_parse(a, meta_json, meta_len, &meta, st);
	if (rc != PT_OK)
		return rc;
	for (size_t i = 0; i < meta.nkernels; i++) {
		if (strcmp(meta.kernels[i].name, name) != 0)
			continue;
		LaunchPlan p;
		rc = launch_plan(a, &meta.kernels[i], args, nargs, &p, st);
		if (rc == PT_OK && out)
			rc = plan_out(&meta.kernels[i], &p, out, st);
		return rc;
	}
	return rt_fail(st, PT_E_RT_NO_KERNEL,
		       "no kernel \"%.200s\" in the metadata", name);
}

/* On the heap: the status is large, and the arena must keep its value
 * across the longjmp of an allocation failure. */
typedef struct CheckScratch {
	RtStatus st;
	Arena a;
	jmp_buf jb;
} CheckScratch;

static int
check_or_plan(const char *meta_json, size_t meta_len, const char *name,
	      const ptrt_arg *args, size_t nargs, ptrt_plan *out, char *msg,
	      size_t msg_size)
{
	CheckScratch *s = calloc(1, sizeof(*s));
	int rc;
	if (!s) {
		rc = PT_E_NOMEM;
	} else if (!meta_json || !name) {
		rc = rt_fail(&s->st, PT_E_RT_BAD_CALL,
			     "ptrt_check_launch/ptrt_plan_launch need "
			     "metadata and a kernel name");
	} else {
		arena_init(&s->a, NULL);
		s->a.oom = &s->jb;
		if (setjmp(s->jb))
			rc = rt_fail(&s->st, PT_E_NOMEM, "out of memory");
		else
			rc = check_body(&s->a, meta_json, meta_len, name, args,
					nargs, out, &s->st);
		s->a.oom = NULL;
		arena_free(&s->a);
	}
	if (msg && msg_size)
		snprintf(msg, msg_size, "%s",
			 !s ? "out of memory" : rc != PT_OK ? s->st.msg : "");
	free(s);
	return rc;
}

int
ptrt_check_launch(const char *meta_json, size_t meta_len, const char *name,
		  const ptrt_arg *args, size_t nargs, char *msg,
		  size_t msg_size)
{
	return check_or_plan(meta_json, meta_len, name, args, nargs, NULL, msg,
			     msg_size);
}

int
ptrt_plan_launch(const char *meta_json, size_t meta_len, const char *name,
		 const ptrt_arg *args, size_t nargs, ptrt_plan *out, char *msg,
		 size_t msg_size)
{
	if (!out) {
		if (msg && msg_size)
			snprintf(msg, msg_size, "ptrt_plan_launch needs a plan");
		return PT_E_RT_BAD_CALL;
	}
	return check_or_plan(meta_json, meta_len, name, args, nargs, out, msg,
			     msg_size);
}
