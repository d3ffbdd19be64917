/*
 * rt.h - internals of libptxtile_rt: the few CUDA driver types it declares
 * itself, the driver entry point table (cuda_syms.def), the status record,
 * the parsed kernel metadata, tensor map parameters and the launch plan.
 * One section per .c file.
 *
 * The driver table is plain data, so unit tests fill it with fakes
 * (rt_open_driver) and check what the runtime would hand the driver.
 */
#ifndef PT_RT_H
#define PT_RT_H

#include "base/base.h"
#include "ptxtile_rt.h"

/* ---- CUDA driver types (ABI-compatible declarations) ---- */

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

typedef struct CUtensorMap {
	_Alignas(64) uint64_t opaque[16];
} CUtensorMap;

/* CUlaunchAttribute: id, padding to 8, a 64-byte value union. */
typedef struct CUlaunchAttribute {
	int id;
	char pad[4];
	union {
		char bytes[64];
		uint64_t align8;
		struct {
			unsigned x, y, z;
		} cluster_dim;
	} value;
} CUlaunchAttribute;

typedef struct CUlaunchConfig {
	unsigned grid_x, grid_y, grid_z;
	unsigned block_x, block_y, block_z;
	unsigned shared_mem_bytes;
	CUstream stream;
	CUlaunchAttribute *attrs;
	unsigned num_attrs;
} CUlaunchConfig;

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_NO_DEVICE = 100,
	CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
	CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
	CU_JIT_ERROR_LOG_BUFFER = 5,
	CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
	CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1,
	CU_EVENT_DEFAULT = 0,
};

/* The static dynamic shared memory limit; more needs the opt-in attribute. */
#define RT_SMEM_DEFAULT_LIMIT (48 * 1024)

/* ---- driver.c: the entry point table ---- */

typedef struct CuDriver {
#define CU_FN(field, name, ver, params) CUresult(*field) params;
#include "rt/cuda_syms.def"
#undef CU_FN
} CuDriver;

/* Index of each entry point, for naming the failing call. */
typedef enum CuSym {
#define CU_FN(field, name, ver, params) CUSYM_##field,
#include "rt/cuda_syms.def"
#undef CU_FN
	CUSYM_COUNT
} CuSym;

typedef CUresult (*CuGetProcV2)(const char *sym, void **pfn, int version,
				uint64_t flags, int *status);
typedef CUresult (*CuGetProcV1)(const char *sym, void **pfn, int version,
				uint64_t flags);

/* "cuMemAlloc" for CUSYM_mem_alloc. */
const char *cuda_sym_name(CuSym s);
/* The ABI version requested for s. */
int cuda_sym_version(CuSym s);

/* ---- rt.c: status, context ---- */

typedef struct RtStatus {
	int code;            /* PT_OK or PT_E_RT_* */
	const char *call;    /* failing driver call, or NULL */
	CUresult cu;         /* its result */
	char cu_name[64];    /* cuGetErrorName of cu */
	char msg[4096];      /* the whole message */
	char jit_log[16384]; /* JIT error log of the last PTX load */
} RtStatus;

