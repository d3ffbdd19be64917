/*
 * ptxtile_rt.h - the runtime: load compiled kernels and launch them on a GPU
 * through the CUDA driver, which is opened at run time (no CUDA headers or
 * link-time dependency).  Written in src/rt/.
 *
 *     ptrt_ctx *rt;
 *     if (ptrt_open(&rt) != PT_OK) { puts(ptrt_errmsg(rt)); ... }
 *     ptrt_module *m;
 *     ptrt_module_load(rt, ptx, ptx_len, meta_json, meta_len, &m);
 *     ptrt_kernel *k;
 *     ptrt_kernel_get(m, "vscale", &k);
 *     ptrt_arg args[] = {ptrt_arg_tensor(x, PTRT_FLOAT32, 1, &n, NULL),
 *                        ptrt_arg_f32(2.0f)};
 *     ptrt_launch(k, args, 2, NULL);
 *     ptrt_sync(rt);
 *     ptrt_close(rt);
 *
 * Every fallible call returns PT_OK or a status PT_E_RT_* (numbers in
 * ptxtile/codes/runtime.def); the message, the failing driver call and the
 * driver's error name stay on the ptrt_ctx until its next failing call.
 * Arguments are checked against the kernel metadata (docs/metadata.md)
 * before anything reaches the driver.  The runtime never exits the process.
 * A ptrt_ctx and what it owns are used by one thread at a time.
 */
#ifndef PTXTILE_RT_H
#define PTXTILE_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptxtile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ptrt_ctx ptrt_ctx;       /* driver, device 0, context */
typedef struct ptrt_module ptrt_module; /* a loaded PTX/cubin + metadata */
typedef struct ptrt_kernel ptrt_kernel; /* one entry of a module */
typedef uint64_t ptrt_devptr;           /* a device address */
typedef struct ptrt_stream ptrt_stream; /* a CUstream; NULL = default */

/* Element types; names as in the script language ("float32"). */
typedef enum ptrt_dtype {
	PTRT_DTYPE_NONE,
	PTRT_BOOL,
	PTRT_INT8,
	PTRT_INT16,
	PTRT_INT32,
	PTRT_INT64,
	PTRT_UINT8,
	PTRT_UINT16,
	PTRT_UINT32,
	PTRT_UINT64,
	PTRT_FLOAT16,
	PTRT_BFLOAT16,
	PTRT_FLOAT32,
	PTRT_FLOAT64,
	PTRT_TF32,
	PTRT_FLOAT8_E4M3FN,
	PTRT_FLOAT8_E5M2,
	PTRT_FLOAT6_E2M3FN,
	PTRT_FLOAT6_E3M2FN,
	PTRT_FLOAT4_E2M1FN,
	PTRT_DTYPE_COUNT
} ptrt_dtype;

/* "float32" for PTRT_FLOAT32; NULL when out of range. */
PT_API const char *ptrt_dtype_name(ptrt_dtype t);

#define PTRT_MAX_DIMS 8

typedef enum ptrt_arg_kind {
	PTRT_ARG_TENSOR,
	PTRT_ARG_SCALAR,
	PTRT_ARG_TENSORMAP,
} ptrt_arg_kind;

/* One kernel argument, built by the ptrt_arg_* helpers. */
typedef struct ptrt_arg {
	ptrt_arg_kind kind;
	ptrt_dtype dtype;
	union {
		struct {
			ptrt_devptr ptr;
			int ndim;                     /* > PTRT_MAX_DIMS: invalid */
			int64_t shape[PTRT_MAX_DIMS]; /* outermost first */
			int64_t strides[PTRT_MAX_DIMS]; /* bytes, outermost first */
		} tensor;
		union {
			int32_t i32;
			uint32_t u32;
			int64_t i64;
			uint64_t u64;
			float f32;
			double f64;
		} scalar;
		const void *tensormap; /* 128 bytes, 64-byte aligned */
	};
} ptrt_arg;

/* A tensor in device memory: shape outermost first (like numpy);
 * strides_bytes NULL means dense row-major. */
PT_API ptrt_arg ptrt_arg_tensor(ptrt_devptr ptr, ptrt_dtype dtype, int ndim,
				const int64_t *shape,
				const int64_t *strides_bytes);
PT_API ptrt_arg ptrt_arg_i32(int32_t v);
PT_API ptrt_arg ptrt_arg_u32(uint32_t v);
PT_API ptrt_arg ptrt_arg_i64(int64_t v);
PT_API ptrt_arg ptrt_arg_u64(uint64_t v);
PT_API ptrt_arg ptrt_arg_f32(float v);
PT_API ptrt_arg ptrt_arg_f64(double v);
/* A CUtensorMap the caller encoded (128 bytes, 64-byte aligned). */
PT_API ptrt_arg ptrt_arg_tensormap(const void *map128);

