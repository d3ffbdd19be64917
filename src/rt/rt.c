/*
 * rt.c - the public runtime API: context, statuses, memory, modules,
 * kernels and launches.
 *
 * Input: calls of include/ptxtile_rt.h.  Output: driver calls through the
 * table of driver.c, each checked; a failure leaves a status on the
 * ptrt_ctx naming the call and the driver's error.  Launch arguments are
 * validated by launch.c before any driver call.  Only this file and
 * driver.c hold driver objects; ptrt_close releases every one of them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

/* ---- statuses ---- */

int
rt_fail(RtStatus *st, int code, const char *fmt, ...)
{
	va_list ap;
	st->code = code;
	st->call = NULL;
	st->cu = 0;
	st->cu_name[0] = 0;
	va_start(ap, fmt);
	vsnprintf(st->msg, sizeof(st->msg), fmt, ap);
	va_end(ap);
	return code;
}

int
rt_cu_check(ptrt_ctx *rt, CUresult r, CuSym call, int code,
	    const char *what)
{
	if (r == CUDA_SUCCESS)
		return PT_OK;
	const char *name = NULL, *text = NULL;
	if (rt->drv.get_error_name)
		rt->drv.get_error_name(r, &name);
	if (rt->drv.get_error_string)
		rt->drv.get_error_string(r, &text);
	RtStatus *st = &rt->st;
	rt_fail(st, code ? code : PT_E_RT_DRIVER, "%s%s%s failed: %s (%d)%s%s",
		what ? what : "", what ? ": " : "", cuda_sym_name(call),
		name ? name : "unknown CUDA error", r, text ? ": " : "",
		text ? text : "");
	st->call = cuda_sym_name(call);
	st->cu = r;
	snprintf(st->cu_name, sizeof(st->cu_name), "%s",
		 name ? name : "unknown CUDA error");
	return st->code;
}

const char *
ptrt_errmsg(const ptrt_ctx *rt)
{
	if (!rt)
		return "out of memory";
	return rt->st.code ? rt->st.msg : "";
}

int
ptrt_status(const ptrt_ctx *rt)
{
	return rt ? rt->st.code : PT_E_NOMEM;
}

const char *
ptrt_error_call(const ptrt_ctx *rt)
{
	return rt && rt->st.code ? rt->st.call : NULL;
}

const char *
ptrt_error_driver(const ptrt_ctx *rt)
{
	return rt && rt->st.code && rt->st.call ? rt->st.cu_name : NULL;
}

int
ptrt_error_driver_code(const ptrt_ctx *rt)
{
	return rt && rt->st.code ? rt->st.cu : 0;
}

const char *
ptrt_jit_log(const ptrt_ctx *rt)
{
	return rt ? rt->st.jit_log : "";
}

/* Clears the status at the start of a call. */
static void
rt_ok(ptrt_ctx *rt)
{
	rt->st.code = PT_OK;
	rt->st.call = NULL;
	rt->st.cu = 0;
	rt->st.msg[0] = 0;
}

/* ---- arguments ---- */

ptrt_arg
ptrt_arg_tensor(ptrt_devptr ptr, ptrt_dtype dtype, int ndim,
		const int64_t *shape, const int64_t *strides_bytes)
{
	ptrt_arg a;
	memset(&a, 0, sizeof(a));
	a.kind = PTRT_ARG_TENSOR;
	a.dtype = dtype;
	a.tensor.ptr = ptr;
	a.tensor.ndim = ndim;
	if (ndim < 0 || ndim > PTRT_MAX_DIMS || (ndim && !shape))
		return a; /* launch reports the rank mismatch */
	int64_t bits = dtype_bits_rt(dtype);
	for (int d = ndim - 1; d >= 0; d--) {
		a.tensor.shape[d] = shape[d];
		a.tensor.strides[d] = strides_bytes ? strides_bytes[d]
						    : bits / 8;
		if (!__builtin_mul_overflow(bits, shape[d] > 0 ? shape[d] : 1,
					    &bits))
			continue;
		bits = 0;
	}
	return a;
}

