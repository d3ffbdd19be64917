/*
 * test_rt_launch.c - launch argument validation without a GPU: count,
 * kind, dtype, null pointers, ranks and fixed sizes, alignment, strides,
 * symbolic size binding and the launch dimensions computed from it, each
 * failure with its status code.
 */
#include <stdio.h>
#include <string.h>

#include "rt/rt.h"
#include "test.h"

/* scale(x: f32[n], y: f32[n], alpha: f32, n: int32 dim);
 * grid ceildiv(n, 256), block 256. */
static const char vscale_meta[] =
	"{\"format\":\"ptxtile-meta\",\"version\":1,\"kernels\":[{"
	"\"name\":\"vscale\",\"params\":["
	"{\"name\":\"x\",\"kind\":\"tensor\",\"dtype\":\"float32\","
	"\"shape\":[\"n\"],\"align\":16},"
	"{\"name\":\"y\",\"kind\":\"tensor\",\"dtype\":\"float32\","
	"\"shape\":[\"n\"]},"
	"{\"name\":\"alpha\",\"kind\":\"scalar\",\"dtype\":\"float32\"},"
	"{\"name\":\"n\",\"kind\":\"dim\",\"var\":\"n\"}],"
	"\"launch\":{\"grid\":[{\"op\":\"ceildiv\",\"args\":[{\"var\":\"n\"},"
	"256]}],\"block\":[256],\"cluster\":[2]}},"
	"{\"name\":\"fixed\",\"params\":["
	"{\"name\":\"m\",\"kind\":\"tensor\",\"dtype\":\"int8\","
	"\"shape\":[4, 64]},"
	"{\"name\":\"map\",\"kind\":\"tensormap\"}],"
	"\"launch\":{\"grid\":[3],\"block\":[32],\"cluster\":[2]}}]}";

typedef struct Fixture {
	Arena a;
	RtMeta meta;
	RtStatus st;
	LaunchPlan p;
} Fixture;

static void
fixture_init(Fixture *f)
{
	memset(f, 0, sizeof(*f));
	arena_init(&f->a, NULL);
	if (meta_parse(&f->a, vscale_meta, strlen(vscale_meta), &f->meta,
		       &f->st) != PT_OK)
		fprintf(stderr, "  fixture: %s\n", f->st.msg);
}

static int
plan(Fixture *f, int kernel, const ptrt_arg *args, size_t n)
{
	if (f->meta.nkernels < 2)
		return -1;
	f->st.code = 0;
	f->st.msg[0] = 0;
	return launch_plan(&f->a, &f->meta.kernels[kernel], args, n, &f->p,
			   &f->st);
}

static bool
has(const Fixture *f, const char *want)
{
	if (strstr(f->st.msg, want))
		return true;
	fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", f->st.msg, want);
	return false;
}

TEST(rt_launch_ok)
{
	Fixture f;
	fixture_init(&f);
	int64_t n = 1000;
	ptrt_arg args[] = {
		ptrt_arg_tensor(0x1000, PTRT_FLOAT32, 1, &n, NULL),
		ptrt_arg_tensor(0x2004, PTRT_FLOAT32, 1, &n, NULL),
		ptrt_arg_f32(2.5f),
	};
	CHECK_INT(plan(&f, 0, args, 3), PT_OK);
	CHECK_INT(f.p.vars[0], 1000);
	CHECK_INT(f.p.grid[0], 4); /* ceil(1000 / 256) */
	CHECK_INT(f.p.grid[1], 1);
	CHECK_INT(f.p.block[0], 256);
	CHECK_INT(f.p.cluster[0], 2);
	CHECK_INT(f.p.smem, 0);
	uint64_t ptr;
	memcpy(&ptr, f.p.params[0], 8);
	CHECK(ptr == 0x1000);
	memcpy(&ptr, f.p.params[1], 8);
	CHECK(ptr == 0x2004);
	float alpha;
	memcpy(&alpha, f.p.params[2], 4);
	CHECK(alpha == 2.5f);
	int32_t nn;
	memcpy(&nn, f.p.params[3], 4);
	CHECK_INT(nn, 1000);
	arena_free(&f.a);
}

