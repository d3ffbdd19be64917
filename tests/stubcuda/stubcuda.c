/*
 * stubcuda.c - a stand-in libcuda.so.1 for timing and counting the
 * runtime's driver calls on a machine without a GPU (bench, tests only;
 * never installed).  Built as build/stubcuda/libcuda.so.1 and picked by
 * the dynamic loader's own search: LD_LIBRARY_PATH=build/stubcuda.
 *
 * It exports cuGetProcAddress_v2 (all the runtime dlsyms) and hands out
 * entry points that succeed and do nothing the GPU would do: a launch
 * returns at once, memory is host memory (so copies work), a module is a
 * token.  stubcuda_calls(name) reports how often the runtime called an
 * entry point, so a test can say "one driver call per launch".  The
 * counters are this stub's own file-static state: it is a test double,
 * not part of the library.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

typedef int CUresult;
enum { OK = 0, NOT_FOUND = 500 };

/* What the stub exports. */
API CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int version,
				 uint64_t flags, int *status);
API long stubcuda_calls(const char *name);
API void stubcuda_reset(void);
API void stubcuda_param_sizes(const int *sizes, int n);
API uint64_t stubcuda_last_param(int i);
API uint64_t stubcuda_last_launch(int what);

/* One row per entry point the stub serves: its name and counter slot. */
#define STUB_SYMS(X)                                                           \
	X(cuInit)                                                              \
	X(cuDriverGetVersion)                                                  \
	X(cuGetErrorName)                                                      \
	X(cuGetErrorString)                                                    \
	X(cuDeviceGetCount)                                                    \
	X(cuDeviceGet)                                                         \
	X(cuDeviceGetName)                                                     \
	X(cuDeviceGetAttribute)                                                \
	X(cuDevicePrimaryCtxRetain)                                            \
	X(cuDevicePrimaryCtxRelease)                                           \
	X(cuCtxSetCurrent)                                                     \
	X(cuCtxGetCurrent)                                                     \
	X(cuCtxSynchronize)                                                    \
	X(cuModuleLoadDataEx)                                                  \
	X(cuModuleUnload)                                                      \
	X(cuModuleGetFunction)                                                 \
	X(cuFuncSetAttribute)                                                  \
	X(cuFuncGetAttribute)                                                  \
	X(cuLaunchKernelEx)                                                    \
	X(cuLaunchKernel)                                                      \
	X(cuMemAlloc)                                                          \
	X(cuMemFree)                                                           \
	X(cuMemcpyHtoD)                                                        \
	X(cuMemcpyDtoH)                                                        \
	X(cuMemsetD8)                                                          \
	X(cuEventCreate)                                                       \
	X(cuEventRecord)                                                       \
	X(cuEventSynchronize)                                                  \
	X(cuEventElapsedTime)                                                  \
	X(cuEventDestroy)                                                      \
	X(cuTensorMapEncodeTiled)                                              \
	X(cuPointerGetAttributes)                                              \
	X(cuDeviceCanAccessPeer)                                               \
	X(cuCtxEnablePeerAccess)

enum {
#define SLOT(n) S_##n,
	STUB_SYMS(SLOT)
#undef SLOT
		S_COUNT
};

static const char *const names[] = {
#define NAME(n) #n,
	STUB_SYMS(NAME)
#undef NAME
};

static long calls[S_COUNT];
static int ctx_token, module_token, function_token, event_token;
static void *current; /* the context made current; one thread in tests */

#define COUNT(n) (calls[S_##n]++)

