/*
 * test_rt_driver.c - the runtime against a fake CUDA driver: entry point
 * resolution (names, ABI versions, flags), context setup, error rendering
 * of a failing call, the JIT error log, module and kernel lookup, and a
 * full launch whose tensor map encoding, cluster dimensions, dynamic
 * shared memory attribute and parameter buffer are checked as the driver
 * would receive them.  The fake keeps its record in a file-static struct
 * (tests only; the library has no mutable globals).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxtile.h"
#include "rt/rt.h"
#include "test.h"

/* ---- the fake driver ---- */

static struct Fake {
	int driver_version;
	int device_count;
	CUresult init_result, alloc_result, load_result, getfn_result;
	int nlookups;
	char lookup_name[64][48];
	int lookup_version[64];
	uint64_t lookup_flags[64];
	const char *missing; /* symbol the fake driver lacks */
	int loads, launches, encodes, set_attrs, ctx_sets;
	CUcontext current; /* what cuCtxSetCurrent made current */
	bool not_tk; /* the launched kernel is not "tk": keep no params */
	bool axs;    /* the launched kernel is axs_src's: keep its params */
	uint64_t p_y;
	int32_t p_g;
	unsigned cfg_grid_y;
	int attr_id, attr_value;
	char image[512];
	/* last cuTensorMapEncodeTiled */
	int enc_dtype;
	uint32_t enc_rank;
	uint64_t enc_addr, enc_dims[5], enc_strides[4];
	uint32_t enc_box[5], enc_estr[5];
	int enc_il, enc_sw, enc_l2, enc_oob;
	/* last cuLaunchKernelEx */
	CUlaunchConfig cfg;
	CUlaunchAttribute attr;
	uint64_t p_ptr;
	float p_alpha;
	int32_t p_n;
	uint64_t p_map[16];
	uintptr_t p_map_addr;
	/* pointer attributes: allocations the fake knows (others are the
	 * launch device's unless unknown_ptrs) */
	struct FakeAlloc {
		uint64_t start, size;
		unsigned memtype, access;
		int ordinal, managed;
		CUcontext ctx;
		uint64_t pool;
	} allocs[8];
	int nallocs, unknown_ptrs;
	CUresult attr_result, enable_result;
	int attr_queries, access_queries, peer_queries, enables, can_peer;
	CUdevice peer_from, peer_to;
	CUcontext enabled_ctx;
} fk;

static CUresult
f_init(unsigned flags)
{
	return fk.init_result;
}
static CUresult
f_driver_get_version(int *v)
{
	*v = fk.driver_version;
	return 0;
}
static CUresult
f_get_error_name(CUresult e, const char **name)
{
	switch (e) {
	case 2: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
	case 711: *name = "CUDA_ERROR_TOO_MANY_PEERS"; return 0;
	case 100: *name = "CUDA_ERROR_NO_DEVICE"; return 0;
	case 218: *name = "CUDA_ERROR_INVALID_PTX"; return 0;
	case 500: *name = "CUDA_ERROR_NOT_FOUND"; return 0;
	default: *name = NULL; return 1;
	}
}
static CUresult
f_get_error_string(CUresult e, const char **text)
{
	*text = e == 2 ? "out of memory" : e == 218 ? "a PTX JIT compilation failed"
								 : NULL;
	return *text ? 0 : 1;
}
static CUresult
f_device_get_count(int *n)
{
	*n = fk.device_count;
	return 0;
}
static CUresult
f_device_get(CUdevice *d, int i)
{
	*d = i;
	return 0;
}
static CUresult
f_device_get_name(char *name, int len, CUdevice d)
{
	snprintf(name, (size_t)len, "Fake H200");
	return 0;
}
static CUresult
f_device_get_attribute(int *v, int attr, CUdevice d)
{
	switch (attr) {
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
		*v = 232448; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *v = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + 1: *v = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + 2: *v = 64; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
	default: *v = 65535; break;
	}
	return 0;
}
static int fake_ctx_obj;
static CUresult
f_primary_ctx_retain(CUcontext *c, CUdevice d)
{
	*c = (CUcontext)&fake_ctx_obj;
	return 0;
}
static CUresult
f_primary_ctx_release(CUdevice d)
{
	return 0;
}
static CUresult
f_ctx_set_current(CUcontext c)
{
	fk.ctx_sets++;
	fk.current = c;
	return 0;
}
static CUresult
f_ctx_get_current(CUcontext *c)
{
	*c = fk.current;
	return 0;
}
static CUresult
f_ctx_synchronize(void)
{
	return 0;
}
static int fake_mod_obj, fake_fn_obj;
static CUresult
f_module_load_data_ex(CUmodule *m, const void *image, unsigned n, int *opts,
		      void **vals)
{
	fk.loads++;
	snprintf(fk.image, sizeof(fk.image), "%s", (const char *)image);
	if (fk.load_result) {
		for (unsigned i = 0; i < n; i++)
			if (opts[i] == CU_JIT_ERROR_LOG_BUFFER)
				strcpy(vals[i], "ptxas fatal: line 3: bad");
		return fk.load_result;
	}
	*m = (CUmodule)&fake_mod_obj;
	return 0;
}
static CUresult
f_module_unload(CUmodule m)
{
	return 0;
}
static CUresult
f_module_get_function(CUfunction *fn, CUmodule m, const char *name)
{
	*fn = (CUfunction)&fake_fn_obj;
	return fk.getfn_result;
}
static CUresult
f_func_set_attribute(CUfunction fn, int attr, int value)
{
	fk.set_attrs++;
	fk.attr_id = attr;
	fk.attr_value = value;
	return 0;
}
static CUresult
f_func_get_attribute(int *v, int attr, CUfunction fn)
{
	*v = 0;
	return 0;
}
/* Copies the parameters of the test kernel "tk":
 * (x: tensor ptr, alpha: f32, tmx: map, n: int32). */
static CUresult
f_launch_kernel_ex(const CUlaunchConfig *cfg, CUfunction fn, void **params,
		   void **extra)
{
	fk.launches++;
	fk.cfg = *cfg;
	if (cfg->num_attrs)
		fk.attr = cfg->attrs[0];
	if (fk.axs) { /* (X, Y: ptr, a: f32, g: s32, n$dim: s32) */
		memcpy(&fk.p_ptr, params[0], 8);
		memcpy(&fk.p_y, params[1], 8);
		memcpy(&fk.p_alpha, params[2], 4);
		memcpy(&fk.p_g, params[3], 4);
		memcpy(&fk.p_n, params[4], 4);
		return 0;
	}
	if (fk.not_tk) {
		fk.cfg_grid_y = cfg->grid_y;
		return 0;
	}
	memcpy(&fk.p_ptr, params[0], 8);
	memcpy(&fk.p_alpha, params[1], 4);
	memcpy(fk.p_map, params[2], 128);
	fk.p_map_addr = (uintptr_t)params[2];
	memcpy(&fk.p_n, params[3], 4);
	return 0;
}
static CUresult
f_mem_alloc(CUdeviceptr *p, size_t n)
{
	*p = 0x7f0000000000ull;
	return fk.alloc_result;
}
static CUresult
f_mem_free(CUdeviceptr p)
{
	return 0;
}
static CUresult
f_memcpy_htod(CUdeviceptr d, const void *s, size_t n)
{
	return 0;
}
static CUresult
f_memcpy_dtoh(void *d, CUdeviceptr s, size_t n)
{
	return 0;
}
static CUresult
f_memset_d8(CUdeviceptr d, unsigned char v, size_t n)
{
	return 0;
}
static CUresult
f_event_create(CUevent *e, unsigned flags)
{
	*e = (CUevent)&fake_mod_obj;
	return 0;
}
static CUresult
f_event_record(CUevent e, CUstream s)
{
	return 0;
}
static CUresult
f_event_synchronize(CUevent e)
{
	return 0;
}
static CUresult
f_event_elapsed_time(float *ms, CUevent a, CUevent b)
{
	*ms = 10.0f;
	return 0;
}
static CUresult
f_event_destroy(CUevent e)
{
	return 0;
}
static CUresult
f_tensor_map_encode_tiled(CUtensorMap *map, int dtype, uint32_t rank,
			  void *addr, const uint64_t *dims,
			  const uint64_t *strides, const uint32_t *box,
			  const uint32_t *estr, int il, int sw, int l2, int oob)
{
	fk.encodes++;
	fk.enc_dtype = dtype;
	fk.enc_rank = rank;
	fk.enc_addr = (uint64_t)(uintptr_t)addr;
	memcpy(fk.enc_dims, dims, rank * 8);
	memcpy(fk.enc_strides, strides, (rank - 1) * 8);
	memcpy(fk.enc_box, box, rank * 4);
	memcpy(fk.enc_estr, estr, rank * 4);
	fk.enc_il = il;
	fk.enc_sw = sw;
	fk.enc_l2 = l2;
	fk.enc_oob = oob;
	memset(map, 0xff, sizeof(*map));
	return 0;
}

