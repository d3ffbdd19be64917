/*
 * test_tile_tma.c - TMA tile calls through the whole host path without a
 * GPU: script -> PTX + metadata (the compiler's tensor-map slots) -> the
 * runtime's metadata reader -> the cuTensorMapEncodeTiled arguments for a
 * concrete tensor argument.  Expected values are worked out by hand from
 * docs/metadata.md and the driver documentation (ptx_facts.md §4.2): the
 * slot lists box and element strides outermost first, the driver takes
 * them innermost first; dims innermost first; byte strides of dims
 * 1..rank-1; enum values FLOAT16 = 6, FLOAT32 = 7, TFLOAT32 = 11,
 * 16U4_ALIGN16B = 14; swizzle 128B = 3, L2 promotion 256B = 3.
 */
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "ptxtile.h"
#include "rt/rt.h"

typedef struct Out {
	pt_ctx *ctx;
	const char *ptx, *meta;
	int rc;
} Out;

static void
compile(Out *o, const char *src, const char *target)
{
	pt_module *m = NULL;
	memset(o, 0, sizeof(*o));
	o->ctx = pt_ctx_new(NULL);
	o->rc = pt_load(o->ctx, "t.py", src, strlen(src), &m);
	if (o->rc == PT_OK)
		o->rc = pt_compile(o->ctx, m, target, &o->ptx, &o->meta);
}

/* First diagnostic code of a failed compile (0 when it compiled). */
static int
first_code(const char *src, const char *target)
{
	Out o;
	compile(&o, src, target);
	int code = o.rc == PT_OK ? 0 : pt_diag_code(o.ctx, 0);
	pt_ctx_free(o.ctx);
	return code;
}

static const char src_slots[] =
	"from tvm_tirx.script import tirx as T\n"
	"m = T.dynamic(\"m\")\n"
	"@T.function\n"
	"def k(A: T.Tensor((m, 256), \"float16\", align=16), n: T.int32):\n"
	"    T.device_entry(launch=T.cuda.LaunchConfig(grid=m, block=32))\n"
	"    s = T.alloc_shared((2, 32, 64), \"float16\", layout="
	"T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(2, 32, 64):(2048, 64, 1)]))"
	", align=1024)\n"
	"    b = T.alloc_shared((1,), \"uint64\", align=8)\n"
	"    T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.shared::cta."
	"global.tile.mbarrier::complete_tx::bytes\"], s, A, box=(32, 64), "
	"coords=(n, 0), coord_steps=((0, 64),), swizzle=3, l2_promotion=3, "
	"mbar=b.ptr_to([0]))\n"
	"    T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.shared::cta."
	"global.tile.mbarrier::complete_tx::bytes\"], s.sub[0, :, :], A, "
	"box=(32, 64), coords=(0, n), swizzle=3, l2_promotion=3, "
	"mbar=b.ptr_to([0]))\n"
	"    T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.global."
	"shared::cta.tile.bulk_group\"], A, s.sub[1, 0:16, :], box=(16, 64), "
	"coords=(n, 64), swizzle=3)\n";