/* ---- context ----
 * Opens libcuda.so.1, initializes the driver and makes device 0's primary
 * context current.  *out is set even on failure (NULL only when memory
 * ran out) so that ptrt_errmsg can tell why; close it either way. */
PT_API int ptrt_open(ptrt_ctx **out);
PT_API void ptrt_close(ptrt_ctx *rt);
/* ptrt_open on device `ordinal` (0-based, as cuDeviceGet counts) and its
 * primary context - the one the CUDA runtime (and so torch) uses there. */
PT_API int ptrt_open_device(int ordinal, ptrt_ctx **out);

/* The last failure on rt: a message naming what failed and why. */
PT_API const char *ptrt_errmsg(const ptrt_ctx *rt);
/* Its status code (PT_OK after a success). */
PT_API int ptrt_status(const ptrt_ctx *rt);
/* The driver call that failed ("cuModuleLoadDataEx"), or NULL. */
PT_API const char *ptrt_error_call(const ptrt_ctx *rt);
/* The driver's name for the error ("CUDA_ERROR_INVALID_PTX"), or NULL. */
PT_API const char *ptrt_error_driver(const ptrt_ctx *rt);
/* The driver's CUresult, or 0. */
PT_API int ptrt_error_driver_code(const ptrt_ctx *rt);
/* The JIT error log of the last failed PTX load, or "". */
PT_API const char *ptrt_jit_log(const ptrt_ctx *rt);

/* Driver version (e.g. 12080), device name and compute capability. */
PT_API int ptrt_device_info(ptrt_ctx *rt, int *driver_version, int *sm,
			    const char **name);

/* ---- memory ---- */
PT_API int ptrt_alloc(ptrt_ctx *rt, size_t bytes, ptrt_devptr *out);
PT_API int ptrt_free(ptrt_ctx *rt, ptrt_devptr p);
PT_API int ptrt_copy_htod(ptrt_ctx *rt, ptrt_devptr dst, const void *src,
			  size_t bytes);
PT_API int ptrt_copy_dtoh(ptrt_ctx *rt, void *dst, ptrt_devptr src,
			  size_t bytes);
PT_API int ptrt_memset(ptrt_ctx *rt, ptrt_devptr dst, unsigned char byte,
		       size_t bytes);
/* Waits for all work on the context. */
PT_API int ptrt_sync(ptrt_ctx *rt);

/* ---- modules and kernels ----
 * image is PTX text (JIT-compiled by the driver; its error log lands in
 * ptrt_jit_log) or a cubin/fatbin (ELF).  meta_json describes the kernels
 * (docs/metadata.md).  The module belongs to rt; ptrt_module_unload frees
 * it early. */
PT_API int ptrt_module_load(ptrt_ctx *rt, const void *image, size_t len,
			    const char *meta_json, size_t meta_len,
			    ptrt_module **out);
PT_API void ptrt_module_unload(ptrt_module *m);
PT_API int ptrt_kernel_get(ptrt_module *m, const char *name,
			   ptrt_kernel **out);
/* Number of user arguments the kernel takes. */
PT_API size_t ptrt_kernel_nargs(const ptrt_kernel *k);

/* Checks args against the metadata, binds symbolic sizes, evaluates the
 * launch dimensions, encodes the tensor maps and launches on stream.
 * The kernel keeps the plan of the last arguments it accepted: a launch
 * that differs from them only in data pointers and in scalars no size or
 * launch dimension depends on redoes just the null and alignment checks
 * of the pointers (kernels with tensor map parameters are always planned
 * in full).  The context is made current only when another one is. */
PT_API int ptrt_launch(ptrt_kernel *k, const ptrt_arg *args, size_t nargs,
		       ptrt_stream *stream);
/* A launch in one buffer, for callers that pay per foreign call and per
 * argument (ctypes: one call with one pointer).  The values that change
 * between launches of one argument signature - the stream, data pointers,
 * scalars - sit in one run of 8-byte slots after the fixed fields, so the
 * caller rewrites them all with one store; ptrt_launch_packed copies slot
 * i (its first slot_size[i] bytes, 4 or 8) to byte slot_offset[i] of the
 * args array, then does ptrt_launch(kernel, args, nargs, stream), which
 * checks every launch as usual.  PT_E_RT_BAD_CALL for a slot outside the
 * args array (or no kernel: then nothing is reported on a context). */