static CUresult
s_init(unsigned f)
{
	COUNT(cuInit);
	return OK;
}
static CUresult
s_version(int *v)
{
	COUNT(cuDriverGetVersion);
	*v = 13000;
	return OK;
}
static CUresult
s_error_name(CUresult e, const char **s)
{
	COUNT(cuGetErrorName);
	*s = "CUDA_ERROR_STUB";
	return OK;
}
static CUresult
s_error_string(CUresult e, const char **s)
{
	COUNT(cuGetErrorString);
	*s = "an error of the stub driver";
	return OK;
}
static CUresult
s_count(int *n)
{
	COUNT(cuDeviceGetCount);
	*n = 1;
	return OK;
}
static CUresult
s_get(int *d, int i)
{
	COUNT(cuDeviceGet);
	*d = i;
	return OK;
}
static CUresult
s_name(char *s, int len, int d)
{
	COUNT(cuDeviceGetName);
	snprintf(s, (size_t)len, "stub CUDA device (no GPU)");
	return OK;
}
static CUresult
s_attr(int *v, int attr, int d)
{
	COUNT(cuDeviceGetAttribute);
	switch (attr) {
	case 75:
		*v = 9;
		break; /* compute capability 9.0 */
	case 76:
		*v = 0;
		break;
	case 1:
	case 2:
	case 3:
		*v = 1024;
		break; /* threads, block x, y */
	case 4:
		*v = 64;
		break; /* block z */
	case 5:
		*v = 2147483647;
		break; /* grid x */
	case 97:
		*v = 232448;
		break; /* opt-in shared memory */
	default:
		*v = 65535;
		break;
	}
	return OK;
}
static CUresult
s_retain(void **c, int d)
{
	COUNT(cuDevicePrimaryCtxRetain);
	*c = &ctx_token;
	return OK;
}
static CUresult
s_release(int d)
{
	COUNT(cuDevicePrimaryCtxRelease);
	return OK;
}
static CUresult
s_set(void *c)
{
	COUNT(cuCtxSetCurrent);
	current = c;
	return OK;
}
static CUresult
s_cur(void **c)
{
	COUNT(cuCtxGetCurrent);
	*c = current;
	return OK;
}
static CUresult
s_sync(void)
{
	COUNT(cuCtxSynchronize);
	return OK;
}
static CUresult
s_load(void **m, const void *img, unsigned n, int *o, void **v)
{
	COUNT(cuModuleLoadDataEx);
	*m = &module_token;
	return OK;
}
static CUresult
s_unload(void *m)
{
	COUNT(cuModuleUnload);
	return OK;
}
static CUresult
s_getfn(void **f, void *m, const char *name)
{
	COUNT(cuModuleGetFunction);
	*f = &function_token;
	return OK;
}
static CUresult
s_setattr(void *f, int a, int v)
{
	COUNT(cuFuncSetAttribute);
	return OK;
}
static CUresult
s_getattr(int *v, int a, void *f)
{
	COUNT(cuFuncGetAttribute);
	*v = 0;
	return OK;
}
/* What the last launch handed the driver, for tests: the launch
 * dimensions, the stream and the parameters (sizes set by the test). */
typedef struct StubCfg {
	unsigned grid[3], block[3], smem;
	void *stream;
	void *attrs;
	unsigned nattrs;
} StubCfg;

enum { MAX_PARAMS = 16 };
static StubCfg last_cfg;
static int param_sizes[MAX_PARAMS];
static uint64_t last_params[MAX_PARAMS];

static void
record_params(void **p)
{
	for (int i = 0; i < MAX_PARAMS && param_sizes[i] > 0; i++) {
		last_params[i] = 0;
		memcpy(&last_params[i], p[i], (size_t)param_sizes[i]);
	}
}

static CUresult
s_launch_ex(const void *cfg, void *f, void **p, void **e)
{
	COUNT(cuLaunchKernelEx);
	memcpy(&last_cfg, cfg, sizeof(last_cfg));
	record_params(p);
	return OK;
}
static CUresult
s_launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
	 unsigned by, unsigned bz, unsigned smem, void *stream, void **p,
	 void **e)
{
	COUNT(cuLaunchKernel);
	StubCfg c = {{gx, gy, gz}, {bx, by, bz}, smem, stream, NULL, 0};
	last_cfg = c;
	record_params(p);
	return OK;
}
static CUresult
s_alloc(uint64_t *p, size_t n)
{
	COUNT(cuMemAlloc);
	void *m = aligned_alloc(256, n ? (n + 255) / 256 * 256 : 256);
	*p = (uint64_t)(uintptr_t)m;
	return m ? OK : 2;
}
static CUresult
s_free(uint64_t p)
{
	COUNT(cuMemFree);
	free((void *)(uintptr_t)p);
	return OK;
}
static CUresult
s_htod(uint64_t d, const void *s, size_t n)
{
	COUNT(cuMemcpyHtoD);
	memcpy((void *)(uintptr_t)d, s, n);
	return OK;
}
static CUresult
s_dtoh(void *d, uint64_t s, size_t n)
{
	COUNT(cuMemcpyDtoH);
	memcpy(d, (const void *)(uintptr_t)s, n);
	return OK;
}
static CUresult
s_memset(uint64_t d, unsigned char b, size_t n)
{
	COUNT(cuMemsetD8);
	memset((void *)(uintptr_t)d, b, n);
	return OK;
}
static CUresult
s_ev_create(void **e, unsigned f)
{
	COUNT(cuEventCreate);
	*e = &event_token;
	return OK;
}
static CUresult
s_ev_record(void *e, void *s)
{
	COUNT(cuEventRecord);
	return OK;
}
static CUresult
s_ev_sync(void *e)
{
	COUNT(cuEventSynchronize);
	return OK;
}
static CUresult
s_ev_elapsed(float *ms, void *a, void *b)
{
	COUNT(cuEventElapsedTime);
	*ms = 0;
	return OK;
}
static CUresult
s_ev_destroy(void *e)
{
	COUNT(cuEventDestroy);
	return OK;
}
static CUresult
s_encode(void *map, int dt, uint32_t rank, void *addr, const uint64_t *dims,
	 const uint64_t *strides, const uint32_t *box, const uint32_t *es,
	 int il, int sw, int l2, int oob)
{
	COUNT(cuTensorMapEncodeTiled);
	memset(map, 0, 128);
	return OK;
}