#define SCALAR_ARG(fn, T, field, dt)                                       \
	ptrt_arg fn(T v)                                                   \
	{                                                                  \
		ptrt_arg a;                                                \
		memset(&a, 0, sizeof(a));                                  \
		a.kind = PTRT_ARG_SCALAR;                                  \
		a.dtype = dt;                                              \
		a.scalar.field = v;                                        \
		return a;                                                  \
	}
SCALAR_ARG(ptrt_arg_i32, int32_t, i32, PTRT_INT32)
SCALAR_ARG(ptrt_arg_u32, uint32_t, u32, PTRT_UINT32)
SCALAR_ARG(ptrt_arg_i64, int64_t, i64, PTRT_INT64)
SCALAR_ARG(ptrt_arg_u64, uint64_t, u64, PTRT_UINT64)
SCALAR_ARG(ptrt_arg_f32, float, f32, PTRT_FLOAT32)
SCALAR_ARG(ptrt_arg_f64, double, f64, PTRT_FLOAT64)
#undef SCALAR_ARG

ptrt_arg
ptrt_arg_tensormap(const void *map128)
{
	ptrt_arg a;
	memset(&a, 0, sizeof(a));
	a.kind = PTRT_ARG_TENSORMAP;
	a.tensormap = map128;
	return a;
}

/* ---- context ---- */

static int
rt_device_attr(ptrt_ctx *rt, int attr, int *out)
{
	return CU(rt, "reading device attributes", device_get_attribute, out,
		  attr, rt->dev);
}

static int
rt_read_limits(ptrt_ctx *rt)
{
	int major = 0, minor = 0, rc;
	if ((rc = rt_device_attr(rt, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
				 &major)) != PT_OK ||
	    (rc = rt_device_attr(rt, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
				 &minor)) != PT_OK ||
	    (rc = rt_device_attr(rt, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
				 &rt->max_threads)) != PT_OK ||
	    (rc = rt_device_attr(
		     rt, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
		     &rt->max_smem)) != PT_OK)
		return rc;
	rt->sm = major * 10 + minor;
	for (int i = 0; i < 3; i++) {
		if ((rc = rt_device_attr(rt,
					 CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + i,
					 &rt->max_block[i])) != PT_OK ||
		    (rc = rt_device_attr(rt,
					 CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + i,
					 &rt->max_grid[i])) != PT_OK)
			return rc;
	}
	return PT_OK;
}

static int
rt_init(ptrt_ctx *rt, int ordinal)
{
	int count = 0, rc;
	CUresult r = rt->drv.init(0);
	if ((rc = rt_cu_check(rt, r, CUSYM_init,
			      r == CUDA_ERROR_NO_DEVICE ? PT_E_RT_NO_DEVICE : 0,
			      "initializing the driver")) != PT_OK ||
	    (rc = CU(rt, NULL, driver_get_version, &rt->driver_version)) !=
		    PT_OK ||
	    (rc = CU(rt, NULL, device_get_count, &count)) != PT_OK)
		return rc;
	if (count < 1)
		return rt_fail(&rt->st, PT_E_RT_NO_DEVICE,
			       "the CUDA driver sees no device");
	if (ordinal < 0 || ordinal >= count)
		return rt_fail(&rt->st, PT_E_RT_NO_DEVICE,
			       "no CUDA device %d: the driver sees %d", ordinal,
			       count);
	rt->ordinal = ordinal;
	if ((rc = CU(rt, NULL, device_get, &rt->dev, ordinal)) != PT_OK ||
	    (rc = CU(rt, NULL, device_get_name, rt->dev_name,
		     (int)sizeof(rt->dev_name) - 1, rt->dev)) != PT_OK ||
	    (rc = rt_read_limits(rt)) != PT_OK ||
	    (rc = CU(rt, NULL, primary_ctx_retain, &rt->cuctx, rt->dev)) !=
		    PT_OK)
		return rc;
	return CU(rt, NULL, ctx_set_current, rt->cuctx);
}

static ptrt_ctx *
rt_new(void)
{
	ptrt_ctx *rt = calloc(1, sizeof(*rt));
	if (rt)
		arena_init(&rt->launch_arena, NULL);
	return rt;
}