static int fake_peer_ctx_obj;
/* Writes one attribute the width the driver does: 4 bytes for the enums,
 * ordinals and flags, 8 for pointers, addresses and sizes. */
static void
put_attr(void *data, int id, const struct FakeAlloc *a)
{
	unsigned u = 0;
	uint64_t q = 0;
	bool wide = false;
	switch (id) {
	case 1: q = (uint64_t)(uintptr_t)a->ctx; wide = true; break;
	case 2: u = a->memtype; break;
	case 8: u = (unsigned)a->managed; break;
	case 9: u = (unsigned)a->ordinal; break;
	case 11: q = a->start; wide = true; break;
	case 12: q = a->size; wide = true; break;
	case 16: u = a->access; break;
	case 17: q = a->pool; wide = true; break;
	}
	if (wide)
		memcpy(data, &q, 8);
	else
		memcpy(data, &u, 4);
}
static CUresult
f_pointer_get_attributes(unsigned n, int *ids, void **data, CUdeviceptr p)
{
	fk.attr_queries++;
	if (n && ids[0] == 16)
		fk.access_queries++;
	if (fk.attr_result)
		return fk.attr_result;
	struct FakeAlloc local = {0x7f0000000000ull, 1ull << 32, 2, 0, 0, 0,
				  (CUcontext)&fake_ctx_obj, 0};
	const struct FakeAlloc *a = &local;
	for (int i = 0; i < fk.nallocs; i++)
		if (p - fk.allocs[i].start < fk.allocs[i].size)
			a = &fk.allocs[i];
	struct FakeAlloc none = {0};
	if (a == &local && fk.unknown_ptrs)
		a = &none; /* cuPointerGetAttributes: defaults, success */
	for (unsigned i = 0; i < n; i++)
		put_attr(data[i], ids[i], a);
	return 0;
}
static CUresult
f_device_can_access_peer(int *can, CUdevice dev, CUdevice peer)
{
	fk.peer_queries++;
	fk.peer_from = dev;
	fk.peer_to = peer;
	*can = fk.can_peer;
	return 0;
}
static CUresult
f_ctx_enable_peer_access(CUcontext peer, unsigned flags)
{
	fk.enables++;
	fk.enabled_ctx = peer;
	return flags ? 1 : fk.enable_result;
}

static CuDriver
fake_driver(void)
{
	CuDriver d = {
#define CU_FN(field, name, ver, params) .field = f_##field,
#include "rt/cuda_syms.def"
#undef CU_FN
	};
	memset(&fk, 0, sizeof(fk));
	fk.driver_version = 12080;
	fk.device_count = 1;
	return d;
}

/* A fake cuGetProcAddress_v2 recording each lookup. */
static CUresult
fake_getproc_v2(const char *sym, void **pfn, int version, uint64_t flags,
		int *status)
{
	int i = fk.nlookups++;
	if (i < 64) {
		snprintf(fk.lookup_name[i], 48, "%s", sym);
		fk.lookup_version[i] = version;
		fk.lookup_flags[i] = flags;
	}
	if (fk.missing && strcmp(sym, fk.missing) == 0) {
		*pfn = NULL;
		*status = 2;
		return 500;
	}
	*pfn = (void *)f_init; /* any non-null address */
	*status = 0;
	return 0;
}

static CUresult
fake_getproc_v1(const char *sym, void **pfn, int version, uint64_t flags)
{
	int status;
	return fake_getproc_v2(sym, pfn, version, flags, &status);
}

static int
lookup_version(const char *name)
{
	for (int i = 0; i < fk.nlookups && i < 64; i++)
		if (strcmp(fk.lookup_name[i], name) == 0)
			return fk.lookup_version[i];
	return -1;
}

/* ---- tests ---- */

TEST(rt_driver_resolve_versions)
{
	CuDriver d;
	RtStatus st = {0};
	fake_driver();
	CHECK_INT(cuda_resolve(&d, fake_getproc_v2, NULL, &st), PT_OK);
	CHECK_INT(fk.nlookups, CUSYM_COUNT);
	/* Base names with explicit versions: never "cuMemAlloc_v2". */
	CHECK_INT(lookup_version("cuMemAlloc"), 3020);
	CHECK_INT(lookup_version("cuMemcpyHtoD"), 3020);
	CHECK_INT(lookup_version("cuCtxSynchronize"), 2000);
	CHECK_INT(lookup_version("cuLaunchKernelEx"), 11060);
	CHECK_INT(lookup_version("cuTensorMapEncodeTiled"), 12000);
	CHECK_INT(lookup_version("cuDevicePrimaryCtxRelease"), 11000);
	CHECK_INT(lookup_version("cuMemAlloc_v2"), -1);
	for (int i = 0; i < fk.nlookups; i++)
		CHECK(fk.lookup_flags[i] == CU_GET_PROC_ADDRESS_LEGACY_STREAM);
	CHECK(d.mem_alloc != NULL && d.tensor_map_encode_tiled != NULL);
	CHECK_STR(cuda_sym_name(CUSYM_launch_kernel_ex), "cuLaunchKernelEx");
	CHECK_INT(cuda_sym_version(CUSYM_mem_alloc), 3020);
	/* The version 1 lookup is used when v2 is absent. */
	fk.nlookups = 0;
	CHECK_INT(cuda_resolve(&d, NULL, fake_getproc_v1, &st), PT_OK);
	CHECK_INT(fk.nlookups, CUSYM_COUNT);
}

TEST(rt_driver_missing_symbol)
{
	CuDriver d;
	RtStatus st = {0};
	fake_driver();
	fk.missing = "cuTensorMapEncodeTiled";
	CHECK_INT(cuda_resolve(&d, fake_getproc_v2, NULL, &st),
		  PT_E_RT_NO_SYMBOL);
	CHECK(strstr(st.msg, "no cuTensorMapEncodeTiled at ABI version 12000 "
			     "(the driver is older than this ABI version")
	      != NULL);
}

TEST(rt_driver_no_libcuda)
{
	/* Only meaningful where no driver is installed (CI, this machine);
	 * on a GPU host the open succeeds and the check is skipped. */
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		dlclose(h);
		return;
	}
	ptrt_ctx *rt = NULL;
	CHECK_INT(ptrt_open(&rt), PT_E_RT_NO_DRIVER);
	CHECK(rt != NULL);
	CHECK(strstr(ptrt_errmsg(rt), "cannot open the CUDA driver "
				      "libcuda.so.1") != NULL);
	CHECK_INT(ptrt_status(rt), PT_E_RT_NO_DRIVER);
	ptrt_close(rt);
}

