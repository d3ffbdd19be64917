/*
 * test_rt_tma.c - cuTensorMapEncodeTiled arguments computed from a tensor
 * map slot and a tensor argument, checked against values worked out by
 * hand from the driver documentation (ptx_facts.md §4.2): dims and byte
 * strides innermost first, dim 0's stride implicit, the limit checks with
 * their status codes, and the §8 driver workaround (bit 85 = bit 21 of
 * the second 64-bit word, for tensors under 128 KiB on drivers <= 13.1).
 */
#include <string.h>

#include "rt/rt.h"
#include "test.h"

static TmaSlot
slot2d_f16(uint32_t box_inner, uint32_t box_outer, int swizzle)
{
	TmaSlot s;
	memset(&s, 0, sizeof(s));
	s.tensor = 0;
	s.rank = 2;
	s.box[0] = box_inner;
	s.box[1] = box_outer;
	s.elem_strides[0] = s.elem_strides[1] = 1;
	s.format = TMA_FLOAT16;
	s.swizzle = swizzle;
	s.l2_promotion = 2;
	return s;
}

/* A 512 x 1024 row-major float16 matrix at 0x10000: rows of 2048 bytes. */
static ptrt_arg
matrix_f16(uint64_t ptr)
{
	int64_t shape[2] = {512, 1024};
	return ptrt_arg_tensor(ptr, PTRT_FLOAT16, 2, shape, NULL);
}

TEST(rt_tma_2d_f16_swizzle128)
{
	TmaSlot s = slot2d_f16(64, 64, 3);
	ptrt_arg ta = matrix_f16(0x10000);
	TmaEncode e;
	RtStatus st = {0};
	CHECK_INT(tma_compute(&s, "tmA", &ta, &e, &st), PT_OK);
	CHECK_INT(e.format, 6); /* CU_TENSOR_MAP_DATA_TYPE_FLOAT16 */
	CHECK_INT(e.rank, 2);
	CHECK(e.addr == 0x10000);
	CHECK_INT(e.dims[0], 1024); /* innermost first */
	CHECK_INT(e.dims[1], 512);
	CHECK_INT(e.strides[0], 2048); /* 1024 * 2 bytes: dim 1 */
	CHECK_INT(e.box[0], 64);
	CHECK_INT(e.box[1], 64);
	CHECK_INT(e.elem_strides[0], 1);
	CHECK_INT(e.elem_strides[1], 1);
	CHECK_INT(e.interleave, 0);
	CHECK_INT(e.swizzle, 3);
	CHECK_INT(e.l2_promotion, 2);
	CHECK_INT(e.oob_fill, 0);
	/* (1024-1)*2 + (512-1)*2048 */
	CHECK_INT(e.max_byte_index, 1048574);
	CHECK(!tma_needs_bit85_fix(12080, &e));
}

TEST(rt_tma_3d_padded_f32)
{
	/* shape [4, 8, 32] float32 with a 160-byte row pitch and 1280-byte
	 * plane pitch (padded): strides [1280, 160, 4]. */
	int64_t shape[3] = {4, 8, 32}, strides[3] = {1280, 160, 4};
	ptrt_arg ta = ptrt_arg_tensor(0x20000, PTRT_FLOAT32, 3, shape,
				     strides);
	TmaSlot s;
	memset(&s, 0, sizeof(s));
	s.rank = 3;
	s.box[0] = 32;
	s.box[1] = 8;
	s.box[2] = 1;
	s.elem_strides[0] = s.elem_strides[1] = s.elem_strides[2] = 1;
	s.format = TMA_FLOAT32;
	s.oob_fill = 1;
	TmaEncode e;
	RtStatus st = {0};
	CHECK_INT(tma_compute(&s, "m", &ta, &e, &st), PT_OK);
	CHECK_INT(e.format, 7);
	CHECK_INT(e.dims[0], 32);
	CHECK_INT(e.dims[1], 8);
	CHECK_INT(e.dims[2], 4);
	CHECK_INT(e.strides[0], 160);
	CHECK_INT(e.strides[1], 1280);
	CHECK_INT(e.oob_fill, 1);
	/* 31*4 + 7*160 + 3*1280 = 5084 < 128 KiB - 1 */
	CHECK_INT(e.max_byte_index, 5084);
	CHECK(tma_needs_bit85_fix(12080, &e));
	CHECK(tma_needs_bit85_fix(13010, &e));
	CHECK(!tma_needs_bit85_fix(13020, &e));
	CHECK(tma_needs_bit85_fix(0, &e)); /* unknown version: apply */
}