TEST(rt_launch_arg_errors)
{
	Fixture f;
	fixture_init(&f);
	int64_t n = 1024, n2 = 1000, n2d[2] = {32, 32};
	ptrt_arg x = ptrt_arg_tensor(0x1000, PTRT_FLOAT32, 1, &n, NULL);
	ptrt_arg y = ptrt_arg_tensor(0x2000, PTRT_FLOAT32, 1, &n, NULL);
	ptrt_arg a = ptrt_arg_f32(1.0f);

	ptrt_arg two[] = {x, y};
	CHECK_INT(plan(&f, 0, two, 2), PT_E_RT_ARG_COUNT);
	CHECK(has(&f, "kernel \"vscale\" takes 3 arguments, got 2"));

	ptrt_arg kind[] = {x, a, a};
	CHECK_INT(plan(&f, 0, kind, 3), PT_E_RT_ARG_KIND);
	CHECK(has(&f, "argument 2 (\"y\"): a scalar, the kernel needs a tensor"));

	ptrt_arg f16[] = {x, ptrt_arg_tensor(0x2000, PTRT_FLOAT16, 1, &n, NULL),
			  a};
	CHECK_INT(plan(&f, 0, f16, 3), PT_E_RT_ARG_DTYPE);
	CHECK(has(&f, "tensor of float16, the kernel needs float32"));

	ptrt_arg sdt[] = {x, y, ptrt_arg_i32(1)};
	CHECK_INT(plan(&f, 0, sdt, 3), PT_E_RT_ARG_DTYPE);
	CHECK(has(&f, "argument 3 (\"alpha\"): scalar of int32"));

	ptrt_arg null[] = {ptrt_arg_tensor(0, PTRT_FLOAT32, 1, &n, NULL), y, a};
	CHECK_INT(plan(&f, 0, null, 3), PT_E_RT_ARG_NULL);
	CHECK(has(&f, "argument 1 (\"x\"): null device pointer"));

	ptrt_arg mism[] = {x,
			   ptrt_arg_tensor(0x2000, PTRT_FLOAT32, 1, &n2, NULL),
			   a};
	CHECK_INT(plan(&f, 0, mism, 3), PT_E_RT_SYM_MISMATCH);
	CHECK(has(&f, "symbolic size \"n\" is 1024 from argument 1 dim 0 but "
		      "1000 from argument 2 (\"y\") dim 0"));

	ptrt_arg rank[] = {x,
			   ptrt_arg_tensor(0x2000, PTRT_FLOAT32, 2, n2d, NULL),
			   a};
	CHECK_INT(plan(&f, 0, rank, 3), PT_E_RT_ARG_SHAPE);
	CHECK(has(&f, "rank 2, the kernel needs rank 1"));

	/* x requires 16-byte alignment (align 16); y only 4. */
	ptrt_arg mis[] = {ptrt_arg_tensor(0x1004, PTRT_FLOAT32, 1, &n, NULL),
			  y, a};
	CHECK_INT(plan(&f, 0, mis, 3), PT_E_RT_ARG_ALIGN);
	CHECK(has(&f, "address 0x1004 is not 16-byte aligned"));
	ptrt_arg mis2[] = {x, ptrt_arg_tensor(0x2002, PTRT_FLOAT32, 1, &n,
					      NULL), a};
	CHECK_INT(plan(&f, 0, mis2, 3), PT_E_RT_ARG_ALIGN);

	int64_t st8 = 8;
	ptrt_arg strided[] = {x, ptrt_arg_tensor(0x2000, PTRT_FLOAT32, 1, &n,
						 &st8), a};
	CHECK_INT(plan(&f, 0, strided, 3), PT_E_RT_ARG_STRIDE);
	CHECK(has(&f, "stride 8 bytes; the kernel needs a dense row-major"));

	ptrt_arg bad_rank = ptrt_arg_tensor(0x1000, PTRT_FLOAT32, 9, n2d, NULL);
	ptrt_arg r9[] = {bad_rank, y, a};
	CHECK_INT(plan(&f, 0, r9, 3), PT_E_RT_ARG_SHAPE);
	arena_free(&f.a);
}