/* Records a failure and returns code. */
int rt_fail(RtStatus *st, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

typedef struct RtMeta RtMeta;
typedef struct RtKernelMeta RtKernelMeta;

/* An allocation range whose pointers a launch may take (peer.c). */
typedef struct PtrRange {
	uint64_t start, size;
} PtrRange;

#define RT_PTR_CACHE 32

struct ptrt_ctx {
	pt_allocator alloc;
	void *dl;          /* dlopen handle; NULL with an injected driver */
	CuDriver drv;
	CUdevice dev;
	int ordinal;       /* of dev, as pointer attributes number devices */
	CUcontext cuctx;   /* retained primary context, or NULL */
	int driver_version;
	int sm;            /* 90 for compute capability 9.0 */
	char dev_name[128];
	int max_threads;   /* per block */
	int max_block[3];
	int max_grid[3];
	int max_smem;      /* opt-in dynamic shared memory per block */
	RtStatus st;
	Arena launch_arena;   /* per-launch scratch, emptied after each */
	ptrt_module *modules; /* loaded modules, freed by ptrt_close */
	PtrRange ptr_ok[RT_PTR_CACHE]; /* ranges peer.c accepted */
	unsigned nptr_ok, ptr_next;    /* entries used; next to replace */
};

/* The last argument signature a kernel's full check accepted and the
 * launch it gave (launch_cache.c).  A launch whose arguments differ from
 * it only in data pointers and in scalars that no size depends on has
 * the same plan, so it skips the checks and the plan. */
typedef struct LaunchCache {
	bool usable;      /* no tensor map params (their maps are per launch) */
	bool valid;       /* sig and the plan below are from a full check */
	ptrt_arg *sig;    /* nargs: the accepted arguments */
	uint64_t *values; /* nparams: each PTX parameter's value */
	void **params;    /* nparams: &values[i], for the driver */
	uint32_t grid[3], block[3], cluster[3], smem;
} LaunchCache;

struct ptrt_kernel {
	ptrt_module *m;
	const RtKernelMeta *meta;
	CUfunction fn;
	int smem_attr; /* dynamic smem limit already set on fn */
	LaunchCache cache;
};

struct ptrt_module {
	ptrt_ctx *rt;
	Arena arena; /* metadata and kernels */
	CUmodule mod;
	RtMeta *meta;
	ptrt_kernel *kernels;
	size_t nkernels;
	ptrt_module *next, *prev;
};

/* Opens a context over an already resolved driver table (tests pass
 * fakes); the same contract as ptrt_open. */
int rt_open_driver(const CuDriver *drv, void *dl, ptrt_ctx **out);
/* The same on device `ordinal` (ptrt_open_device). */
int rt_open_driver_device(const CuDriver *drv, void *dl, int ordinal,
			  ptrt_ctx **out);

/* Checks a driver result: on failure records "<call> failed: NAME (n):
 * description" prefixed by what (may be NULL) and returns PT_E_RT_DRIVER
 * (or code when non-zero). */
int rt_cu_check(ptrt_ctx *rt, CUresult r, CuSym call, int code,
		const char *what);

/* Makes rt's context current on this thread unless it already is. */
int rt_make_current(ptrt_ctx *rt);

#define CU(rt, what, f, ...)                                               \
	rt_cu_check((rt), (rt)->drv.f(__VA_ARGS__), CUSYM_##f, 0, (what))

/* Resolves every entry point of cuda_syms.def through v2 (or v1 when v2
 * is NULL) at its ABI version; PT_E_RT_NO_SYMBOL names a missing one. */
int cuda_resolve(CuDriver *d, CuGetProcV2 v2, CuGetProcV1 v1, RtStatus *st);
/* dlopen("libcuda.so.1") and cuda_resolve; *dl gets the handle. */
int cuda_load(CuDriver *d, void **dl, RtStatus *st);
/* dlclose of cuda_load's handle. */
void cuda_unload(void *dl);

/* ---- meta.c: kernel metadata (docs/metadata.md) ---- */

typedef enum RtExprOp {
	RX_CONST,
	RX_VAR,
	RX_ADD,
	RX_SUB,
	RX_MUL,
	RX_FLOORDIV,
	RX_CEILDIV,
	RX_MOD,
	RX_MIN,
	RX_MAX,
} RtExprOp;

typedef struct RtExpr {
	RtExprOp op;
	int64_t value;  /* RX_CONST */
	int var;        /* RX_VAR: index into RtKernelMeta.vars */
	struct RtExpr **args;
	size_t nargs;
} RtExpr;

/* One tensor dimension: a fixed size, or a symbolic size (var >= 0). */
typedef struct RtDim {
	int64_t value;
	int var;
} RtDim;

#define TMA_MAX_RANK 5

/* CUtensorMapDataType values (ptx_facts.md §4.2). */
typedef enum TmaFormat {
	TMA_UINT8 = 0,
	TMA_UINT16 = 1,
	TMA_UINT32 = 2,
	TMA_INT32 = 3,
	TMA_UINT64 = 4,
	TMA_INT64 = 5,
	TMA_FLOAT16 = 6,
	TMA_FLOAT32 = 7,
	TMA_FLOAT64 = 8,
	TMA_BFLOAT16 = 9,
	TMA_FLOAT32_FTZ = 10,
	TMA_TFLOAT32 = 11,
	TMA_TFLOAT32_FTZ = 12,
	TMA_16U4_ALIGN8B = 13,
	TMA_16U4_ALIGN16B = 14,
	TMA_16U6_ALIGN16B = 15,
} TmaFormat;

/* A compiler-recorded tensor map, built at launch from a tensor argument.
 * All arrays are innermost first, as the driver takes them. */
typedef struct TmaSlot {
	int tensor;                        /* index of the tensor param */
	int rank;
	uint32_t box[TMA_MAX_RANK];
	uint32_t elem_strides[TMA_MAX_RANK];
	TmaFormat format;
	int interleave;                    /* 0 none, 1 16B, 2 32B */
	int swizzle;                       /* CUtensorMapSwizzle 0..6 */
	int l2_promotion;                  /* 0 none, 1 64B, 2 128B, 3 256B */
	int oob_fill;                      /* 0 zeros, 1 NaN */
	/* a rectangular region (innermost first): the map starts at origin
	 * and spans extent elements per dim (0: to the end of the dim) */
	bool region;
	uint32_t region_origin[TMA_MAX_RANK];
	uint32_t region_extent[TMA_MAX_RANK];
} TmaSlot;

typedef enum RtParamKind {
	RP_TENSOR,    /* user tensor: .u64 device pointer */
	RP_SCALAR,    /* user scalar */
	RP_TENSORMAP, /* user-encoded 128-byte map */
	RP_TMA,       /* runtime-encoded map from a tensor argument */
	RP_DIM,       /* hidden scalar carrying a symbolic size */
} RtParamKind;

typedef struct RtParam {
	RtParamKind kind;
	const char *name;
	ptrt_dtype dtype;   /* tensor element, scalar or dim type */
	int ndim;           /* RP_TENSOR */
	RtDim shape[PTRT_MAX_DIMS];
	int64_t align;      /* RP_TENSOR: address alignment in bytes */
	bool contiguous;    /* RP_TENSOR: dense row-major strides required */
	int arg;            /* user argument index, -1 for hidden params */
	TmaSlot tma;        /* RP_TMA */
	int var;            /* RP_DIM */
} RtParam;

struct RtKernelMeta {
	const char *name;   /* PTX .entry name */
	RtParam *params;    /* PTX parameter order */
	size_t nparams;
	size_t nargs;       /* user arguments */
	const char **vars;  /* symbolic size names */
	size_t nvars;
	RtExpr *grid[3], *block[3], *cluster[3];
	RtExpr *smem;       /* dynamic shared memory bytes */
	int64_t *multiple_of; /* per var: the compiler assumed var % this
			       * == 0 (metadata "assume"; 1 = nothing) */
};

struct RtMeta {
	RtKernelMeta *kernels;
	size_t nkernels;
};

/* The longest metadata text meta_parse reads (PT_E_RT_META_BUDGET past
 * it); readers of a metadata file stop there too. */
#define RT_META_MAX_BYTES ((size_t)16 << 20)

/* Parses and validates metadata JSON into a; PT_E_RT_META on error. */
/* signature.c: every kernel's metadata parameters against its PTX
 * .entry parameter list (count, names, sizes), or a cubin's
 * .nv.info.<kernel> parameter records (count, sizes); PT_E_RT_SIGNATURE. */
int rt_check_signatures(const RtMeta *meta, const char *ptx, size_t len,
			RtStatus *st);
int meta_parse(Arena *a, const char *json, size_t len, RtMeta *out,
	       RtStatus *st);
/* Evaluates e with var values vals; false (status set) on overflow or
 * division by zero. */
bool meta_eval(const RtExpr *e, const int64_t *vals, int64_t *out,
	       RtStatus *st);
/* Bytes per element, 0 for sub-byte types. */
int dtype_size(ptrt_dtype t);
int dtype_bits_rt(ptrt_dtype t);
bool dtype_from_name(const char *s, ptrt_dtype *out);

/* ---- tma.c: cuTensorMapEncodeTiled arguments ---- */

typedef struct TmaEncode {
	TmaFormat format;
	uint32_t rank;
	uint64_t addr;
	uint64_t dims[TMA_MAX_RANK];        /* elements, innermost first */
	uint64_t strides[TMA_MAX_RANK - 1]; /* bytes, dims 1..rank-1 */
	uint32_t box[TMA_MAX_RANK];
	uint32_t elem_strides[TMA_MAX_RANK];
	int interleave, swizzle, l2_promotion, oob_fill;
	uint64_t max_byte_index; /* last byte the map can address */
} TmaEncode;

/* Computes and validates the driver arguments for slot over tensor
 * argument t; PT_E_RT_TMA_LIMIT (or _ARG_ALIGN / _ARG_STRIDE) on error. */
int tma_compute(const TmaSlot *slot, const char *pname, const ptrt_arg *t,
		TmaEncode *out, RtStatus *st);
/* The driver workaround of ptx_facts.md §8: drivers up to 13.1 (or of
 * unknown version, <= 0) need bit 85 cleared for maps of tensors under
 * 128 KiB.  True when it applies. */
bool tma_needs_bit85_fix(int driver_version, const TmaEncode *e);
void tma_clear_bit85(CUtensorMap *map);
/* Encodes e through the driver (and applies the workaround). */
int tma_encode(ptrt_ctx *rt, const TmaEncode *e, CUtensorMap *map,
	       const char *pname);

/* ---- launch.c: argument checks and the launch plan ---- */

typedef struct LaunchPlan {
	int64_t *vars;            /* bound symbolic sizes */
	uint32_t grid[3], block[3], cluster[3];
	uint32_t smem;
	void **params;            /* one pointer per PTX parameter */
	TmaEncode *tma;           /* per param, for RP_TMA params */
	CUtensorMap *maps;        /* per param, storage for RP_TMA maps */
} LaunchPlan;

/* Validates args against k (count, kinds, dtypes, null pointers, shapes,
 * alignment, strides, symbolic bindings), evaluates the launch dims and
 * computes tensor map arguments, all without the driver. */
int launch_plan(Arena *a, const RtKernelMeta *k, const ptrt_arg *args,
		size_t nargs, LaunchPlan *p, RtStatus *st);

/* ---- peer.c: where pointer arguments live ---- */

typedef enum PtrClass {
	PTR_UNKNOWN,    /* the driver does not know it: launched as given */
	PTR_HOST,       /* host, unified or managed memory */
	PTR_LOCAL,      /* the launch device's own allocation */
	PTR_ASK_ACCESS, /* device memory elsewhere: read the access flags */
	PTR_GRANTED,    /* access flags grant the launch device access */
	PTR_PEER,       /* another device's allocation: needs peer access */
	PTR_NO_ACCESS,  /* mapped/pool memory without access: refused */
} PtrClass;

/* What cuPointerGetAttributes says of a pointer. */
typedef struct PtrAttrs {
	unsigned memtype;    /* CUmemorytype, 0 when unknown to the driver */
	int ordinal;         /* device of the memory */
	bool managed;
	CUcontext ctx;       /* of the allocation; NULL for cuMemMap memory */
	uint64_t start, size; /* its address range */
	unsigned access;     /* access flags of the current device */
	uint64_t pool;       /* memory pool handle, 0 when none */
} PtrAttrs;

/* From the first query (memtype, ordinal, managed, ctx). */
PtrClass ptr_class_basic(const PtrAttrs *a, int launch_ordinal);
/* For PTR_ASK_ACCESS, from the access flags and the pool handle. */
PtrClass ptr_class_access(const PtrAttrs *a, int launch_ordinal);
/* Classifies every tensor pointer of args not already accepted, enables
 * peer access where needed, refuses what the launch device cannot reach
 * (the context current). */
int peer_check_args(ptrt_ctx *rt, const RtKernelMeta *k, const ptrt_arg *args);
/* Drops the accepted ranges that hold p (it is being freed). */
void peer_forget(ptrt_ctx *rt, uint64_t p);
/* ---- launch_cache.c: the plan of the last accepted signature ---- */

/* Storage for k's cache in the module arena (longjmps on no memory). */
void launch_cache_init(Arena *a, ptrt_kernel *k);
/* True when args have k's cached signature and their pointers pass the
 * per-pointer checks (null, alignment); the cached parameter values are
 * then rewritten from args.  On false the full check must run (some
 * values may be half rewritten: each true rewrites them all). */
bool launch_cache_match(ptrt_kernel *k, const ptrt_arg *args, size_t nargs);
/* Remembers args and the plan p a full check accepted. */
void launch_cache_fill(ptrt_kernel *k, const ptrt_arg *args,
		       const LaunchPlan *p);

#endif