TEST(rt_tma_bit85)
{
	CUtensorMap m;
	memset(&m, 0xff, sizeof(m));
	tma_clear_bit85(&m);
	CHECK(m.opaque[0] == UINT64_MAX);
	CHECK(m.opaque[1] == ~((uint64_t)1 << 21));
	CHECK(m.opaque[2] == UINT64_MAX);
	CHECK(((uintptr_t)&m) % 64 == 0);
	CHECK_INT(sizeof(CUtensorMap), 128);
}

static int
compute_code(const TmaSlot *s, const ptrt_arg *t, const char *want)
{
	TmaEncode e;
	RtStatus st = {0};
	int rc = tma_compute(s, "tm", t, &e, &st);
	if (want && !strstr(st.msg, want))
		return -1;
	return rc;
}

TEST(rt_tma_limits)
{
	TmaSlot s = slot2d_f16(64, 64, 3);
	ptrt_arg ta = matrix_f16(0x10008);
	CHECK_INT(compute_code(&s, &ta, "not 16-byte aligned"),
		  PT_E_RT_ARG_ALIGN);
	/* Row pitch 2040 bytes is not a multiple of 16. */
	int64_t shape[2] = {512, 1020}, bad_pitch[2] = {2040, 2};
	ta = ptrt_arg_tensor(0x10000, PTRT_FLOAT16, 2, shape, bad_pitch);
	CHECK_INT(compute_code(&s, &ta, "multiple of 16"), PT_E_RT_ARG_STRIDE);
	/* Column-major: the innermost stride is not the element size. */
	int64_t colmajor[2] = {2, 1024};
	ta = ptrt_arg_tensor(0x10000, PTRT_FLOAT16, 2, shape, colmajor);
	CHECK_INT(compute_code(&s, &ta, "element size (2)"),
		  PT_E_RT_ARG_STRIDE);
	/* Stride at 2^40 is over the limit. */
	int64_t huge[2] = {(int64_t)1 << 40, 2};
	ta = ptrt_arg_tensor(0x10000, PTRT_FLOAT16, 2, shape, huge);
	CHECK_INT(compute_code(&s, &ta, "below 2^40"), PT_E_RT_ARG_STRIDE);
	/* 64 f16 = 128 bytes is wider than the 64B swizzle span. */
	ta = matrix_f16(0x10000);
	s = slot2d_f16(64, 64, 2);
	CHECK_INT(compute_code(&s, &ta, "64-byte swizzle span"),
		  PT_E_RT_TMA_LIMIT);
	/* 4 f16 = 8 bytes: the inner box is not a multiple of 16 bytes. */
	s = slot2d_f16(4, 64, 0);
	CHECK_INT(compute_code(&s, &ta, "multiple of 16 bytes"),
		  PT_E_RT_TMA_LIMIT);
	s = slot2d_f16(64, 64, 0);
	s.format = TMA_INT32;
	CHECK_INT(compute_code(&s, &ta, "32-bit elements"), PT_E_RT_TMA_LIMIT);
	/* A dim over 2^32 elements. */
	int64_t wide[2] = {1, ((int64_t)1 << 32) + 16};
	ta = ptrt_arg_tensor(0x10000, PTRT_FLOAT16, 2, wide, NULL);
	s = slot2d_f16(64, 1, 0);
	CHECK_INT(compute_code(&s, &ta, "outside [1, 2^32]"), PT_E_RT_TMA_LIMIT);
	/* NaN fill is for floating formats only. */
	int64_t ishape[2] = {16, 16};
	ta = ptrt_arg_tensor(0x10000, PTRT_INT32, 2, ishape, NULL);
	s = slot2d_f16(16, 16, 0);
	s.format = TMA_INT32;
	s.oob_fill = 1;
	CHECK_INT(compute_code(&s, &ta, "floating-point"), PT_E_RT_TMA_LIMIT);
}