TEST(rt_launch_fixed_and_map)
{
	Fixture f;
	fixture_init(&f);
	int64_t good[2] = {4, 64}, bad[2] = {4, 63};
	_Alignas(64) unsigned char map[128];
	memset(map, 0x5a, sizeof(map));
	ptrt_arg ok[] = {ptrt_arg_tensor(0x100, PTRT_INT8, 2, good, NULL),
			 ptrt_arg_tensormap(map)};
	/* grid 3 is not a multiple of cluster 2 */
	CHECK_INT(plan(&f, 1, ok, 2), PT_E_RT_LAUNCH_DIMS);
	CHECK(has(&f, "grid.x = 3 is not a multiple of cluster.x = 2"));
	ptrt_arg wrong[] = {ptrt_arg_tensor(0x100, PTRT_INT8, 2, bad, NULL),
			    ptrt_arg_tensormap(map)};
	CHECK_INT(plan(&f, 1, wrong, 2), PT_E_RT_ARG_SHAPE);
	CHECK(has(&f, "dim 1 is 63, the kernel needs 64"));
	ptrt_arg nomap[] = {ptrt_arg_tensor(0x100, PTRT_INT8, 2, good, NULL),
			    ptrt_arg_tensormap(NULL)};
	CHECK_INT(plan(&f, 1, nomap, 2), PT_E_RT_ARG_NULL);
	CHECK(has(&f, "null tensor map pointer"));
	arena_free(&f.a);
}

TEST(rt_launch_dim_range)
{
	Fixture f;
	fixture_init(&f);
	/* n = 2^31 does not fit the int32 dim parameter. */
	int64_t n = (int64_t)1 << 31;
	ptrt_arg args[] = {
		ptrt_arg_tensor(0x1000, PTRT_FLOAT32, 1, &n, NULL),
		ptrt_arg_tensor(0x2000, PTRT_FLOAT32, 1, &n, NULL),
		ptrt_arg_f32(1.0f),
	};
	CHECK_INT(plan(&f, 0, args, 3), PT_E_RT_DIM_RANGE);
	CHECK(has(&f, "symbolic size \"n\" = 2147483648 does not fit parameter "
		      "\"n\" of type int32"));
	/* n = 0 gives grid.x = 0, which cannot be launched. */
	int64_t zero = 0;
	args[0] = ptrt_arg_tensor(0x1000, PTRT_FLOAT32, 1, &zero, NULL);
	args[1] = ptrt_arg_tensor(0x2000, PTRT_FLOAT32, 1, &zero, NULL);
	CHECK_INT(plan(&f, 0, args, 3), PT_E_RT_LAUNCH_DIMS);
	CHECK(has(&f, "grid.x is 0"));
	arena_free(&f.a);
}

/* persist(x: f32[n], sms: int32, big: uint64), grid min(sms,
 * ceildiv(n, 128)): an integer scalar named by the launch expressions
 * (the persistent kernels' CTA count) is bound from its value. */
static const char persist_meta[] =
	"{\"format\":\"ptxtile-meta\",\"version\":1,\"kernels\":[{"
	"\"name\":\"persist\",\"params\":["
	"{\"name\":\"x\",\"kind\":\"tensor\",\"dtype\":\"float32\","
	"\"shape\":[\"n\"]},"
	"{\"name\":\"sms\",\"kind\":\"scalar\",\"dtype\":\"int32\"},"
	"{\"name\":\"big\",\"kind\":\"scalar\",\"dtype\":\"uint64\"}],"
	"\"launch\":{\"grid\":[{\"op\":\"min\",\"args\":[{\"var\":\"sms\"},"
	"{\"op\":\"ceildiv\",\"args\":[{\"var\":\"n\"},128]}]},"
	"{\"op\":\"add\",\"args\":[{\"var\":\"big\"},0]}],\"block\":[384]}}]}";