TEST(rt_driver_open_and_no_device)
{
	CuDriver d = fake_driver();
	ptrt_ctx *rt;
	CHECK_INT(rt_open_driver(&d, NULL, &rt), PT_OK);
	int ver = 0, sm = 0;
	const char *name = NULL;
	CHECK_INT(ptrt_device_info(rt, &ver, &sm, &name), PT_OK);
	CHECK_INT(ver, 12080);
	CHECK_INT(sm, 90);
	CHECK_STR(name, "Fake H200");
	ptrt_close(rt);

	d = fake_driver();
	fk.device_count = 0;
	CHECK_INT(rt_open_driver(&d, NULL, &rt), PT_E_RT_NO_DEVICE);
	CHECK(strstr(ptrt_errmsg(rt), "sees no device") != NULL);
	ptrt_close(rt);

	d = fake_driver();
	fk.init_result = 100;
	CHECK_INT(rt_open_driver(&d, NULL, &rt), PT_E_RT_NO_DEVICE);
	CHECK_STR(ptrt_error_call(rt), "cuInit");
	CHECK_STR(ptrt_error_driver(rt), "CUDA_ERROR_NO_DEVICE");
	ptrt_close(rt);
}

TEST(rt_driver_error_rendering)
{
	CuDriver d = fake_driver();
	ptrt_ctx *rt;
	CHECK_INT(rt_open_driver(&d, NULL, &rt), PT_OK);
	fk.alloc_result = 2;
	ptrt_devptr p = 1;
	CHECK_INT(ptrt_alloc(rt, 1024, &p), PT_E_RT_DRIVER);
	CHECK_STR(ptrt_errmsg(rt), "allocating 1024 bytes: cuMemAlloc failed: "
				   "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory");
	CHECK_STR(ptrt_error_call(rt), "cuMemAlloc");
	CHECK_STR(ptrt_error_driver(rt), "CUDA_ERROR_OUT_OF_MEMORY");
	CHECK_INT(ptrt_error_driver_code(rt), 2);
	/* An error the driver cannot name still renders. */
	fk.alloc_result = 999;
	CHECK_INT(ptrt_alloc(rt, 8, &p), PT_E_RT_DRIVER);
	CHECK(strstr(ptrt_errmsg(rt), "unknown CUDA error (999)") != NULL);
	/* A success clears the status. */
	fk.alloc_result = 0;
	CHECK_INT(ptrt_alloc(rt, 8, &p), PT_OK);
	CHECK_INT(ptrt_status(rt), PT_OK);
	CHECK(ptrt_error_call(rt) == NULL);
	ptrt_close(rt);
}

static const char tk_ptx[] =
	".version 8.0\n.target sm_90a\n// fake\n"
	".visible .entry tk(\n\t.param .u64 tk_x,\n\t.param .f32 tk_alpha,\n"
	"\t.param .align 64 .b8 tk_tmx[128],\n\t.param .s32 tk_n\n)\n{\n}\n";

/* tk(x: f32[m, k] with a tma map, alpha, n = k as int32);
 * grid (ceildiv(k, 64), ceildiv(m, 32)), cluster 2, smem 64 KiB. */
static const char tk_meta[] =
	"{\"format\":\"ptxtile-meta\",\"version\":1,\"kernels\":[{"
	"\"name\":\"tk\",\"params\":["
	"{\"name\":\"x\",\"kind\":\"tensor\",\"dtype\":\"float32\","
	"\"shape\":[\"m\",\"k\"],\"contiguous\":false},"
	"{\"name\":\"alpha\",\"kind\":\"scalar\",\"dtype\":\"float32\"},"
	"{\"name\":\"tmx\",\"kind\":\"tma\",\"tensor\":\"x\",\"rank\":2,"
	"\"box\":[32,32],\"swizzle\":\"128B\"},"
	"{\"name\":\"n\",\"kind\":\"dim\",\"var\":\"k\"}],"
	"\"launch\":{\"grid\":[{\"op\":\"ceildiv\",\"args\":[{\"var\":\"k\"},"
	"64]},{\"op\":\"ceildiv\",\"args\":[{\"var\":\"m\"},32]}],"
	"\"block\":[128],\"cluster\":[2,1,1],\"dynamic_smem\":65536}}]}";

static ptrt_module *
load_tk(ptrt_ctx *rt)
{
	ptrt_module *m = NULL;
	int rc = ptrt_module_load(rt, tk_ptx, strlen(tk_ptx), tk_meta,
				  strlen(tk_meta), &m);
	if (rc != PT_OK)
		fprintf(stderr, "  load: %s\n", ptrt_errmsg(rt));
	return m;
}