/* Two loads with equal fields share one map; the store's box differs. */
TEST(tile_tma_slot_metadata)
{
	Out o;
	compile(&o, src_slots, "sm_90a");
	CHECK_INT(o.rc, PT_OK);
	if (o.rc != PT_OK) {
		pt_ctx_free(o.ctx);
		return;
	}
	/* parameters: user A, n; maps A_tmap, A_tmap1; then the size m */
	const char *pa = strstr(o.ptx, ".param .u64 k_A,");
	const char *pn = strstr(o.ptx, ".param .s32 k_n,");
	const char *p0 = strstr(o.ptx, ".param .align 64 .b8 k_A_tmap[128],");
	const char *p1 = strstr(o.ptx, ".param .align 64 .b8 k_A_tmap1[128],");
	const char *pm = strstr(o.ptx, ".param .s32 k_m$dim");
	CHECK(pa && pn && p0 && p1 && pm);
	CHECK(pa < pn && pn < p0 && p0 < p1 && p1 < pm);
	/* loads: 2 + 1 issues, on the first map; the store on the second */
	const char *ld = "cp.async.bulk.tensor.2d.shared::cta.global.tile."
			 "mbarrier::complete_tx::bytes [";
	int nld = 0;
	for (const char *p = o.ptx; (p = strstr(p, ld)); p++)
		nld++;
	CHECK_INT(nld, 3);
	CHECK(strstr(o.ptx, "cp.async.bulk.tensor.2d.global.shared::cta.tile."
			    "bulk_group [") != NULL);
	/* the store's image is s[1, 0:16, :]: byte 4096 of s */
	CHECK(strstr(o.ptx, "], [smem_s+4096];") != NULL);

	Arena a;
	arena_init(&a, NULL);
	RtMeta meta;
	RtStatus st = {0};
	CHECK_INT(meta_parse(&a, o.meta, strlen(o.meta), &meta, &st), PT_OK);
	CHECK_INT((int)meta.nkernels, 1);
	const RtKernelMeta *km = &meta.kernels[0];
	CHECK_INT((int)km->nparams, 5);
	CHECK_INT((int)km->nargs, 2);
	CHECK_INT(km->params[2].kind, RP_TMA);
	CHECK_INT(km->params[3].kind, RP_TMA);
	CHECK_INT(km->params[4].kind, RP_DIM);
	const TmaSlot *s0 = &km->params[2].tma;
	const TmaSlot *s1 = &km->params[3].tma;
	CHECK_INT(s0->tensor, 0);
	CHECK_INT(s0->rank, 2);
	CHECK_INT(s0->box[0], 64); /* innermost first */
	CHECK_INT(s0->box[1], 32);
	CHECK_INT(s0->elem_strides[0], 1);
	CHECK_INT(s0->format, 6);
	CHECK_INT(s0->swizzle, 3);
	CHECK_INT(s0->l2_promotion, 3);
	CHECK_INT(s0->interleave, 0);
	CHECK_INT(s0->oob_fill, 0);
	CHECK_INT(s1->box[1], 16);
	CHECK_INT(s1->swizzle, 3);
	CHECK_INT(s1->l2_promotion, 0);

	/* a 300 x 256 float16 tensor with a 1024-byte row pitch */
	int64_t shape[2] = {300, 256}, strides[2] = {1024, 2};
	ptrt_arg ta = ptrt_arg_tensor(0x200000, PTRT_FLOAT16, 2, shape, strides);
	TmaEncode e;
	CHECK_INT(tma_compute(s0, "A_tmap", &ta, &e, &st), PT_OK);
	CHECK_INT(e.dims[0], 256);
	CHECK_INT(e.dims[1], 300);
	CHECK_INT(e.strides[0], 1024);
	CHECK_INT(e.box[0], 64);
	CHECK_INT(e.box[1], 32);
	CHECK_INT(e.swizzle, 3);
	/* (256 - 1) * 2 + (300 - 1) * 1024 */
	CHECK_INT(e.max_byte_index, 306686);
	arena_free(&a);
	pt_ctx_free(o.ctx);
}

/* tf32 over float32, element strides, NaN fill, packed FP4. */
TEST(tile_tma_slot_formats)
{
	static const char src[] =
		"from tvm_tirx.script import tirx as T\n"
		"@T.function\n"
		"def k(X: T.Tensor((8, 64, 32), \"float32\", align=16), "
		"F: T.Tensor((64, 256), \"float4_e2m1fn\", align=32)):\n"
		"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, "
		"block=32))\n"
		"    s = T.alloc_shared((1, 8, 32), \"float32\", align=128)\n"
		"    f = T.alloc_shared((4, 128), \"uint8\", align=128)\n"
		"    b = T.alloc_shared((1,), \"uint64\", align=8)\n"
		"    T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.3d."
		"shared::cta.global.tile.mbarrier::complete_tx::bytes\"], s, X, "
		"box=(1, 16, 32), coords=(0, 0, 0), element_strides=(1, 2, 1), "
		"format=\"tf32\", oob_fill=1, mbar=b.ptr_to([0]))\n"
		"    T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d."
		"shared::cta.global.tile.mbarrier::complete_tx::bytes\"], f, F, "
		"box=(4, 128), coords=(0, 0), format=\"float4_e2m1fn\", "
		"mbar=b.ptr_to([0]))\n";
	Out o;
	compile(&o, src, "sm_90a");
	CHECK_INT(o.rc, PT_OK);
	if (o.rc != PT_OK) {
		pt_ctx_free(o.ctx);
		return;
	}
	CHECK(strstr(o.meta, "\"element_strides\": [1, 2, 1], \"format\": "
			     "\"tf32\"") != NULL);
	CHECK(strstr(o.meta, "\"oob_fill\": \"nan\"") != NULL);
	CHECK(strstr(o.meta, "\"format\": \"16u4_align16b\"") != NULL);
	Arena a;
	arena_init(&a, NULL);
	RtMeta meta;
	RtStatus st = {0};
	CHECK_INT(meta_parse(&a, o.meta, strlen(o.meta), &meta, &st), PT_OK);
	const RtKernelMeta *km = &meta.kernels[0];
	CHECK_INT((int)km->nparams, 4);
	CHECK_INT(km->params[2].tma.format, 11);
	CHECK_INT(km->params[2].tma.elem_strides[1], 2);
	CHECK_INT(km->params[2].tma.oob_fill, 1);
	CHECK_INT(km->params[3].tma.format, 14);
	CHECK_INT(km->params[3].tma.box[0], 128);
	arena_free(&a);
	pt_ctx_free(o.ctx);
}