TEST(rt_launch_scalar_in_grid)
{
	Fixture f;
	memset(&f, 0, sizeof(f));
	arena_init(&f.a, NULL);
	CHECK_INT(meta_parse(&f.a, persist_meta, strlen(persist_meta),
			     &f.meta, &f.st), PT_OK);
	int64_t n = 1000;
	ptrt_arg args[] = {ptrt_arg_tensor(0x1000, PTRT_FLOAT32, 1, &n, NULL),
			   ptrt_arg_i32(5), ptrt_arg_u64(3)};
	const RtKernelMeta *k = &f.meta.kernels[0];
	CHECK_INT(launch_plan(&f.a, k, args, 3, &f.p, &f.st), PT_OK);
	CHECK_INT(f.p.grid[0], 5); /* min(5, ceil(1000 / 128) = 8) */
	CHECK_INT(f.p.grid[1], 3);
	args[1] = ptrt_arg_i32(132);
	CHECK_INT(launch_plan(&f.a, k, args, 3, &f.p, &f.st), PT_OK);
	CHECK_INT(f.p.grid[0], 8);
	int32_t sms;
	memcpy(&sms, f.p.params[1], 4); /* still passed to the kernel */
	CHECK_INT(sms, 132);
	args[1] = ptrt_arg_i32(-1);
	CHECK_INT(launch_plan(&f.a, k, args, 3, &f.p, &f.st),
		  PT_E_RT_LAUNCH_DIMS);
	args[1] = ptrt_arg_i32(4);
	args[2] = ptrt_arg_u64(UINT64_MAX);
	CHECK_INT(launch_plan(&f.a, k, args, 3, &f.p, &f.st),
		  PT_E_RT_DIM_RANGE);
	CHECK(has(&f, "argument 3 (\"big\"): 18446744073709551615 does not "
		      "fit"));
	arena_free(&f.a);
}

TEST(rt_launch_scalar_size_mismatch)
{
	/* a scalar "n" and the size "n" of x are one value */
	static const char meta[] =
		"{\"format\":\"ptxtile-meta\",\"version\":1,\"kernels\":[{"
		"\"name\":\"k\",\"params\":["
		"{\"name\":\"x\",\"kind\":\"tensor\",\"dtype\":\"float32\","
		"\"shape\":[\"n\"]},"
		"{\"name\":\"n\",\"kind\":\"scalar\",\"dtype\":\"int64\"}],"
		"\"launch\":{\"grid\":[{\"var\":\"n\"}],\"block\":[32]}}]}";
	Fixture f;
	memset(&f, 0, sizeof(f));
	arena_init(&f.a, NULL);
	CHECK_INT(meta_parse(&f.a, meta, strlen(meta), &f.meta, &f.st), PT_OK);
	int64_t n = 1000;
	ptrt_arg args[] = {ptrt_arg_tensor(0x1000, PTRT_FLOAT32, 1, &n, NULL),
			   ptrt_arg_i64(1000)};
	CHECK_INT(launch_plan(&f.a, &f.meta.kernels[0], args, 2, &f.p, &f.st),
		  PT_OK);
	CHECK_INT(f.p.grid[0], 1000);
	args[1] = ptrt_arg_i64(999);
	CHECK_INT(launch_plan(&f.a, &f.meta.kernels[0], args, 2, &f.p, &f.st),
		  PT_E_RT_SYM_MISMATCH);
	CHECK(has(&f, "argument 2 (\"n\") is 999, but size \"n\" is 1000 "
		      "from argument 1"));
	arena_free(&f.a);
	/* the scalar first: the tensor's size disagrees with it */
	static const char meta2[] =
		"{\"format\":\"ptxtile-meta\",\"version\":1,\"kernels\":[{"
		"\"name\":\"k\",\"params\":["
		"{\"name\":\"n\",\"kind\":\"scalar\",\"dtype\":\"int32\"},"
		"{\"name\":\"x\",\"kind\":\"tensor\",\"dtype\":\"float32\","
		"\"shape\":[\"n\"]}],"
		"\"launch\":{\"grid\":[{\"var\":\"n\"}],\"block\":[32]}}]}";
	memset(&f, 0, sizeof(f));
	arena_init(&f.a, NULL);
	CHECK_INT(meta_parse(&f.a, meta2, strlen(meta2), &f.meta, &f.st), PT_OK);
	ptrt_arg args2[] = {ptrt_arg_i32(7),
			    ptrt_arg_tensor(0x1000, PTRT_FLOAT32, 1, &n, NULL)};
	CHECK_INT(launch_plan(&f.a, &f.meta.kernels[0], args2, 2, &f.p, &f.st),
		  PT_E_RT_SYM_MISMATCH);
	CHECK(has(&f, "symbolic size \"n\" is 7 from scalar argument 1 but "
		      "1000 from argument 2 (\"x\") dim 0"));
	arena_free(&f.a);
}