/* The slot-level interleave rules: rank >= 3, and 32B interleave needs
 * the 32B swizzle and a 32-byte aligned address. */
TEST(rt_tma_interleave32_needs_32b)
{
	/* rank 3 float16 [8, 16, 32] dense: strides [1024, 64, 2]. */
	int64_t shape[3] = {8, 16, 32};
	ptrt_arg ta = ptrt_arg_tensor(0x10010, PTRT_FLOAT16, 3, shape, NULL);
	TmaSlot s;
	memset(&s, 0, sizeof(s));
	s.rank = 3;
	s.box[0] = 16;
	s.box[1] = s.box[2] = 1;
	s.elem_strides[0] = s.elem_strides[1] = s.elem_strides[2] = 1;
	s.format = TMA_FLOAT16;
	s.interleave = 2;
	s.swizzle = 1;
	/* 0x10010 is 16- but not 32-byte aligned. */
	CHECK_INT(compute_code(&s, &ta, "32-byte aligned"), PT_E_RT_ARG_ALIGN);
	ta.tensor.ptr = 0x10020;
	CHECK_INT(compute_code(&s, &ta, NULL), PT_OK);
	s.swizzle = 3;
	CHECK_INT(compute_code(&s, &ta, "needs the 32B swizzle"),
		  PT_E_RT_TMA_LIMIT);
	/* rank 2 interleaved */
	int64_t mshape[2] = {16, 32};
	ptrt_arg tm = ptrt_arg_tensor(0x10020, PTRT_FLOAT16, 2, mshape, NULL);
	s.rank = 2;
	s.swizzle = 1;
	CHECK_INT(compute_code(&s, &tm, "rank >= 3"), PT_E_RT_TMA_LIMIT);
}

/* A region of the 512 x 1024 float16 matrix: rows 8..39, columns
 * 32..95 (origin innermost first (32, 8), extents (64, 32)).  The map
 * starts at 0x10000 + 8 * 2048 + 32 * 2 = 0x14040 with dims (64, 32) and
 * the tensor's row stride 2048; the largest byte index is
 * 63 * 2 + 31 * 2048 = 63614 (under 128 KiB: the bit-85 fix applies). */
TEST(rt_tma_region)
{
	TmaSlot s = slot2d_f16(64, 16, 0);
	s.region = true;
	s.region_origin[0] = 32;
	s.region_origin[1] = 8;
	s.region_extent[0] = 64;
	s.region_extent[1] = 32;
	ptrt_arg ta = matrix_f16(0x10000);
	TmaEncode e;
	RtStatus st = {0};
	CHECK_INT(tma_compute(&s, "tmA", &ta, &e, &st), PT_OK);
	CHECK(e.addr == 0x14040);
	CHECK_INT(e.dims[0], 64);
	CHECK_INT(e.dims[1], 32);
	CHECK_INT(e.strides[0], 2048);
	CHECK_INT(e.max_byte_index, 63614);
	CHECK(tma_needs_bit85_fix(12080, &e));
	/* extent 0: to the end of the dim (rows 500..511 -> 12 rows) */
	s.region_origin[1] = 500;
	s.region_extent[1] = 0;
	CHECK_INT(tma_compute(&s, "tmA", &ta, &e, &st), PT_OK);
	CHECK(e.addr == 0x10000 + 500 * 2048 + 64);
	CHECK_INT(e.dims[1], 12);
	/* past the tensor: rows 500..531 */
	s.region_extent[1] = 32;
	CHECK_INT(tma_compute(&s, "tmA", &ta, &e, &st), PT_E_RT_TMA_LIMIT);
	/* an inner origin of 4 elements (8 bytes) breaks the 16-byte
	 * address alignment */
	s.region_origin[1] = 8;
	s.region_origin[0] = 4;
	CHECK_INT(tma_compute(&s, "tmA", &ta, &e, &st), PT_E_RT_ARG_ALIGN);
}