/* A T.TensorMap operand is the caller's: no slot, no hidden param. */
TEST(tile_tma_caller_map)
{
	static const char src[] =
		"from tvm_tirx.script import tirx as T\n"
		"@T.function\n"
		"def k(M: T.TensorMap()):\n"
		"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, "
		"block=32))\n"
		"    s = T.alloc_shared((16, 32), \"float32\", align=128)\n"
		"    T.cuda.tile.apply(T.ptx[\"cp.reduce.async.bulk.tensor.2d."
		"global.shared::cta.add.tile.bulk_group\"], M, s, box=(16, 32), "
		"coords=(4, 8))\n";
	Out o;
	compile(&o, src, "sm_90a");
	CHECK_INT(o.rc, PT_OK);
	if (o.rc == PT_OK) {
		CHECK(strstr(o.meta, "\"tma\"") == NULL);
		CHECK(strstr(o.ptx, "_tmap") == NULL);
		/* coordinates (4, 8) outer-to-inner are {8, 4} in PTX */
		CHECK(strstr(o.ptx, "mov.b32 %r1, 8;\n\tmov.b32 %r2, 4;") !=
		      NULL);
	}
	pt_ctx_free(o.ctx);
}

/* Rules with their codes, beyond the tests/errors files. */
TEST(tile_tma_rules)
{
	static const char head[] =
		"from tvm_tirx.script import tirx as T\n"
		"@T.function\n"
		"def k(A: T.Tensor((64, 64), \"float32\", align=16)):\n"
		"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, "
		"block=32))\n"
		"    s = T.alloc_shared((16, 32), \"float32\", align=128)\n"
		"    b = T.alloc_shared((1,), \"uint64\", align=8)\n";
	static const struct {
		const char *call;
		int code;
	} rows[] = {
		/* the reference's valid call */
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.shared::cta."
		 "global.tile.mbarrier::complete_tx::bytes\"], s, A, box=(16, "
		 "32), coords=(0, 0), mbar=b.ptr_to([0]))", 0},
		/* box rank */
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.shared::cta."
		 "global.tile.mbarrier::complete_tx::bytes\"], s, A, box=(32,), "
		 "coords=(0, 0), mbar=b.ptr_to([0]))", PT_E_TMA_BOX},
		/* box 0 */
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.shared::cta."
		 "global.tile.mbarrier::complete_tx::bytes\"], s, A, box=(0, "
		 "32), coords=(0, 0), mbar=b.ptr_to([0]))", PT_E_TMA_BOX},
		/* element stride 0 */
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.shared::cta."
		 "global.tile.mbarrier::complete_tx::bytes\"], s, A, box=(16, "
		 "32), coords=(0, 0), element_strides=(0, 1), "
		 "mbar=b.ptr_to([0]))", PT_E_TMA_ELEMENT_STRIDES},
		/* an innermost element stride (the hardware ignores it) */
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.shared::cta."
		 "global.tile.mbarrier::complete_tx::bytes\"], s[:, 0:16], A, "
		 "box=(16, 32), coords=(0, 0), element_strides=(1, 2), "
		 "mbar=b.ptr_to([0]))", PT_E_TMA_ELEMENT_STRIDES},
		/* store takes global first */
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.global."
		 "shared::cta.tile.bulk_group\"], s, A, box=(16, 32), "
		 "coords=(0, 0))", PT_E_TMA_ORDER},
		/* missing box, missing coords */
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.global."
		 "shared::cta.tile.bulk_group\"], A, s, coords=(0, 0))",
		 PT_E_TILE_PARAM_REQUIRED},
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.global."
		 "shared::cta.tile.bulk_group\"], A, s, box=(16, 32))",
		 PT_E_TILE_PARAM_REQUIRED},
		/* cta_mask without multicast */
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.shared::cta."
		 "global.tile.mbarrier::complete_tx::bytes\"], s, A, box=(16, "
		 "32), coords=(0, 0), mbar=b.ptr_to([0]), cta_mask=3)",
		 PT_E_TMA_CTA_MASK},
		/* cache_policy without the hint */
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.global."
		 "shared::cta.tile.bulk_group\"], A, s, box=(16, 32), "
		 "coords=(0, 0), cache_policy=T.uint64(1))",
		 PT_E_TMA_CACHE_POLICY},
		/* gather4 on a tile form */
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.global."
		 "shared::cta.tile.bulk_group\"], A, s, box=(16, 32), "
		 "coords=(0, 0), gather4=(0, 1, 2, 3))", PT_E_TMA_GATHER4},
		/* swizzle out of range, oob NaN fill on an integer format */
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.global."
		 "shared::cta.tile.bulk_group\"], A, s, box=(16, 32), "
		 "coords=(0, 0), swizzle=4)", PT_E_TMA_FIELD},
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.global."
		 "shared::cta.tile.bulk_group\"], A.view(\"int32\"), "
		 "s.view(\"int32\"), box=(16, 32), coords=(0, 0), oob_fill=1)",
		 PT_E_TMA_GLOBAL_VIEW},
		/* a static box is a static parameter */
		{"T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.global."
		 "shared::cta.tile.bulk_group\"], A, s, box=(16, "
		 "T.cuda.lane_id()), coords=(0, 0))",
		 PT_E_TILE_PARAM_NOT_STATIC},
	};
	for (size_t i = 0; i < countof(rows); i++) {
		char src[2048];
		snprintf(src, sizeof(src), "%s    %s\n", head, rows[i].call);
		int code = first_code(src, "sm_90a");
		if (code != rows[i].code)
			fprintf(stderr, "  row %zu: code %d, expected %d\n", i,
				code, rows[i].code);
		CHECK_INT(code, rows[i].code);
	}
}

