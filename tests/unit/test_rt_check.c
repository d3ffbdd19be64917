/*
 * test_rt_check.c - ptrt_check_launch: the launch checks without a
 * driver report what ptrt_launch would (status and message), for a good
 * call, each kind of bad argument, a kernel the metadata lacks, invalid
 * metadata, and a message buffer too small for the message; and
 * ptrt_plan_launch, the same checks handing out the planned launch.
 */
#include <string.h>

#include "ptxtile_rt.h"
#include "test.h"

/* add(x: f32[n] align 16, y: f32[n], alpha: f32, n: int32 dim) */
static const char chk_meta[] =
	"{\"format\":\"ptxtile-meta\",\"version\":1,\"kernels\":[{"
	"\"name\":\"add\",\"params\":["
	"{\"name\":\"x\",\"kind\":\"tensor\",\"dtype\":\"float32\","
	"\"shape\":[\"n\"],\"align\":16},"
	"{\"name\":\"y\",\"kind\":\"tensor\",\"dtype\":\"float32\","
	"\"shape\":[\"n\", 4]},"
	"{\"name\":\"alpha\",\"kind\":\"scalar\",\"dtype\":\"float32\"},"
	"{\"name\":\"n\",\"kind\":\"dim\",\"var\":\"n\"}],"
	"\"launch\":{\"grid\":[{\"op\":\"ceildiv\",\"args\":[{\"var\":\"n\"},"
	"256]}],\"block\":[256]}}]}";

static int
chk(const ptrt_arg *args, size_t n, char *msg, size_t cap)
{
	return ptrt_check_launch(chk_meta, strlen(chk_meta), "add", args, n,
				 msg, cap);
}

TEST(rt_check_launch_args)
{
	char msg[512];
	int64_t n = 1000, yshape[2] = {1000, 4}, ybad[2] = {999, 4};
	int64_t ystr[2] = {32, 4};
	ptrt_arg ok[] = {ptrt_arg_tensor(0x1000, PTRT_FLOAT32, 1, &n, NULL),
			 ptrt_arg_tensor(0x2000, PTRT_FLOAT32, 2, yshape, NULL),
			 ptrt_arg_f32(2.0f)};
	CHECK_INT(chk(ok, 3, msg, sizeof(msg)), PT_OK);
	CHECK_STR(msg, "");

	CHECK_INT(chk(ok, 2, msg, sizeof(msg)), PT_E_RT_ARG_COUNT);
	CHECK_STR(msg, "kernel \"add\" takes 3 arguments, got 2");

	ptrt_arg a = ok[0];
	ok[0].tensor.ptr = 0x1008;
	CHECK_INT(chk(ok, 3, msg, sizeof(msg)), PT_E_RT_ARG_ALIGN);
	CHECK_STR(msg, "argument 1 (\"x\"): address 0x1008 is not 16-byte "
		       "aligned");
	ok[0] = a;

	ok[1] = ptrt_arg_tensor(0x2000, PTRT_FLOAT32, 2, ybad, NULL);
	CHECK_INT(chk(ok, 3, msg, sizeof(msg)), PT_E_RT_SYM_MISMATCH);
	CHECK(strstr(msg, "symbolic size \"n\" is 1000") != NULL);

	ok[1] = ptrt_arg_tensor(0x2000, PTRT_FLOAT32, 2, yshape, ystr);
	CHECK_INT(chk(ok, 3, msg, sizeof(msg)), PT_E_RT_ARG_STRIDE);
	CHECK(strstr(msg, "argument 2 (\"y\"): dim 0 has stride 32 bytes") !=
	      NULL);

	ok[1] = ptrt_arg_tensor(0x2000, PTRT_FLOAT32, 2, yshape, NULL);
	ok[2] = ptrt_arg_i64(2);
	CHECK_INT(chk(ok, 3, msg, sizeof(msg)), PT_E_RT_ARG_DTYPE);
	CHECK_STR(msg, "argument 3 (\"alpha\"): scalar of int64, the kernel "
		       "needs float32");

	/* the message is cut to the buffer, NUL-terminated */
	CHECK_INT(chk(ok, 3, msg, 9), PT_E_RT_ARG_DTYPE);
	CHECK_STR(msg, "argument");
	CHECK_INT(chk(ok, 3, NULL, 0), PT_E_RT_ARG_DTYPE);
}