/* Every pointer is device memory of device 0 in the current context,
 * in an aligned 1 MiB range (what torch's allocations look like to the
 * runtime's peer check, which then remembers the range: a launch into
 * it again asks nothing). */
static CUresult
s_ptr_attrs(unsigned n, const int *ids, void **data, uint64_t p)
{
	COUNT(cuPointerGetAttributes);
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = 0;
		size_t size = 4;
		switch (ids[i]) {
		case 1:
			v = (uint64_t)(uintptr_t)current;
			size = 8;
			break;
		case 2:
			v = 2;
			break; /* CU_MEMORYTYPE_DEVICE */
		case 9:
			v = 0;
			break; /* device ordinal */
		case 11:
			v = p & ~(uint64_t)0xfffff;
			size = 8;
			break;
		case 12:
			v = 1u << 20;
			size = 8;
			break;
		default:
			break; /* 0: managed, flags */
		}
		memcpy(data[i], &v, size);
	}
	return OK;
}
static CUresult
s_can_peer(int *can, int d, int peer)
{
	COUNT(cuDeviceCanAccessPeer);
	*can = 0;
	return OK;
}
static CUresult
s_enable_peer(void *c, unsigned f)
{
	COUNT(cuCtxEnablePeerAccess);
	return OK;
}

/* Entry points in the order of STUB_SYMS; void * by object copy. */
static void *
entry(int slot)
{
	void *fns[S_COUNT];
	int i = 0;
#define PUT(f)                                                                 \
	do {                                                                   \
		void (*fp)(void) = (void (*)(void))f;                          \
		memcpy(&fns[i++], &fp, sizeof(fp));                            \
	} while (0)
	PUT(s_init);
	PUT(s_version);
	PUT(s_error_name);
	PUT(s_error_string);
	PUT(s_count);
	PUT(s_get);
	PUT(s_name);
	PUT(s_attr);
	PUT(s_retain);
	PUT(s_release);
	PUT(s_set);
	PUT(s_cur);
	PUT(s_sync);
	PUT(s_load);
	PUT(s_unload);
	PUT(s_getfn);
	PUT(s_setattr);
	PUT(s_getattr);
	PUT(s_launch_ex);
	PUT(s_launch);
	PUT(s_alloc);
	PUT(s_free);
	PUT(s_htod);
	PUT(s_dtoh);
	PUT(s_memset);
	PUT(s_ev_create);
	PUT(s_ev_record);
	PUT(s_ev_sync);
	PUT(s_ev_elapsed);
	PUT(s_ev_destroy);
	PUT(s_encode);
	PUT(s_ptr_attrs);
	PUT(s_can_peer);
	PUT(s_enable_peer);
#undef PUT
	return i == S_COUNT ? fns[slot] : NULL;
}

static int
slot_of(const char *name)
{
	for (int i = 0; i < S_COUNT; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

API CUresult
cuGetProcAddress_v2(const char *sym, void **pfn, int version, uint64_t flags,
		    int *status)
{
	int slot = sym ? slot_of(sym) : -1;
	*pfn = slot >= 0 ? entry(slot) : NULL;
	if (status)
		*status = slot >= 0 ? 0 : 1;
	return slot >= 0 ? OK : NOT_FOUND;
}

/* How often the runtime called entry point `name` (-1: not served). */
API long
stubcuda_calls(const char *name)
{
	int slot = name ? slot_of(name) : -1;
	return slot >= 0 ? calls[slot] : -1;
}

/* Zeroes every counter. */
API void
stubcuda_reset(void)
{
	memset(calls, 0, sizeof(calls));
}

/* The byte size of each parameter the next launches record (a size of
 * 0 ends the list; at most 16). */
API void
stubcuda_param_sizes(const int *sizes, int n)
{
	memset(param_sizes, 0, sizeof(param_sizes));
	for (int i = 0; i < n && i < MAX_PARAMS; i++)
		param_sizes[i] = sizes[i] == 4 || sizes[i] == 8 ? sizes[i] : 0;
}

/* Parameter i of the last launch (as many bytes as its size). */
API uint64_t
stubcuda_last_param(int i)
{
	return i >= 0 && i < MAX_PARAMS ? last_params[i] : 0;
}

/* The last launch's grid (what 0-2), block (3-5), dynamic shared memory
 * (6) or stream handle (7). */
API uint64_t
stubcuda_last_launch(int what)
{
	if (what >= 0 && what < 3)
		return last_cfg.grid[what];
	if (what >= 3 && what < 6)
		return last_cfg.block[what - 3];
	return what == 6   ? last_cfg.smem
	       : what == 7 ? (uint64_t)(uintptr_t)last_cfg.stream
			   : 0;
}