/* A rectangular region of a T.Tensor: the slot records its origin and
 * extents (outermost first in the metadata, innermost first after
 * meta_parse); an end equal to a static size becomes an explicit extent.
 * A: rows 8..39, columns 32..95; B: rows 16..63, columns 64..255. */
TEST(tile_tma_region_slots)
{
	static const char src[] =
		"from tvm_tirx.script import tirx as T\n"
		"@T.function\n"
		"def k(A: T.Tensor((64, 256), \"float16\", align=16), "
		"B: T.Tensor((64, 256), \"float16\", align=16)):\n"
		"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, "
		"block=32))\n"
		"    s = T.alloc_shared((16, 64), \"float16\", align=128)\n"
		"    b = T.alloc_shared((1,), \"uint64\", align=8)\n"
		"    T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d."
		"shared::cluster.global.tile.mbarrier::complete_tx::bytes\"], "
		"s, A[8:40, 32:96], box=(16, 64), coords=(0, 0), "
		"mbar=b.ptr_to([0]))\n"
		"    T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.2d.global."
		"shared::cta.bulk_group\"], B[16:64, 64:256], s, box=(16, 64), "
		"coords=(16, 0))\n";
	Out o;
	compile(&o, src, "sm_90a");
	CHECK_INT(o.rc, PT_OK);
	if (o.rc != PT_OK) {
		pt_ctx_free(o.ctx);
		return;
	}
	CHECK(strstr(o.meta, "\"region_origin\": [8, 32], "
			     "\"region_extent\": [32, 64]") != NULL);
	CHECK(strstr(o.meta, "\"region_origin\": [16, 64], "
			     "\"region_extent\": [48, 192]") != NULL);
	Arena a;
	arena_init(&a, NULL);
	RtMeta meta;
	RtStatus st = {0};
	CHECK_INT(meta_parse(&a, o.meta, strlen(o.meta), &meta, &st), PT_OK);
	const RtKernelMeta *km = &meta.kernels[0];
	CHECK_INT((int)km->nparams, 4);
	const TmaSlot *ta = &km->params[2].tma, *tb = &km->params[3].tma;
	CHECK(ta->region && tb->region);
	CHECK_INT(ta->region_origin[0], 32);
	CHECK_INT(ta->region_origin[1], 8);
	CHECK_INT(ta->region_extent[0], 64);
	CHECK_INT(ta->region_extent[1], 32);
	CHECK_INT(tb->region_origin[0], 64);
	CHECK_INT(tb->region_extent[1], 48);
	arena_free(&a);
	pt_ctx_free(o.ctx);
	/* an inner origin of 4 float16 (8 bytes): the map's address would
	 * not be 16-byte aligned */
	char bad[2048];
	snprintf(bad, sizeof(bad), "%s", src);
	char *p = strstr(bad, "A[8:40, 32:96]");
	if (p)
		memcpy(p, "A[8:40, 36:96]", 14);
	CHECK_INT(first_code(bad, "sm_90a"), PT_E_TMA_GLOBAL_VIEW);
}