int
rt_open_driver_device(const CuDriver *drv, void *dl, int ordinal,
		      ptrt_ctx **out)
{
	ptrt_ctx *rt = *out = rt_new();
	if (!rt)
		return PT_E_NOMEM;
	rt->drv = *drv;
	rt->dl = dl;
	return rt_init(rt, ordinal);
}

int
rt_open_driver(const CuDriver *drv, void *dl, ptrt_ctx **out)
{
	return rt_open_driver_device(drv, dl, 0, out);
}

int
ptrt_open_device(int ordinal, ptrt_ctx **out)
{
	ptrt_ctx *rt = *out = rt_new();
	if (!rt)
		return PT_E_NOMEM;
	int rc = cuda_load(&rt->drv, &rt->dl, &rt->st);
	return rc != PT_OK ? rc : rt_init(rt, ordinal);
}

int
ptrt_open(ptrt_ctx **out)
{
	return ptrt_open_device(0, out);
}

void
ptrt_close(ptrt_ctx *rt)
{
	if (!rt)
		return;
	while (rt->modules)
		ptrt_module_unload(rt->modules);
	if (rt->cuctx)
		rt->drv.primary_ctx_release(rt->dev);
	arena_free(&rt->launch_arena);
	if (rt->dl)
		cuda_unload(rt->dl);
	free(rt);
}

int
ptrt_device_info(ptrt_ctx *rt, int *driver_version, int *sm,
		 const char **name)
{
	if (driver_version)
		*driver_version = rt->driver_version;
	if (sm)
		*sm = rt->sm;
	if (name)
		*name = rt->dev_name;
	return rt->cuctx ? PT_OK : rt->st.code;
}

/* Every driver-touching call makes the context current first: the
 * caller may have moved to another thread or switched contexts.  Asking
 * is one call, as setting is, and in the usual case (torch's primary
 * context already current) nothing more is done. */
int
rt_make_current(ptrt_ctx *rt)
{
	CUcontext cur = NULL;
	int rc = CU(rt, NULL, ctx_get_current, &cur);
	if (rc != PT_OK || cur == rt->cuctx)
		return rc;
	return CU(rt, NULL, ctx_set_current, rt->cuctx);
}

static int
rt_enter(ptrt_ctx *rt)
{
	rt_ok(rt);
	if (!rt->cuctx)
		return rt_fail(&rt->st, PT_E_RT_BAD_CALL,
			       "the runtime context was not opened");
	return rt_make_current(rt);
}

/* ---- memory ---- */

int
ptrt_alloc(ptrt_ctx *rt, size_t bytes, ptrt_devptr *out)
{
	int rc = rt_enter(rt);
	*out = 0;
	if (rc != PT_OK)
		return rc;
	char what[64];
	snprintf(what, sizeof(what), "allocating %zu bytes", bytes);
	return CU(rt, what, mem_alloc, out, bytes);
}

int
ptrt_free(ptrt_ctx *rt, ptrt_devptr p)
{
	int rc = rt_enter(rt);
	if (rc != PT_OK || !p)
		return rc;
	peer_forget(rt, p);
	return CU(rt, NULL, mem_free, p);
}

int
ptrt_copy_htod(ptrt_ctx *rt, ptrt_devptr dst, const void *src, size_t bytes)
{
	int rc = rt_enter(rt);
	return rc != PT_OK ? rc : CU(rt, NULL, memcpy_htod, dst, src, bytes);
}

int
ptrt_copy_dtoh(ptrt_ctx *rt, void *dst, ptrt_devptr src, size_t bytes)
{
	int rc = rt_enter(rt);
	return rc != PT_OK ? rc : CU(rt, NULL, memcpy_dtoh, dst, src, bytes);
}

int
ptrt_memset(ptrt_ctx *rt, ptrt_devptr dst, unsigned char byte, size_t bytes)
{
	int rc = rt_enter(rt);
	return rc != PT_OK ? rc : CU(rt, NULL, memset_d8, dst, byte, bytes);
}

int
ptrt_sync(ptrt_ctx *rt)
{
	int rc = rt_enter(rt);
	return rc != PT_OK ? rc
			   : CU(rt, "waiting for the GPU", ctx_synchronize);
}