TEST(rt_check_launch_meta_and_name)
{
	char msg[512];
	int64_t n = 8;
	ptrt_arg x = ptrt_arg_tensor(0x1000, PTRT_FLOAT32, 1, &n, NULL);
	CHECK_INT(ptrt_check_launch(chk_meta, strlen(chk_meta), "sub", &x, 1,
				    msg, sizeof(msg)),
		  PT_E_RT_NO_KERNEL);
	CHECK_STR(msg, "no kernel \"sub\" in the metadata");
	CHECK_INT(ptrt_check_launch("{\"format\":1}", 12, "add", &x, 1, msg,
				    sizeof(msg)),
		  PT_E_RT_META);
	CHECK(strncmp(msg, "kernel metadata: ", 17) == 0);
	CHECK_INT(ptrt_check_launch(NULL, 0, "add", &x, 1, msg, sizeof(msg)),
		  PT_E_RT_BAD_CALL);
}

/* ptrt_plan_launch: the same checks, then the launch as planned - grid
 * ceil(1000 / 256) = 4, block 256, and per PTX parameter its bytes: the
 * two pointers as given, alpha's f32 bits, n = 1000 as int32 */
TEST(rt_plan_launch)
{
	char msg[512];
	int64_t n = 1000, yshape[2] = {1000, 4};
	ptrt_arg ok[] = {ptrt_arg_tensor(0x1000, PTRT_FLOAT32, 1, &n, NULL),
			 ptrt_arg_tensor(0x2000, PTRT_FLOAT32, 2, yshape, NULL),
			 ptrt_arg_f32(2.0f)};
	ptrt_plan_param params[4];
	ptrt_plan plan = {.nparams = 4, .params = params};
	CHECK_INT(ptrt_plan_launch(chk_meta, strlen(chk_meta), "add", ok, 3,
				   &plan, msg, sizeof(msg)), PT_OK);
	CHECK_INT(plan.nparams, 4);
	CHECK_INT(plan.grid[0], 4);
	CHECK_INT(plan.block[0], 256);
	CHECK_INT(plan.smem, 0);
	uint64_t p0 = 0, p1 = 0;
	float alpha = 0;
	int32_t dim = 0;
	memcpy(&p0, params[0].bytes, 8);
	memcpy(&p1, params[1].bytes, 8);
	memcpy(&alpha, params[2].bytes, 4);
	memcpy(&dim, params[3].bytes, 4);
	CHECK_INT(params[0].size, 8);
	CHECK_INT(params[2].size, 4);
	CHECK_INT(params[3].size, 4);
	CHECK_INT(p0, 0x1000);
	CHECK_INT(p1, 0x2000);
	CHECK(alpha == 2.0f);
	CHECK_INT(dim, 1000);
	CHECK_INT(params[0].is_tma, 0);
	/* a bad argument is the check's status; no room, or no plan, a bad
	 * call */
	CHECK_INT(ptrt_plan_launch(chk_meta, strlen(chk_meta), "add", ok, 2,
				   &plan, msg, sizeof(msg)), PT_E_RT_ARG_COUNT);
	plan.nparams = 3;
	CHECK_INT(ptrt_plan_launch(chk_meta, strlen(chk_meta), "add", ok, 3,
				   &plan, msg, sizeof(msg)), PT_E_RT_BAD_CALL);
	CHECK(strstr(msg, "room for 3 parameters") != NULL);
	CHECK_INT(ptrt_plan_launch(chk_meta, strlen(chk_meta), "add", ok, 3,
				   NULL, msg, sizeof(msg)), PT_E_RT_BAD_CALL);
}