#define PTRT_PACKED_SLOTS 32
typedef struct ptrt_packed_launch {
	ptrt_kernel *kernel;
	ptrt_arg *args;
	uint32_t nargs, nslots;
	uint32_t slot_offset[PTRT_PACKED_SLOTS];
	uint32_t slot_size[PTRT_PACKED_SLOTS];
	ptrt_stream *stream; /* rewritten per launch, then slot[] */
	uint64_t slot[PTRT_PACKED_SLOTS];
} ptrt_packed_launch;
PT_API int ptrt_launch_packed(ptrt_packed_launch *p);
/* Checks args against kernel `name` of meta_json exactly as ptrt_launch
 * does (count, kinds, dtypes, null pointers, shapes, symbolic sizes,
 * alignment, strides, tensor map limits, launch expressions), without a
 * driver or device; the device limits are not known here.  Returns PT_OK
 * or the status ptrt_launch would return, with its message written to
 * msg (msg_size bytes, always NUL-terminated when msg_size > 0). */
PT_API int ptrt_check_launch(const char *meta_json, size_t meta_len,
			     const char *name, const ptrt_arg *args,
			     size_t nargs, char *msg, size_t msg_size);
/* A launch as ptrt_check_launch plans it, for running it elsewhere (the
 * PTX emulator: the Python package's device="emulator"): the dimensions,
 * the dynamic shared memory and, per PTX parameter, its bytes - tensor
 * pointers as the args give them - or, for a tensor map the runtime
 * encodes from a tensor argument, cuTensorMapEncodeTiled's arguments
 * (is_tma, tma; bytes then zero). */
typedef struct ptrt_plan_tma {
	int format, rank;   /* CUtensorMapDataType, 1..5 */
	uint64_t addr;
	uint64_t dims[5];   /* elements, innermost first */
	uint64_t strides[4]; /* bytes, dims 1..rank-1 */
	uint32_t box[5], elem_strides[5];
	int interleave, swizzle, oob_fill;
} ptrt_plan_tma;
typedef struct ptrt_plan_param {
	uint32_t size;      /* bytes of the PTX parameter */
	int is_tma;
	uint8_t bytes[128];
	ptrt_plan_tma tma;
} ptrt_plan_param;
typedef struct ptrt_plan {
	uint32_t grid[3], block[3], cluster[3], smem;
	uint32_t nparams;   /* in: capacity of params; out: count */
	ptrt_plan_param *params;
} ptrt_plan;
/* ptrt_check_launch, then the plan into *out; PT_E_RT_BAD_CALL when
 * out->params holds fewer than the kernel's PTX parameters. */
PT_API int ptrt_plan_launch(const char *meta_json, size_t meta_len,
			    const char *name, const ptrt_arg *args,
			    size_t nargs, ptrt_plan *out, char *msg,
			    size_t msg_size);
/* Pointer arguments on other devices (docs/multigpu.md): before a launch
 * each tensor pointer is classified once per allocation range (the
 * range is remembered).  The launch device's own memory, host and
 * managed memory launch as given; another device's allocation gets peer
 * access enabled (cuCtxEnablePeerAccess) when cuDeviceCanAccessPeer
 * allows it, else PT_E_RT_PEER_UNREACHABLE; memory mapped with cuMemMap
 * (torch symmetric memory) or from a memory pool needs access flags for
 * the launch device, else PT_E_RT_PEER_NO_ACCESS.  ptrt_free forgets the
 * range it frees; ptrt_forget_pointers forgets all (after remapping
 * memory behind the runtime's back). */
PT_API void ptrt_forget_pointers(ptrt_ctx *rt);
/* The same check for a pointer a kernel reads from memory (a table of
 * peer addresses) rather than takes as an argument: PT_OK when rt's
 * device reaches p (peer access enabled if needed), else the status a
 * launch would give, the message calling it "name". */
PT_API int ptrt_reach_pointer(ptrt_ctx *rt, ptrt_devptr p, const char *name);
/* Encodes a tiled CUtensorMap (128 bytes at map128, 64-byte aligned) of
 * tensor (a ptrt_arg_tensor: dims and byte strides outermost first, any
 * device's address) with box (outermost first), element strides 1, no
 * interleave, swizzle (0 none, 1 32B, 2 64B, 3 128B), 128-byte L2
 * promotion and zero fill, after the TMA limit checks of a launch; for
 * maps a kernel reads from memory (a table of peer shards). */
PT_API int ptrt_tensor_map_encode(ptrt_ctx *rt, const ptrt_arg *tensor,
				  const uint32_t *box, int swizzle,
				  void *map128);
/* Launches warmup + iters times and measures the iters with events:
 * *ms is the mean time of one launch in milliseconds. */
PT_API int ptrt_time_launch(ptrt_kernel *k, const ptrt_arg *args,
			    size_t nargs, int warmup, int iters, float *ms);

#ifdef __cplusplus
}
#endif
#endif
