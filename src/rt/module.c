/*
 * module.c - loading PTX or cubin images with their metadata, looking up
 * kernels, and launching them.
 *
 * Input: an image (PTX text or ELF), metadata JSON, launch arguments.
 * Output: driver modules and functions owned by the ptrt_ctx; launches
 * through cuLaunchKernelEx with cluster dimensions and dynamic shared
 * memory.  Metadata and arguments are validated before the driver sees
 * anything; the PTX JIT error log is kept for ptrt_jit_log.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

static bool
is_elf(const void *image, size_t len)
{
	return len >= 4 && memcmp(image, "\x7f" "ELF", 4) == 0;
}

static void
module_free(ptrt_module *m)
{
	arena_free(&m->arena);
	free(m);
}

/* JIT (or plain) load of the image, keeping the JIT error log. */
static int
load_image(ptrt_ctx *rt, ptrt_module *m, const void *image, size_t len)
{
	const void *data = image;
	if (!is_elf(image, len))
		data = arena_strndup(&m->arena, image, len); /* NUL for JIT */
	rt->st.jit_log[0] = 0;
	int opts[] = {CU_JIT_ERROR_LOG_BUFFER,
		      CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *vals[] = {rt->st.jit_log,
			(void *)(uintptr_t)(sizeof(rt->st.jit_log) - 1)};
	CUresult r = rt->drv.module_load_data_ex(&m->mod, data, 2, opts, vals);
	if (r == CUDA_SUCCESS)
		return PT_OK;
	char log[sizeof(rt->st.jit_log)];
	memcpy(log, rt->st.jit_log, sizeof(log));
	log[sizeof(log) - 1] = 0;
	int rc = rt_cu_check(rt, r, CUSYM_module_load_data_ex, PT_E_RT_JIT,
			     is_elf(image, len) ? "loading the cubin"
						: "JIT-compiling the PTX");
	memcpy(rt->st.jit_log, log, sizeof(log));
	/* The message keeps the head of the log; ptrt_jit_log has it all. */
	size_t n = strlen(rt->st.msg), room = sizeof(rt->st.msg) - n;
	if (log[0] && room > 16)
		snprintf(rt->st.msg + n, room, "\nJIT log:\n%.*s",
			 (int)(room - 12), log);
	return rc;
}

static int
bind_kernels(ptrt_ctx *rt, ptrt_module *m)
{
	m->nkernels = m->meta->nkernels;
	m->kernels = NEWN(&m->arena, ptrt_kernel,
			  m->nkernels ? m->nkernels : 1);
	for (size_t i = 0; i < m->nkernels; i++) {
		ptrt_kernel *k = &m->kernels[i];
		k->m = m;
		k->meta = &m->meta->kernels[i];
		char what[200];
		snprintf(what, sizeof(what),
			 "the metadata names kernel \"%.120s\"", k->meta->name);
		CUresult r = rt->drv.module_get_function(&k->fn, m->mod,
							 k->meta->name);
		int rc = rt_cu_check(rt, r, CUSYM_module_get_function,
				     PT_E_RT_NO_KERNEL, what);
		if (rc != PT_OK)
			return rc;
		launch_cache_init(&m->arena, k);
	}
	return PT_OK;
}

static int
module_load_body(ptrt_ctx *rt, ptrt_module *m, const void *image,
		 size_t len, const char *meta_json, size_t meta_len)
{
	m->meta = NEW(&m->arena, RtMeta);
	int rc = meta_parse(&m->arena, meta_json, meta_len, m->meta, &rt->st);
	if (rc != PT_OK)
		return rc;
	if ((rc = rt_check_signatures(m->meta, image, len, &rt->st)) != PT_OK)
		return rc;
	if ((rc = rt_cu_check(rt, rt->drv.ctx_set_current(rt->cuctx),
			      CUSYM_ctx_set_current, 0, NULL)) != PT_OK ||
	    (rc = load_image(rt, m, image, len)) != PT_OK)
		return rc;
	return bind_kernels(rt, m);
}

int
ptrt_module_load(ptrt_ctx *rt, const void *image, size_t len,
		 const char *meta_json, size_t meta_len, ptrt_module **out)
{
	*out = NULL;
	rt->st.code = PT_OK;
	if (!rt->cuctx)
		return rt_fail(&rt->st, PT_E_RT_BAD_CALL,
			       "the runtime context was not opened");
	if (!image || !len || !meta_json)
		return rt_fail(&rt->st, PT_E_RT_BAD_CALL,
			       "ptrt_module_load needs an image and metadata");
	ptrt_module *m = calloc(1, sizeof(*m));
	if (!m)
		return rt_fail(&rt->st, PT_E_NOMEM, "out of memory");
	jmp_buf jb;
	arena_init(&m->arena, NULL);
	m->arena.oom = &jb;
	m->rt = rt;
	int rc;
	if (setjmp(jb))
		rc = rt_fail(&rt->st, PT_E_NOMEM, "out of memory");
	else
		rc = module_load_body(rt, m, image, len, meta_json, meta_len);
	m->arena.oom = NULL;
	if (rc != PT_OK) {
		if (m->mod)
			rt->drv.module_unload(m->mod);
		module_free(m);
		return rc;
	}
	m->next = rt->modules;
	if (rt->modules)
		rt->modules->prev = m;
	rt->modules = m;
	*out = m;
	return PT_OK;
}

void
ptrt_module_unload(ptrt_module *m)
{
	if (!m)
		return;
	ptrt_ctx *rt = m->rt;
	if (m->prev)
		m->prev->next = m->next;
	else
		rt->modules = m->next;
	if (m->next)
		m->next->prev = m->prev;
	if (m->mod) {
		rt->drv.ctx_set_current(rt->cuctx);
		rt->drv.module_unload(m->mod);
	}
	module_free(m);
}

int
ptrt_kernel_get(ptrt_module *m, const char *name, ptrt_kernel **out)
{
	*out = NULL;
	for (size_t i = 0; i < m->nkernels; i++)
		if (strcmp(m->kernels[i].meta->name, name) == 0) {
			*out = &m->kernels[i];
			return PT_OK;
		}
	char list[512] = "";
	for (size_t i = 0; i < m->nkernels; i++) {
		size_t n = strlen(list);
		snprintf(list + n, sizeof(list) - n, "%s\"%s\"", i ? ", " : "",
			 m->kernels[i].meta->name);
	}
	return rt_fail(&m->rt->st, PT_E_RT_NO_KERNEL,
		       "no kernel \"%s\" in the module (it has: %s)", name,
		       m->nkernels ? list : "none");
}

size_t
ptrt_kernel_nargs(const ptrt_kernel *k)
{
	return k->meta->nargs;
}

/* ---- launch ---- */

/* Device limits the metadata cannot know. */
static int
check_device_limits(ptrt_ctx *rt, const LaunchPlan *p)
{
	uint64_t threads = (uint64_t)p->block[0] * p->block[1] * p->block[2];
	uint64_t csize = (uint64_t)p->cluster[0] * p->cluster[1] *
			 p->cluster[2];
	for (int i = 0; i < 3; i++)
		if ((rt->max_grid[i] && p->grid[i] > (uint32_t)rt->max_grid[i]) ||
		    (rt->max_block[i] &&
		     p->block[i] > (uint32_t)rt->max_block[i]))
			return rt_fail(&rt->st, PT_E_RT_LAUNCH_DIMS,
				       "grid.%c = %u or block.%c = %u is over "
				       "the device limit (%d, %d)",
				       "xyz"[i], p->grid[i], "xyz"[i],
				       p->block[i], rt->max_grid[i],
				       rt->max_block[i]);
	if (rt->max_threads && threads > (uint64_t)rt->max_threads)
		return rt_fail(&rt->st, PT_E_RT_LAUNCH_DIMS,
			       "%llu threads per block, the device allows %d",
			       (unsigned long long)threads, rt->max_threads);
	if (csize > 8)
		return rt_fail(&rt->st, PT_E_RT_LAUNCH_DIMS,
			       "cluster of %llu CTAs; the portable limit is 8",
			       (unsigned long long)csize);
	if (rt->max_smem && p->smem > (uint32_t)rt->max_smem)
		return rt_fail(&rt->st, PT_E_RT_LAUNCH_DIMS,
			       "%u bytes of dynamic shared memory, the device "
			       "allows %d per block",
			       p->smem, rt->max_smem);
	return PT_OK;
}

static int
encode_maps(ptrt_ctx *rt, const RtKernelMeta *k, LaunchPlan *p)
{
	for (size_t i = 0; i < k->nparams; i++) {
		if (k->params[i].kind != RP_TMA)
			continue;
		int rc = tma_encode(rt, &p->tma[i], &p->maps[i],
				    k->params[i].name);
		if (rc != PT_OK)
			return rc;
	}
	return PT_OK;
}

static int
raise_smem_limit(ptrt_ctx *rt, ptrt_kernel *k, uint32_t smem)
{
	if (smem <= RT_SMEM_DEFAULT_LIMIT || (int)smem <= k->smem_attr)
		return PT_OK;
	int rc = CU(rt, "raising the dynamic shared memory limit",
		    func_set_attribute, k->fn,
		    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem);
	if (rc == PT_OK)
		k->smem_attr = (int)smem;
	return rc;
}

/* The driver call of a launch whose plan is made and checked. */
static int
launch_driver(ptrt_ctx *rt, ptrt_kernel *k, const uint32_t grid[3],
	      const uint32_t block[3], const uint32_t cluster[3],
	      uint32_t smem, void **params, ptrt_stream *stream)
{
	CUlaunchAttribute attr;
	memset(&attr, 0, sizeof(attr));
	attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
	attr.value.cluster_dim.x = cluster[0];
	attr.value.cluster_dim.y = cluster[1];
	attr.value.cluster_dim.z = cluster[2];
	bool clustered = cluster[0] * cluster[1] * cluster[2] > 1;
	CUlaunchConfig cfg = {
		grid[0], grid[1], grid[2], block[0], block[1], block[2],
		smem, (CUstream)stream, clustered ? &attr : NULL,
		clustered ? 1u : 0u,
	};
	CUresult r = rt->drv.launch_kernel_ex(&cfg, k->fn, params, NULL);
	if (r == CUDA_SUCCESS)
		return PT_OK;
	/* the message is formatted only on failure: this is the hot path
	 * of every launch */
	char what[200];
	snprintf(what, sizeof(what), "launching kernel \"%.120s\"",
		 k->meta->name);
	return rt_cu_check(rt, r, CUSYM_launch_kernel_ex, 0, what);
}

/* The full check and plan; an accepted launch becomes the cache. */
static int
launch_body(ptrt_kernel *k, const ptrt_arg *args, size_t nargs,
	    ptrt_stream *stream)
{
	ptrt_ctx *rt = k->m->rt;
	LaunchPlan p;
	int rc = launch_plan(&rt->launch_arena, k->meta, args, nargs, &p,
			     &rt->st);
	if (rc != PT_OK || (rc = check_device_limits(rt, &p)) != PT_OK ||
	    (rc = rt_make_current(rt)) != PT_OK ||
	    (rc = peer_check_args(rt, k->meta, args)) != PT_OK ||
	    (rc = encode_maps(rt, k->meta, &p)) != PT_OK ||
	    (rc = raise_smem_limit(rt, k, p.smem)) != PT_OK ||
	    (rc = launch_driver(rt, k, p.grid, p.block, p.cluster, p.smem,
				p.params, stream)) != PT_OK)
		return rc;
	launch_cache_fill(k, args, &p);
	return PT_OK;
}

/* The arguments of the last accepted signature again: no plan, no
 * arena; only the per-pointer checks (launch_cache.c), where each pointer
 * lives (peer.c: no driver call for a range it accepted before) and the
 * driver. */
static int
launch_cached(ptrt_kernel *k, const ptrt_arg *args, ptrt_stream *stream)
{
	ptrt_ctx *rt = k->m->rt;
	const LaunchCache *c = &k->cache;
	int rc = rt_make_current(rt);
	if (rc == PT_OK)
		rc = peer_check_args(rt, k->meta, args);
	return rc != PT_OK ? rc
			   : launch_driver(rt, k, c->grid, c->block,
					   c->cluster, c->smem, c->params,
					   stream);
}

int
ptrt_launch(ptrt_kernel *k, const ptrt_arg *args, size_t nargs,
	    ptrt_stream *stream)
{
	ptrt_ctx *rt = k->m->rt;
	rt->st.code = PT_OK;
	if (launch_cache_match(k, args, nargs))
		return launch_cached(k, args, stream);
	jmp_buf jb;
	rt->launch_arena.oom = &jb;
	int rc;
	if (setjmp(jb))
		rc = rt_fail(&rt->st, PT_E_NOMEM, "out of memory");
	else
		rc = launch_body(k, args, nargs, stream);
	rt->launch_arena.oom = NULL;
	arena_free(&rt->launch_arena);
	return rc;
}

static int
unpack_slots(ptrt_packed_launch *p)
{
	if (p->nslots > PTRT_PACKED_SLOTS)
		return rt_fail(&p->kernel->m->rt->st, PT_E_RT_BAD_CALL,
			       "packed launch: %u slots (at most %d)",
			       (unsigned)p->nslots, PTRT_PACKED_SLOTS);
	size_t bytes = (size_t)p->nargs * sizeof(ptrt_arg);
	unsigned char *args = (unsigned char *)p->args;
	for (uint32_t i = 0; i < p->nslots; i++) {
		uint32_t off = p->slot_offset[i], size = p->slot_size[i];
		if ((size != 4 && size != 8) || off > bytes ||
		    bytes - off < size || !args)
			return rt_fail(&p->kernel->m->rt->st, PT_E_RT_BAD_CALL,
				       "packed launch: slot %u (%u bytes at "
				       "%u) outside the %zu-byte arguments",
				       (unsigned)i, (unsigned)size,
				       (unsigned)off, bytes);
		/* memcpy: args may hold the slot at any byte offset */
		memcpy(args + off, &p->slot[i], size);
	}
	return PT_OK;
}

int
ptrt_launch_packed(ptrt_packed_launch *p)
{
	if (!p || !p->kernel)
		return PT_E_RT_BAD_CALL;
	p->kernel->m->rt->st.code = PT_OK;
	int rc = unpack_slots(p);
	if (rc != PT_OK)
		return rc;
	return ptrt_launch(p->kernel, p->args, p->nargs, p->stream);
}

int
ptrt_time_launch(ptrt_kernel *k, const ptrt_arg *args, size_t nargs,
		 int warmup, int iters, float *ms)
{
	ptrt_ctx *rt = k->m->rt;
	CUevent ev[2] = {NULL, NULL};
	int rc = PT_OK;
	*ms = 0;
	for (int i = 0; i < warmup && rc == PT_OK; i++)
		rc = ptrt_launch(k, args, nargs, NULL);
	if (rc == PT_OK)
		rc = CU(rt, "timing", event_create, &ev[0], CU_EVENT_DEFAULT);
	if (rc == PT_OK)
		rc = CU(rt, "timing", event_create, &ev[1], CU_EVENT_DEFAULT);
	if (rc == PT_OK)
		rc = CU(rt, "timing", event_record, ev[0], NULL);
	for (int i = 0; i < iters && rc == PT_OK; i++)
		rc = ptrt_launch(k, args, nargs, NULL);
	if (rc == PT_OK)
		rc = CU(rt, "timing", event_record, ev[1], NULL);
	if (rc == PT_OK)
		rc = CU(rt, "timing", event_synchronize, ev[1]);
	if (rc == PT_OK)
		rc = CU(rt, "timing", event_elapsed_time, ms, ev[0], ev[1]);
	if (rc == PT_OK && iters > 0)
		*ms /= (float)iters;
	for (int i = 0; i < 2; i++)
		if (ev[i])
			rt->drv.event_destroy(ev[i]);
	return rc;
}