TEST(rt_driver_launch_tma)
{
	CuDriver d = fake_driver();
	ptrt_ctx *rt;
	CHECK_INT(rt_open_driver(&d, NULL, &rt), PT_OK);
	ptrt_module *m = load_tk(rt);
	CHECK(m != NULL);
	CHECK_STR(fk.image, tk_ptx); /* PTX passed NUL-terminated */
	ptrt_kernel *k = NULL;
	CHECK_INT(ptrt_kernel_get(m, "tk", &k), PT_OK);
	if (!k) {
		ptrt_close(rt);
		return;
	}
	CHECK_INT(ptrt_kernel_nargs(k), 2);
	/* x: 96 x 200 float32 with a 1024-byte row pitch (padded). */
	int64_t shape[2] = {96, 200}, strides[2] = {1024, 4};
	ptrt_arg args[] = {
		ptrt_arg_tensor(0x7f0000001000ull, PTRT_FLOAT32, 2, shape,
				strides),
		ptrt_arg_f32(0.5f),
	};
	CHECK_INT(ptrt_launch(k, args, 2, NULL), PT_OK);
	CHECK_INT(fk.encodes, 1);
	CHECK_INT(fk.enc_dtype, 7);
	CHECK_INT(fk.enc_rank, 2);
	CHECK(fk.enc_addr == 0x7f0000001000ull);
	CHECK_INT(fk.enc_dims[0], 200);
	CHECK_INT(fk.enc_dims[1], 96);
	CHECK_INT(fk.enc_strides[0], 1024);
	CHECK_INT(fk.enc_box[0], 32);
	CHECK_INT(fk.enc_box[1], 32);
	CHECK_INT(fk.enc_estr[0], 1);
	CHECK_INT(fk.enc_sw, 3);
	CHECK_INT(fk.enc_l2, 2);
	CHECK_INT(fk.enc_il, 0);
	CHECK_INT(fk.enc_oob, 0);
	/* 199*4 + 95*1024 = 98076 < 128 KiB on driver 12.8: bit 85 cleared
	 * in the map the kernel receives, nothing else touched. */
	CHECK(fk.p_map[0] == UINT64_MAX);
	CHECK(fk.p_map[1] == ~((uint64_t)1 << 21));
	CHECK(fk.p_map_addr % 64 == 0);
	CHECK(fk.p_ptr == 0x7f0000001000ull);
	CHECK(fk.p_alpha == 0.5f);
	CHECK_INT(fk.p_n, 200);
	CHECK_INT(fk.cfg.grid_x, 4); /* ceil(200 / 64) */
	CHECK_INT(fk.cfg.grid_y, 3); /* ceil(96 / 32) */
	CHECK_INT(fk.cfg.grid_z, 1);
	CHECK_INT(fk.cfg.block_x, 128);
	CHECK_INT(fk.cfg.shared_mem_bytes, 65536);
	CHECK_INT(fk.cfg.num_attrs, 1);
	CHECK_INT(fk.attr.id, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
	CHECK_INT(fk.attr.value.cluster_dim.x, 2);
	CHECK_INT(fk.attr.value.cluster_dim.y, 1);
	CHECK_INT(fk.set_attrs, 1);
	CHECK_INT(fk.attr_id, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
	CHECK_INT(fk.attr_value, 65536);
	/* A second launch does not set the attribute again; a newer driver
	 * gets no workaround. */
	rt->driver_version = 13020;
	CHECK_INT(ptrt_launch(k, args, 2, NULL), PT_OK);
	CHECK_INT(fk.set_attrs, 1);
	CHECK(fk.p_map[1] == UINT64_MAX);
	float ms = 0;
	CHECK_INT(ptrt_time_launch(k, args, 2, 1, 4, &ms), PT_OK);
	CHECK(ms == 2.5f); /* the fake's 10 ms over 4 launches */
	/* Validation fails before the driver sees anything. */
	int before = fk.launches, enc_before = fk.encodes;
	CHECK_INT(ptrt_launch(k, args, 1, NULL), PT_E_RT_ARG_COUNT);
	args[0].tensor.ptr += 8; /* not 16-byte aligned for TMA */
	CHECK_INT(ptrt_launch(k, args, 2, NULL), PT_E_RT_ARG_ALIGN);
	CHECK(strstr(ptrt_errmsg(rt), "tensor map \"tmx\"") != NULL);
	CHECK_INT(fk.launches, before);
	CHECK_INT(fk.encodes, enc_before);
	ptrt_close(rt);
}

TEST(rt_driver_jit_error)
{
	CuDriver d = fake_driver();
	ptrt_ctx *rt;
	CHECK_INT(rt_open_driver(&d, NULL, &rt), PT_OK);
	fk.load_result = 218;
	ptrt_module *m = (ptrt_module *)1;
	CHECK_INT(ptrt_module_load(rt, tk_ptx, strlen(tk_ptx), tk_meta,
				   strlen(tk_meta), &m),
		  PT_E_RT_JIT);
	CHECK(m == NULL);
	CHECK_STR(ptrt_jit_log(rt), "ptxas fatal: line 3: bad");
	CHECK_STR(ptrt_error_call(rt), "cuModuleLoadDataEx");
	CHECK_STR(ptrt_error_driver(rt), "CUDA_ERROR_INVALID_PTX");
	CHECK(strstr(ptrt_errmsg(rt), "JIT-compiling the PTX: "
				      "cuModuleLoadDataEx failed: "
				      "CUDA_ERROR_INVALID_PTX (218)") != NULL);
	CHECK(strstr(ptrt_errmsg(rt), "JIT log:\nptxas fatal: line 3") != NULL);
	ptrt_close(rt);
}

TEST(rt_driver_meta_checked_first)
{
	CuDriver d = fake_driver();
	ptrt_ctx *rt;
	CHECK_INT(rt_open_driver(&d, NULL, &rt), PT_OK);
	ptrt_module *m;
	const char bad[] = "{\"format\":\"ptxtile-meta\"}";
	CHECK_INT(ptrt_module_load(rt, tk_ptx, strlen(tk_ptx), bad,
				   strlen(bad), &m),
		  PT_E_RT_META);
	CHECK_INT(fk.loads, 0);
	CHECK_INT(ptrt_module_load(rt, NULL, 0, bad, strlen(bad), &m),
		  PT_E_RT_BAD_CALL);
	/* The metadata names a kernel the image lacks. */
	fk.getfn_result = 500;
	CHECK_INT(ptrt_module_load(rt, tk_ptx, strlen(tk_ptx), tk_meta,
				   strlen(tk_meta), &m),
		  PT_E_RT_NO_KERNEL);
	CHECK(strstr(ptrt_errmsg(rt), "the metadata names kernel \"tk\": "
				      "cuModuleGetFunction failed: "
				      "CUDA_ERROR_NOT_FOUND") != NULL);
	fk.getfn_result = 0;
	m = load_tk(rt);
	ptrt_kernel *k;
	CHECK_INT(ptrt_kernel_get(m, "nope", &k), PT_E_RT_NO_KERNEL);
	CHECK(strstr(ptrt_errmsg(rt), "no kernel \"nope\" in the module "
				      "(it has: \"tk\")") != NULL);
	ptrt_module_unload(m);
	CHECK(rt->modules == NULL);
	ptrt_close(rt);
}

/* ptrt_open_device: the ordinal reaches cuDeviceGet; one the driver does
 * not have is RT_NO_DEVICE naming both numbers, before any context. */
TEST(rt_driver_open_device_ordinal)
{
	CuDriver d = fake_driver();
	fk.device_count = 2;
	ptrt_ctx *rt;
	CHECK_INT(rt_open_driver_device(&d, NULL, 1, &rt), PT_OK);
	CHECK_INT(rt->dev, 1);
	ptrt_close(rt);

	d = fake_driver();
	fk.device_count = 2;
	CHECK_INT(rt_open_driver_device(&d, NULL, 2, &rt), PT_E_RT_NO_DEVICE);
	CHECK_STR(ptrt_errmsg(rt), "no CUDA device 2: the driver sees 2");
	CHECK(rt->cuctx == NULL);
	ptrt_close(rt);

	d = fake_driver();
	CHECK_INT(rt_open_driver_device(&d, NULL, -1, &rt), PT_E_RT_NO_DEVICE);
	ptrt_close(rt);
}

/* Lying metadata never reaches the driver: every kernel's parameters are
 * compared with its PTX .entry list (count, <kernel>_<name>, byte size). */
TEST(rt_driver_signature_checked)
{
	static const char *const ptx[] = {
		/* one parameter fewer than the metadata */
		".visible .entry tk(\n.param .u64 tk_x,\n.param .f32 tk_alpha,\n"
		".param .align 64 .b8 tk_tmx[128]\n)\n",
		/* one more */
		".visible .entry tk(.param .u64 tk_x, .param .f32 tk_alpha, "
		".param .align 64 .b8 tk_tmx[128], .param .s32 tk_n, "
		".param .u64 tk_evil)",
		/* a size that differs (the map is 64 bytes) */
		".visible .entry tk(.param .u64 tk_x, .param .f32 tk_alpha, "
		".param .align 64 .b8 tk_tmx[64], .param .s32 tk_n)",
		/* a scalar passed as 8 bytes */
		".visible .entry tk(.param .u64 tk_x, .param .f64 tk_alpha, "
		".param .align 64 .b8 tk_tmx[128], .param .s32 tk_n)",
		/* names in another order */
		".visible .entry tk(.param .u64 tk_x, .param .f32 tk_n, "
		".param .align 64 .b8 tk_tmx[128], .param .s32 tk_alpha)",
		/* the entry only inside a comment */
		"// .visible .entry tk(.param .u64 tk_x, .param .f32 tk_alpha, "
		".param .align 64 .b8 tk_tmx[128], .param .s32 tk_n)\n",
		/* another kernel's entry with a longer name */
		".visible .entry tkk(.param .u64 tkk_x)",
	};
	CuDriver d = fake_driver();
	ptrt_ctx *rt;
	CHECK_INT(rt_open_driver(&d, NULL, &rt), PT_OK);
	for (size_t i = 0; i < sizeof(ptx) / sizeof(ptx[0]); i++) {
		ptrt_module *m = (ptrt_module *)1;
		int rc = ptrt_module_load(rt, ptx[i], strlen(ptx[i]), tk_meta,
					  strlen(tk_meta), &m);
		if (rc != PT_E_RT_SIGNATURE)
			test_fail(t, __FILE__, __LINE__, "case %zu: %d %s", i,
				  rc, ptrt_errmsg(rt));
		CHECK(m == NULL);
	}
	CHECK_INT(fk.loads, 0);
	ptrt_module *m = load_tk(rt);
	CHECK(m != NULL);
	ptrt_close(rt);
}

/* A cubin is checked too, from ptxas's own record of each entry's
 * parameters (.nv.info.<kernel>, EIATTR_KPARAM_INFO): tk assembled by
 * ptxas loads with its metadata; a metadata scalar of another size, one
 * parameter more, or a cubin cut short never reach the driver.  Skipped
 * (a note) without ptxas. */
TEST(rt_driver_cubin_signature_checked)
{
	char dir[] = "/tmp/pt-cubin-XXXXXX", cmd[512], path[64];
	if (system("command -v ptxas >/dev/null 2>&1 || "
		   "test -x /usr/local/cuda/bin/ptxas") != 0 || !mkdtemp(dir)) {
		fprintf(stderr, "  note: no ptxas, cubin signatures not tested\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/tk.ptx", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	/* tk_ptx with a body ptxas accepts */
	fputs(".version 8.0\n.target sm_90a\n.address_size 64\n"
	      ".visible .entry tk(\n\t.param .u64 tk_x,\n\t.param .f32 "
	      "tk_alpha,\n\t.param .align 64 .b8 tk_tmx[128],\n\t.param "
	      ".s32 tk_n\n)\n{\n\tret;\n}\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "PATH=$PATH:/usr/local/cuda/bin ptxas "
		 "-arch=sm_90a %s/tk.ptx -o %s/tk.cubin", dir, dir);
	CHECK_INT(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/tk.cubin", dir);
	Arena a;
	arena_init(&a, NULL);
	size_t len = 0;
	const char *cubin = read_file(&a, path, &len);
	CHECK(cubin != NULL && len > 64);
	CuDriver d = fake_driver();
	ptrt_ctx *rt;
	CHECK_INT(rt_open_driver(&d, NULL, &rt), PT_OK);
	ptrt_module *m = NULL;
	if (cubin)
		CHECK_INT(ptrt_module_load(rt, cubin, len, tk_meta,
					   strlen(tk_meta), &m), PT_OK);
	CHECK(m != NULL);
	CHECK_INT(fk.loads, 1);
	/* alpha as float64 (8 bytes against the cubin's 4) */
	const char *wide = arena_printf(&a, "%s", tk_meta);
	char *at = strstr((char *)wide, "\"alpha\",\"kind\":\"scalar\","
				"\"dtype\":\"float32\"");
	CHECK(at != NULL);
	if (at)
		memcpy(strstr(at, "float32"), "float64", 7);
	/* one parameter more than the cubin's four */
	const char *more = arena_printf(&a, "%.*s{\"name\":\"z\",\"kind\":"
					"\"dim\",\"var\":\"m\"},%s",
					(int)(strstr(tk_meta, "{\"name\":\"n\"") -
					      tk_meta), tk_meta,
					strstr(tk_meta, "{\"name\":\"n\""));
	const char *const metas[] = {wide, more, tk_meta};
	const size_t lens[] = {len, len, 200};
	for (size_t i = 0; cubin && i < 3; i++) {
		ptrt_module *bad = (ptrt_module *)1;
		int rc = ptrt_module_load(rt, cubin, lens[i], metas[i],
					  strlen(metas[i]), &bad);
		if (rc != PT_E_RT_SIGNATURE)
			test_fail(t, __FILE__, __LINE__, "case %zu: %d %s", i,
				  rc, ptrt_errmsg(rt));
		CHECK(bad == NULL);
	}
	CHECK_INT(fk.loads, 1);
	ptrt_close(rt);
	arena_free(&a);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
}

/* A kernel whose row stride is the symbolic size n: its 16-byte vector
 * accesses at B[r, c:c+4] are aligned only when n is a multiple of 4,
 * which the compiler records ("assume") and the runtime checks before
 * the driver sees the launch. */
static const char copy2d_src[] =
	"from tvm_tirx.script import tirx as T\n"
	"m = T.dynamic(\"m\")\n"
	"n = T.dynamic(\"n\")\n"
	"@T.function\n"
	"def copy2d(A: T.Tensor((m, n), \"float32\", align=16),"
	" B: T.Tensor((m, n), \"float32\", align=16)):\n"
	"    T.device_entry(launch=T.cuda.LaunchConfig("
	"grid=(T.ceildiv(n, 128), m), block=32))\n"
	"    r = T.cuda.block_idx(\"y\")\n"
	"    c = (T.cuda.block_idx(\"x\") * 32 + T.cuda.thread_idx(\"x\")) * 4\n"
	"    x = T.alloc_local((4,), \"float32\", layout=\"default\")\n"
	"    if c + 4 <= n:\n"
	"        T.cuda.tile.apply(T.ptx[\"ld.global.v4.b32\"], x, A.sub[r, c:c + 4])\n"
	"        T.cuda.tile.apply(T.ptx[\"st.global.v4.b32\"], B.sub[r, c:c + 4], x)\n";

TEST(rt_driver_assumed_size_multiple)
{
	pt_ctx *c = pt_ctx_new(NULL);
	pt_module *pm = NULL;
	const char *ptx = NULL, *meta = NULL;
	CHECK_INT(pt_load(c, "copy2d.py", copy2d_src, strlen(copy2d_src), &pm),
		  PT_OK);
	if (pm)
		CHECK_INT(pt_compile(c, pm, "sm_90a", &ptx, &meta), PT_OK);
	CHECK(meta && strstr(meta, "\"assume\": [{\"var\": \"n\", "
				   "\"multiple_of\": 4}]") != NULL);
	CuDriver d = fake_driver();
	fk.not_tk = true;
	ptrt_ctx *rt;
	ptrt_module *m = NULL;
	ptrt_kernel *k = NULL;
	CHECK_INT(rt_open_driver(&d, NULL, &rt), PT_OK);
	if (ptx && meta)
		CHECK_INT(ptrt_module_load(rt, ptx, strlen(ptx), meta,
					   strlen(meta), &m), PT_OK);
	if (m)
		CHECK_INT(ptrt_kernel_get(m, "copy2d", &k), PT_OK);
	if (k) {
		int64_t bad[2] = {3, 1001}, good[2] = {3, 1000};
		ptrt_arg args[] = {
			ptrt_arg_tensor(0x7f0000001000ull, PTRT_FLOAT32, 2, bad,
					NULL),
			ptrt_arg_tensor(0x7f0000100000ull, PTRT_FLOAT32, 2, bad,
					NULL),
		};
		CHECK_INT(ptrt_launch(k, args, 2, NULL), PT_E_RT_ASSUME);
		CHECK(strstr(ptrt_errmsg(rt), "symbolic size \"n\" is 1001 "
			     "(argument 1 dim 1), but the kernel was compiled "
			     "assuming it is a multiple of 4") != NULL);
		CHECK_INT(fk.launches, 0);
		args[0] = ptrt_arg_tensor(0x7f0000001000ull, PTRT_FLOAT32, 2,
					  good, NULL);
		args[1] = ptrt_arg_tensor(0x7f0000100000ull, PTRT_FLOAT32, 2,
					  good, NULL);
		CHECK_INT(ptrt_launch(k, args, 2, NULL), PT_OK);
		CHECK_INT(fk.launches, 1);
		CHECK_INT(fk.cfg.grid_x, 8); /* ceil(1000 / 128) */
		CHECK_INT(fk.cfg_grid_y, 3);
	}
	ptrt_close(rt);
	pt_ctx_free(c);
}

/* ---- pointers on other devices (peer.c) ---- */

static void
add_alloc(uint64_t start, unsigned memtype, int ordinal, CUcontext ctx,
	  unsigned access, uint64_t pool)
{
	struct FakeAlloc a = {start, 1u << 20, memtype, access, ordinal, 0,
			      ctx, pool};
	fk.allocs[fk.nallocs++] = a;
}

/* The classification alone, from attribute values written down from the
 * CUDA driver API's documentation of each attribute. */
TEST(rt_peer_classify)
{
	CUcontext c = (CUcontext)&fake_ctx_obj;
	PtrAttrs unknown = {0}, host = {.memtype = 1};
	PtrAttrs managed = {.memtype = 2, .ordinal = 1, .managed = true,
			    .ctx = c};
	PtrAttrs local = {.memtype = 2, .ctx = c};
	PtrAttrs peer = {.memtype = 2, .ordinal = 1, .ctx = c};
	PtrAttrs mapped = {.memtype = 2, .ordinal = 1};
	PtrAttrs mine_mapped = {.memtype = 2};
	CHECK_INT(ptr_class_basic(&unknown, 0), PTR_UNKNOWN);
	CHECK_INT(ptr_class_basic(&host, 0), PTR_HOST);
	CHECK_INT(ptr_class_basic(&managed, 0), PTR_HOST);
	CHECK_INT(ptr_class_basic(&local, 0), PTR_LOCAL);
	CHECK_INT(ptr_class_basic(&local, 1), PTR_ASK_ACCESS);
	CHECK_INT(ptr_class_basic(&peer, 0), PTR_ASK_ACCESS);
	CHECK_INT(ptr_class_basic(&mine_mapped, 0), PTR_ASK_ACCESS);
	CHECK_INT(ptr_class_access(&peer, 0), PTR_PEER);
	peer.access = 3; /* peer access already on: READWRITE */
	CHECK_INT(ptr_class_access(&peer, 0), PTR_GRANTED);
	CHECK_INT(ptr_class_access(&mapped, 0), PTR_NO_ACCESS);
	mapped.access = 1; /* READ */
	CHECK_INT(ptr_class_access(&mapped, 0), PTR_GRANTED);
	PtrAttrs pool = {.memtype = 2, .ordinal = 1, .ctx = c, .pool = 0x1234};
	CHECK_INT(ptr_class_access(&pool, 0), PTR_NO_ACCESS);
}

static ptrt_kernel *
open_tk(int ordinal, ptrt_ctx **rt)
{
	CuDriver d = fake_driver();
	fk.device_count = 2;
	fk.can_peer = 1;
	ptrt_kernel *k = NULL;
	if (rt_open_driver_device(&d, NULL, ordinal, rt) != PT_OK)
		return NULL;
	ptrt_module *m = load_tk(*rt);
	if (m)
		ptrt_kernel_get(m, "tk", &k);
	return k;
}

static int
launch_x(ptrt_kernel *k, uint64_t x)
{
	int64_t shape[2] = {96, 200};
	ptrt_arg args[] = {ptrt_arg_tensor(x, PTRT_FLOAT32, 2, shape, NULL),
			   ptrt_arg_f32(0.5f)};
	return ptrt_launch(k, args, 2, NULL);
}

/* A plain allocation of device 1 launched on device 0: the driver is
 * asked whether 0 reaches 1, peer access is enabled with the pointer's
 * context, once; "already enabled" is success; no peer access is
 * RT_PEER_UNREACHABLE naming the argument and both devices, before the
 * driver sees a launch; a failing enable is RT_PEER_ENABLE. */
TEST(rt_peer_enable_access)
{
	ptrt_ctx *rt;
	ptrt_kernel *k = open_tk(0, &rt);
	CHECK(k != NULL);
	if (!k) {
		ptrt_close(rt);
		return;
	}
	CUcontext pc = (CUcontext)&fake_peer_ctx_obj;
	add_alloc(0x7e0000000000ull, 2, 1, pc, 0, 0);
	CHECK_INT(launch_x(k, 0x7e0000001000ull), PT_OK);
	CHECK_INT(fk.peer_queries, 1);
	CHECK_INT(fk.peer_from, 0);
	CHECK_INT(fk.peer_to, 1);
	CHECK_INT(fk.enables, 1);
	CHECK(fk.enabled_ctx == pc);
	CHECK_INT(fk.launches, 1);
	CHECK(fk.enc_addr == 0x7e0000001000ull);
	/* the range is remembered: no query, no enable the second time */
	int q = fk.attr_queries;
	CHECK_INT(launch_x(k, 0x7e0000002000ull), PT_OK);
	CHECK_INT(fk.attr_queries, q);
	CHECK_INT(fk.enables, 1);
	ptrt_forget_pointers(rt);
	fk.enable_result = 704; /* CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED */
	CHECK_INT(launch_x(k, 0x7e0000001000ull), PT_OK);
	CHECK_INT(fk.enables, 2);
	CHECK_INT(fk.launches, 3);
	ptrt_forget_pointers(rt);
	fk.enable_result = 711; /* CUDA_ERROR_TOO_MANY_PEERS */
	CHECK_INT(launch_x(k, 0x7e0000001000ull), PT_E_RT_PEER_ENABLE);
	CHECK(strstr(ptrt_errmsg(rt), "argument 1 (\"x\"): pointer "
		     "0x7e0000001000 of CUDA device 1, launching on device 0: "
		     "cuCtxEnablePeerAccess failed: CUDA_ERROR_TOO_MANY_PEERS "
		     "(711)") != NULL);
	CHECK_STR(ptrt_error_call(rt), "cuCtxEnablePeerAccess");
	fk.enable_result = 0;
	fk.can_peer = 0;
	CHECK_INT(launch_x(k, 0x7e0000001000ull), PT_E_RT_PEER_UNREACHABLE);
	CHECK(strstr(ptrt_errmsg(rt), "argument 1 (\"x\"): pointer "
		     "0x7e0000001000 of CUDA device 1, launching on device 0: "
		     "device 0 cannot reach device 1's memory") != NULL);
	CHECK_INT(fk.launches, 3);
	/* a refusal is not remembered: asked again */
	q = fk.attr_queries;
	CHECK_INT(launch_x(k, 0x7e0000001000ull), PT_E_RT_PEER_UNREACHABLE);
	CHECK(fk.attr_queries > q);
	ptrt_close(rt);
}

/* cuMemMap memory (no context; torch symmetric memory) and memory-pool
 * memory launch when their access flags grant the launch device access,
 * without peer access calls; with no access they are RT_PEER_NO_ACCESS. */
TEST(rt_peer_mapped_access_flags)
{
	ptrt_ctx *rt;
	ptrt_kernel *k = open_tk(0, &rt);
	CHECK(k != NULL);
	if (!k) {
		ptrt_close(rt);
		return;
	}
	CUcontext pc = (CUcontext)&fake_peer_ctx_obj;
	add_alloc(0x7d0000000000ull, 2, 1, NULL, 3, 0);      /* granted */
	add_alloc(0x7c0000000000ull, 2, 1, NULL, 0, 0);      /* no access */
	add_alloc(0x7b0000000000ull, 2, 1, pc, 0, 0xbeef);   /* pool, none */
	add_alloc(0x7a0000000000ull, 2, 0, NULL, 1, 0);      /* mine, read */
	CHECK_INT(launch_x(k, 0x7d0000000000ull), PT_OK);
	CHECK_INT(launch_x(k, 0x7a0000000000ull), PT_OK);
	CHECK_INT(fk.access_queries, 2);
	CHECK_INT(fk.enables, 0);
	CHECK_INT(fk.peer_queries, 0);
	CHECK_INT(launch_x(k, 0x7c0000000100ull), PT_E_RT_PEER_NO_ACCESS);
	CHECK(strstr(ptrt_errmsg(rt), "argument 1 (\"x\"): pointer "
		     "0x7c0000000100 is mapped (cuMemMap) memory of CUDA "
		     "device 1 without access for the launch device 0")
	      != NULL);
	CHECK_INT(launch_x(k, 0x7b0000000000ull), PT_E_RT_PEER_NO_ACCESS);
	CHECK(strstr(ptrt_errmsg(rt), "is memory-pool memory of CUDA device 1")
	      != NULL);
	CHECK_INT(fk.launches, 2);
	CHECK_INT(fk.enables, 0);
	ptrt_close(rt);
}

/* The single-device launch path: one attribute query per allocation
 * range, then none; ptrt_free forgets the range it frees; a pointer the
 * driver does not know (or a failing query) launches as before the check,
 * asked each time; a launch on device 1 takes device 1's memory as its
 * own and asks about device 0's. */
TEST(rt_peer_local_cache)
{
	ptrt_ctx *rt;
	ptrt_kernel *k = open_tk(0, &rt);
	CHECK(k != NULL);
	if (!k) {
		ptrt_close(rt);
		return;
	}
	for (int i = 0; i < 3; i++)
		CHECK_INT(launch_x(k, 0x7f0000001000ull + 64 * i), PT_OK);
	CHECK_INT(fk.attr_queries, 1);
	CHECK_INT(fk.access_queries, 0);
	CHECK_INT(ptrt_free(rt, 0x7f0000100000ull), PT_OK);
	CHECK_INT(launch_x(k, 0x7f0000001000ull), PT_OK);
	CHECK_INT(fk.attr_queries, 2);
	/* more ranges than the cache holds: still right, still bounded */
	for (int i = 0; i < RT_PTR_CACHE + 5; i++) {
		fk.nallocs = 0;
		add_alloc(0x700000000000ull + ((uint64_t)i << 24), 2, 0,
			  (CUcontext)&fake_ctx_obj, 0, 0);
		CHECK_INT(launch_x(k, 0x700000000000ull + ((uint64_t)i << 24)),
			  PT_OK);
	}
	CHECK(rt->nptr_ok == RT_PTR_CACHE);
	fk.nallocs = 0;
	ptrt_forget_pointers(rt);
	fk.unknown_ptrs = 1;
	int q = fk.attr_queries;
	CHECK_INT(launch_x(k, 0x7f0000001000ull), PT_OK);
	CHECK_INT(launch_x(k, 0x7f0000001000ull), PT_OK);
	CHECK_INT(fk.attr_queries, q + 2);
	fk.unknown_ptrs = 0;
	fk.attr_result = 201; /* CUDA_ERROR_INVALID_CONTEXT */
	CHECK_INT(launch_x(k, 0x7f0000001000ull), PT_OK);
	CHECK_INT(fk.enables, 0);
	ptrt_close(rt);

	k = open_tk(1, &rt);
	CHECK(k != NULL);
	if (k) {
		add_alloc(0x7e0000000000ull, 2, 1, (CUcontext)&fake_ctx_obj, 0,
			  0);
		CHECK_INT(launch_x(k, 0x7e0000000000ull), PT_OK);
		CHECK_INT(fk.peer_queries, 0);
		CHECK_INT(launch_x(k, 0x7f0000000000ull), PT_OK);
		CHECK_INT(fk.peer_queries, 1);
		CHECK_INT(fk.peer_from, 1);
		CHECK_INT(fk.peer_to, 0);
	}
	ptrt_close(rt);
}

/* ptrt_reach_pointer: the check for an address a kernel reads from a
 * table, with the caller's name for it; accepted ranges shared with
 * launches. */
TEST(rt_peer_reach_pointer)
{
	ptrt_ctx *rt;
	ptrt_kernel *k = open_tk(0, &rt);
	CHECK(k != NULL);
	if (!k) {
		ptrt_close(rt);
		return;
	}
	add_alloc(0x7d0000000000ull, 2, 1, NULL, 3, 0);
	add_alloc(0x7c0000000000ull, 2, 1, NULL, 0, 0);
	add_alloc(0x7e0000000000ull, 2, 1, (CUcontext)&fake_peer_ctx_obj, 0,
		  0);
	CHECK_INT(ptrt_reach_pointer(rt, 0x7d0000000040ull, "peers[1]"), PT_OK);
	CHECK_INT(ptrt_reach_pointer(rt, 0x7c0000000040ull, "peers[2]"),
		  PT_E_RT_PEER_NO_ACCESS);
	CHECK(strstr(ptrt_errmsg(rt), "\"peers[2]\": pointer 0x7c0000000040 is "
		     "mapped (cuMemMap) memory of CUDA device 1") != NULL);
	CHECK_INT(ptrt_reach_pointer(rt, 0x7e0000000000ull, NULL), PT_OK);
	CHECK_INT(fk.enables, 1);
	int q = fk.attr_queries;
	CHECK_INT(launch_x(k, 0x7d0000000100ull), PT_OK);
	CHECK_INT(fk.attr_queries, q);
	CHECK_INT(ptrt_status(rt), PT_OK);
	CHECK_INT(ptrt_reach_pointer(NULL, 1, "x"), PT_E_RT_BAD_CALL);
	ptrt_close(rt);
}

/* ptrt_tensor_map_encode: the all-gather GEMM's map of a peer's A shard
 * (bf16 (256, 128) rows of 256 bytes, box (128, 64), 128-byte swizzle)
 * reaches the driver innermost first, as cuTensorMapEncodeTiled takes
 * it; limits are checked first; bad calls are refused. */
TEST(rt_tensor_map_encode_public)
{
	CuDriver d = fake_driver();
	ptrt_ctx *rt;
	CHECK_INT(rt_open_driver(&d, NULL, &rt), PT_OK);
	int64_t shape[2] = {256, 128};
	ptrt_arg ten = ptrt_arg_tensor(0x7e0000010000ull, PTRT_BFLOAT16, 2,
				     shape, NULL);
	uint32_t box[2] = {128, 64};
	_Alignas(64) unsigned char map[128];
	CHECK_INT(ptrt_tensor_map_encode(rt, &ten, box, 3, map), PT_OK);
	CHECK_INT(fk.enc_dtype, 9); /* CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 */
	CHECK_INT(fk.enc_rank, 2);
	CHECK(fk.enc_addr == 0x7e0000010000ull);
	CHECK_INT(fk.enc_dims[0], 128);
	CHECK_INT(fk.enc_dims[1], 256);
	CHECK_INT(fk.enc_strides[0], 256);
	CHECK_INT(fk.enc_box[0], 64);
	CHECK_INT(fk.enc_box[1], 128);
	CHECK_INT(fk.enc_estr[1], 1);
	CHECK_INT(fk.enc_sw, 3);
	CHECK_INT(fk.enc_l2, 2);
	CHECK_INT(fk.enc_oob, 0);
	/* 64 KiB of data on driver 12.8: the bit-85 workaround applies */
	CHECK(map[10] == (unsigned char)~(1u << 5) && map[0] == 0xff);
	int before = fk.encodes;
	box[1] = 512; /* a box dim over 256 */
	CHECK_INT(ptrt_tensor_map_encode(rt, &ten, box, 3, map),
		  PT_E_RT_TMA_LIMIT);
	box[1] = 64;
	ten.dtype = PTRT_FLOAT4_E2M1FN;
	CHECK_INT(ptrt_tensor_map_encode(rt, &ten, box, 3, map),
		  PT_E_RT_TMA_LIMIT);
	ten.dtype = PTRT_BFLOAT16;
	CHECK_INT(ptrt_tensor_map_encode(rt, &ten, box, 3, map + 1),
		  PT_E_RT_BAD_CALL);
	CHECK_INT(ptrt_tensor_map_encode(NULL, &ten, box, 3, map),
		  PT_E_RT_BAD_CALL);
	CHECK_INT(fk.encodes, before);
	ptrt_close(rt);
}

/* ---- the launch cache (launch_cache.c) ---- */

static const char axs_src[] =
	"from tvm_tirx.script import tirx as T\n"
	"n = T.dynamic(\"n\")\n"
	"@T.function\n"
	"def axs(X: T.Tensor((n,), \"float32\", align=16),"
	" Y: T.Tensor((n,), \"float32\"), a: T.float32, g: T.int32):\n"
	"    T.device_entry(launch=T.cuda.LaunchConfig(grid=g, block=128))\n"
	"    i = T.cuda.block_idx(\"x\") * 128 + T.cuda.thread_idx(\"x\")\n"
	"    if i < n:\n"
	"        Y[i] = a * X[i]\n";

typedef struct AxsRig {
	pt_ctx *c;
	ptrt_ctx *rt;
	ptrt_kernel *k;
} AxsRig;

static void
axs_open(TestCtx *t, AxsRig *r)
{
	const char *ptx = NULL, *meta = NULL;
	pt_module *pm = NULL;
	ptrt_module *m = NULL;
	memset(r, 0, sizeof(*r));
	r->c = pt_ctx_new(NULL);
	CHECK_INT(pt_load(r->c, "axs.py", axs_src, strlen(axs_src), &pm),
		  PT_OK);
	if (pm)
		CHECK_INT(pt_compile(r->c, pm, "sm_90a", &ptx, &meta), PT_OK);
	CuDriver d = fake_driver();
	fk.axs = true;
	CHECK_INT(rt_open_driver(&d, NULL, &r->rt), PT_OK);
	if (ptx && meta)
		CHECK_INT(ptrt_module_load(r->rt, ptx, strlen(ptx), meta,
					   strlen(meta), &m), PT_OK);
	if (m)
		CHECK_INT(ptrt_kernel_get(m, "axs", &r->k), PT_OK);
}

static void
axs_close(AxsRig *r)
{
	ptrt_close(r->rt);
	pt_ctx_free(r->c);
}

/* X, Y of n floats at x, y; a; g CTAs. */
static void
axs_args(ptrt_arg *args, uint64_t x, uint64_t y, int64_t n, float a, int g)
{
	args[0] = ptrt_arg_tensor(x, PTRT_FLOAT32, 1, &n, NULL);
	args[1] = ptrt_arg_tensor(y, PTRT_FLOAT32, 1, &n, NULL);
	args[2] = ptrt_arg_f32(a);
	args[3] = ptrt_arg_i32(g);
}

TEST(rt_launch_cache_rewrites_pointers_and_scalars)
{
	AxsRig r;
	axs_open(t, &r);
	if (r.k) {
		ptrt_arg args[4];
		axs_args(args, 0x10000, 0x20000, 1000, 2.0f, 8);
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_OK);
		CHECK(r.k->cache.valid);
		/* the same signature, new pointers and a: the cached plan
		 * (no arena block, no plan), every changed value passed on */
		size_t blocks = r.rt->launch_arena.requests;
		axs_args(args, 0x30000, 0x40004, 1000, -0.5f, 8);
		CHECK_INT(ptrt_launch(r.k, args, 4, (ptrt_stream *)0x99), PT_OK);
		CHECK_INT(r.rt->launch_arena.requests, blocks);
		CHECK_INT(fk.launches, 2);
		CHECK_INT(fk.p_ptr, 0x30000);
		CHECK_INT(fk.p_y, 0x40004);
		CHECK(fk.p_alpha == -0.5f);
		CHECK_INT(fk.p_g, 8);
		CHECK_INT(fk.p_n, 1000);
		CHECK_INT(fk.cfg.grid_x, 8);
		CHECK_INT(fk.cfg.block_x, 128);
		CHECK(fk.cfg.stream == (CUstream)0x99);
		CHECK_INT(fk.cfg.num_attrs, 0); /* no cluster attribute */
		/* g binds the grid: a new g is a new plan */
		axs_args(args, 0x30000, 0x40004, 1000, -0.5f, 3);
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_OK);
		CHECK_INT(fk.cfg.grid_x, 3);
		CHECK_INT(fk.p_g, 3);
		/* a new n: the hidden size parameter follows */
		axs_args(args, 0x30000, 0x40004, 4096, -0.5f, 3);
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_OK);
		CHECK_INT(fk.p_n, 4096);
		CHECK_INT(fk.launches, 4);
	}
	axs_close(&r);
}

TEST(rt_launch_cache_still_checks_every_launch)
{
	AxsRig r;
	axs_open(t, &r);
	if (r.k) {
		ptrt_arg args[4];
		axs_args(args, 0x10000, 0x20000, 1000, 2.0f, 8);
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_OK);
		/* after an accepted signature, each fault is still the full
		 * check's, with its message, and nothing reaches the driver */
		axs_args(args, 0x10008, 0x20000, 1000, 2.0f, 8); /* X align 16 */
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_E_RT_ARG_ALIGN);
		CHECK(strstr(ptrt_errmsg(r.rt), "argument 1 (\"X\"): address "
			     "0x10008 is not 16-byte aligned") != NULL);
		axs_args(args, 0x10000, 0, 1000, 2.0f, 8);
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_E_RT_ARG_NULL);
		axs_args(args, 0x10000, 0x20000, 1000, 2.0f, 8);
		args[1].tensor.shape[0] = 999; /* Y's n differs from X's */
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_E_RT_SYM_MISMATCH);
		axs_args(args, 0x10000, 0x20000, 1000, 2.0f, 8);
		args[0].dtype = PTRT_FLOAT16;
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_E_RT_ARG_DTYPE);
		axs_args(args, 0x10000, 0x20000, 1000, 2.0f, 8);
		args[2] = ptrt_arg_f64(2.0);
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_E_RT_ARG_DTYPE);
		axs_args(args, 0x10000, 0x20000, 1000, 2.0f, 8);
		args[3] = ptrt_arg_tensor(0x10000, PTRT_INT32, 0, NULL, NULL);
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_E_RT_ARG_KIND);
		axs_args(args, 0x10000, 0x20000, 1000, 2.0f, 8);
		args[0].tensor.strides[0] = 8;
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_E_RT_ARG_STRIDE);
		axs_args(args, 0x10000, 0x20000, 1000, 2.0f, 0); /* grid 0 */
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_E_RT_LAUNCH_DIMS);
		CHECK_INT(ptrt_launch(r.k, args, 3, NULL), PT_E_RT_ARG_COUNT);
		CHECK_INT(ptrt_launch(r.k, NULL, 4, NULL), PT_E_RT_ARG_COUNT);
		CHECK_INT(fk.launches, 1);
		/* a rejected launch leaves the accepted signature cached */
		CHECK(r.k->cache.valid);
		axs_args(args, 0x50000, 0x60000, 1000, 1.0f, 8);
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_OK);
		CHECK_INT(fk.launches, 2);
		CHECK_INT(fk.p_ptr, 0x50000);
		CHECK_INT(fk.p_n, 1000);
	}
	axs_close(&r);
}

TEST(rt_launch_sets_the_context_only_when_another_is_current)
{
	AxsRig r;
	axs_open(t, &r);
	if (r.k) {
		ptrt_arg args[4];
		axs_args(args, 0x10000, 0x20000, 1000, 2.0f, 8);
		int sets = fk.ctx_sets;
		for (int i = 0; i < 3; i++)
			CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_OK);
		CHECK_INT(fk.ctx_sets, sets); /* ours was current: no set */
		fk.current = NULL;           /* someone else's, or none */
		CHECK_INT(ptrt_launch(r.k, args, 4, NULL), PT_OK);
		CHECK_INT(fk.ctx_sets, sets + 1);
		CHECK(fk.current == r.rt->cuctx);
		CHECK_INT(fk.launches, 4);
	}
	axs_close(&r);
}