/* An interleaved T.Tensor (N, C_slices, W, Ci) = (2, 4, 64, 8) uint16
 * gets a rank-3 slot (its ndim less the Ci axis) that meta_parse accepts
 * against the rank-4 tensor parameter. */
TEST(tile_tma_interleave_slot)
{
	static const char src[] =
		"from tvm_tirx.script import tirx as T\n"
		"@T.function\n"
		"def k(A: T.Tensor((2, 4, 64, 8), \"uint16\", align=16)):\n"
		"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, "
		"block=32))\n"
		"    s = T.alloc_shared((1, 1, 8, 8), \"uint16\", align=128)\n"
		"    b = T.alloc_shared((1,), \"uint64\", align=8)\n"
		"    T.cuda.tile.apply(T.ptx[\"cp.async.bulk.tensor.3d."
		"shared::cta.global.tile.mbarrier::complete_tx::bytes\"], s, A, "
		"box=(1, 1, 8), coords=(1, 2, 16), interleave=1, "
		"mbar=b.ptr_to([0]))\n";
	Out o;
	compile(&o, src, "sm_90a");
	CHECK_INT(o.rc, PT_OK);
	if (o.rc != PT_OK) {
		pt_ctx_free(o.ctx);
		return;
	}
	CHECK(strstr(o.meta, "\"rank\": 3, \"box\": [1, 1, 8]") != NULL);
	CHECK(strstr(o.meta, "\"interleave\": \"16B\"") != NULL);
	/* PTX coordinates innermost first: W 16, C slice 2, N 1 */
	CHECK(strstr(o.ptx, "{%r1, %r2, %r3}") != NULL);
	Arena a;
	arena_init(&a, NULL);
	RtMeta meta;
	RtStatus st = {0};
	CHECK_INT(meta_parse(&a, o.meta, strlen(o.meta), &meta, &st), PT_OK);
	const RtKernelMeta *km = &meta.kernels[0];
	CHECK_INT((int)km->nparams, 2);
	CHECK_INT(km->params[1].tma.rank, 3);
	CHECK_INT(km->params[1].tma.interleave, 1);
	CHECK_INT(km->params[1].tma.box[0], 8);
	arena_free(&a);
	pt_ctx_free(o.ctx);
}

/* A module compiled twice: the second check sees the TMA call already
 * lowered (raw PTX), so only its kernel (Func.tmaps) still knows the
 * tensor map; the hidden parameter and the metadata slot must survive. */
TEST(tile_tma_slot_survives_recompile)
{
	pt_module *m = NULL;
	pt_ctx *c = pt_ctx_new(NULL);
	const char *ptx1, *meta1, *ptx2, *meta2;
	CHECK_INT(pt_load(c, "t.py", src_slots, strlen(src_slots), &m), PT_OK);
	CHECK_INT(pt_compile(c, m, "sm_90a", &ptx1, &meta1), PT_OK);
	CHECK_INT(pt_compile(c, m, "sm_90a", &ptx2, &meta2), PT_OK);
	if (ptx1 && ptx2) {
		CHECK(strstr(ptx1, ".param .align 64 .b8 k_A_tmap[128]") !=
		      NULL);
		CHECK_STR(ptx2, ptx1);
		CHECK_STR(meta2, meta1);
	}
	pt_ctx_free(c);
}