/* An interleaved (16B) uint16 tensor written (N, C_slices, W, Ci) = (2,
 * 4, 64, 8) at 0x20000, dense: byte strides (4096, 1024, 16, 2).  The
 * rank-3 map takes the Ci slice (8 x 2 = 16 bytes) as its unit: dims
 * innermost first (64, 4, 2), strides (1024, 4096); the largest byte
 * index is 63 * 16 + 3 * 1024 + 1 * 4096 = 8176. */
TEST(rt_tma_interleave_slice_axis)
{
	int64_t shape[4] = {2, 4, 64, 8};
	ptrt_arg ta = ptrt_arg_tensor(0x20000, PTRT_UINT16, 4, shape, NULL);
	TmaSlot s;
	memset(&s, 0, sizeof(s));
	s.rank = 3;
	s.box[0] = 8;
	s.box[1] = s.box[2] = 1;
	s.elem_strides[0] = s.elem_strides[1] = s.elem_strides[2] = 1;
	s.format = TMA_UINT16;
	s.interleave = 1;
	TmaEncode e;
	RtStatus st = {0};
	CHECK_INT(tma_compute(&s, "tmA", &ta, &e, &st), PT_OK);
	CHECK_INT(e.rank, 3);
	CHECK(e.addr == 0x20000);
	CHECK_INT(e.dims[0], 64);
	CHECK_INT(e.dims[1], 4);
	CHECK_INT(e.dims[2], 2);
	CHECK_INT(e.strides[0], 1024);
	CHECK_INT(e.strides[1], 4096);
	CHECK_INT(e.interleave, 1);
	CHECK_INT(e.max_byte_index, 8176);
	/* a Ci axis of 4 elements (8 bytes) is not a 16-byte slice */
	int64_t narrow[4] = {2, 4, 64, 4};
	ptrt_arg tb = ptrt_arg_tensor(0x20000, PTRT_UINT16, 4, narrow, NULL);
	CHECK_INT(tma_compute(&s, "tmA", &tb, &e, &st), PT_E_RT_ARG_STRIDE);
	/* a Ci extent of 8 + 2^60 elements: 16 bits each wraps to 128 bits
	 * in 64-bit arithmetic; refused, not taken for a 16-byte slice */
	int64_t wrap[4] = {2, 4, 64, 8 + ((int64_t)1 << 60)};
	int64_t wrap_st[4] = {4096, 1024, 16, 2};
	ptrt_arg tw = ptrt_arg_tensor(0x20000, PTRT_UINT16, 4, wrap, wrap_st);
	CHECK_INT(tma_compute(&s, "tmA", &tw, &e, &st), PT_E_RT_ARG_STRIDE);
	/* Ci elements 4 bytes apart are not a dense slice */
	int64_t gap_st[4] = {4096, 1024, 16, 4};
	ptrt_arg tg = ptrt_arg_tensor(0x20000, PTRT_UINT16, 4, shape, gap_st);
	CHECK_INT(tma_compute(&s, "tmA", &tg, &e, &st), PT_E_RT_ARG_STRIDE);
	/* 32B interleave wants a 32-byte slice */
	s.interleave = 2;
	s.swizzle = 1;
	CHECK_INT(tma_compute(&s, "tmA", &ta, &e, &st), PT_E_RT_ARG_STRIDE);
	/* no region with the slice axis */
	s.interleave = 1;
	s.swizzle = 0;
	s.region = true;
	s.region_extent[0] = 1;
	CHECK_INT(tma_compute(&s, "tmA", &ta, &e, &st), PT_E_RT_TMA_LIMIT);
}
