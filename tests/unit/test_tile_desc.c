/*
 * Unit tests of src/tile/descriptors.c: shared descriptor extraction on
 * images built through src/layout (ComposeLayout swizzles, not the
 * descriptor walk), checked against the ptx_facts §1.2 test vectors and
 * the PTX ISA's worked canonical-layout examples (§1.3), K advance
 * (§1.4: +2 per 32 bytes inside a 128B row), rejections, and the UMMA
 * instruction descriptor vectors of ptx_facts §2.4.
 */
#include "tile/descriptors.h"
#include "layout/layout.h"
#include "test.h"

/* Byte addresses of the (rows x cols) block at (r0, c0) of a layout
 * over shape (R, C), at `base` + m * bits / 8; transposed: the image
 * row is the layout's column axis (MN-major operands). */
static int64_t *
image(Ctx *c, const Layout *l, int64_t R, int64_t C, int64_t r0, int64_t c0,
      int rows, int64_t cols, int bits, int64_t base, bool transposed)
{
	int64_t *a = NEWN(&c->arena, int64_t, (size_t)(rows * cols) + 1);
	int64_t shape[2] = {R, C};
	for (int r = 0; r < rows; r++)
		for (int64_t k = 0; k < cols; k++) {
			int64_t x[2] = {r0 + r, c0 + k};
			if (transposed) {
				x[0] = r0 + k;
				x[1] = c0 + r;
			}
			PhysCoord p;
			layout_eval(l, shape, 2, x, &p);
			a[r * cols + k] = base + p.v[AX_M] * bits / 8;
		}
	return a;
}

static Layout *
tile_of(Ctx *c, const LayoutIter *it, int n)
{
	return layout_make(&c->arena, it, n, NULL, 0, NULL, 0);
}

static const DescMode ALL4[] = {DESC_NONE, DESC_SW32, DESC_SW64, DESC_SW128};

static uint64_t
extract_k(Ctx *c, const Layout *l, int64_t R, int64_t C, int rows,
	  int64_t cols, int bits, DescMode first, SmemDesc *d, DescFail *why)
{
	DescImage im = {DESC_WALK_K, rows, cols, bits,
			image(c, l, R, C, 0, 0, rows, cols, bits, 0x400, false)};
	DescMode modes[5] = {first};
	int n = 1;
	for (int i = 0; i < 4; i++)
		if (ALL4[i] != first)
			modes[n++] = ALL4[i];
	char msg[256];
	if (!desc_extract(&im, modes, n, d, why, msg, sizeof(msg)))
		return 0;
	return desc_encode(d, d->start);
}

TEST(desc_k_major_swizzle_vectors)
{
	/* bf16 K-major atoms: 8 rows of the swizzle span, stacked along
	 * M; ptx_facts §1.2 vectors at address 0x400, LBO 16 (unused). */
	Ctx *c = pt_ctx_new(NULL);
	SmemDesc d;
	DescFail why;
	LayoutIter i128[] = {{128, 64, AX_M}, {64, 1, AX_M}};
	Layout *l = layout_compose(&c->arena, 3, 3, 3, tile_of(c, i128, 2));
	CHECK(layout_swizzle_mode(l, 16) == SWZ_128B);
	uint64_t v = extract_k(c, l, 128, 64, 128, 64, 16, DESC_SW128, &d,
			       &why);
	CHECK(v == 0x4000404000010040ull);
	CHECK_INT(d.sbo, 1024);
	CHECK_INT(d.lbo, 16);
	LayoutIter i64[] = {{128, 32, AX_M}, {32, 1, AX_M}};
	l = layout_compose(&c->arena, 3, 2, 3, tile_of(c, i64, 2));
	v = extract_k(c, l, 128, 32, 128, 32, 16, DESC_SW64, &d, &why);
	CHECK(v == 0x8000402000010040ull);
	LayoutIter i32[] = {{128, 16, AX_M}, {16, 1, AX_M}};
	l = layout_compose(&c->arena, 3, 1, 3, tile_of(c, i32, 2));
	v = extract_k(c, l, 128, 16, 128, 16, 16, DESC_SW32, &d, &why);
	CHECK(v == 0xC000401000010040ull);
	pt_ctx_free(c);
}

TEST(desc_k_major_interleave_ptx_example)
{
	/* PTX §9.7.16.3.3: tf32 K-major no-swizzle
	 * ((8,2),(4,4)):((4,32),(1,64)) -> LBO 256 B, SBO 128 B. */
	Ctx *c = pt_ctx_new(NULL);
	LayoutIter it[] = {{2, 32, AX_M}, {8, 4, AX_M}, {4, 64, AX_M},
			   {4, 1, AX_M}};
	Layout *l = tile_of(c, it, 4);
	SmemDesc d;
	DescFail why;
	uint64_t v = extract_k(c, l, 16, 16, 16, 16, 32, DESC_NONE, &d, &why);
	CHECK_INT(d.mode, DESC_NONE);
	CHECK_INT(d.lbo, 256);
	CHECK_INT(d.sbo, 128);
	CHECK(v == ((0x400ull >> 4) | (16ull << 16) | (8ull << 32) |
		    (1ull << 46)));
	pt_ctx_free(c);
}

static bool
extract_mn(Ctx *c, const Layout *l, int64_t K, int64_t MN, int bits,
	   const DescMode *modes, int n, SmemDesc *d)
{
	/* the layout is over (K, MN); image rows are K */
	DescImage im = {DESC_WALK_MN, (int)K, MN, bits,
			image(c, l, K, MN, 0, 0, (int)K, MN, bits, 0, false)};
	DescFail why;
	char msg[256];
	return desc_extract(&im, modes, n, d, &why, msg, sizeof(msg));
}

TEST(desc_mn_major_ptx_examples)
{
	Ctx *c = pt_ctx_new(NULL);
	SmemDesc d;
	/* 64B bf16: Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512))
	 * -> LBO 512 B (enc 32), SBO 1024 B (enc 64) */
	LayoutIter i64[] = {{2, 512, AX_M}, {8, 32, AX_M}, {2, 256, AX_M},
			    {4, 8, AX_M}, {8, 1, AX_M}};
	Layout *l = layout_compose(&c->arena, 3, 2, 3, tile_of(c, i64, 5));
	DescMode m64[] = {DESC_SW64, DESC_NONE, DESC_SW32, DESC_SW128};
	CHECK(extract_mn(c, l, 16, 64, 16, m64, 4, &d));
	CHECK_INT(d.mode, DESC_SW64);
	CHECK_INT(d.lbo >> 4, 32);
	CHECK_INT(d.sbo >> 4, 64);
	/* 32B bf16 -> LBO enc 16, SBO enc 32 */
	LayoutIter i32[] = {{2, 256, AX_M}, {8, 16, AX_M}, {2, 128, AX_M},
			    {16, 1, AX_M}};
	l = layout_compose(&c->arena, 3, 1, 3, tile_of(c, i32, 4));
	DescMode m32[] = {DESC_SW32, DESC_NONE, DESC_SW64, DESC_SW128};
	CHECK(extract_mn(c, l, 16, 32, 16, m32, 4, &d));
	CHECK_INT(d.mode, DESC_SW32);
	CHECK_INT(d.lbo >> 4, 16);
	CHECK_INT(d.sbo >> 4, 32);
	/* MN-major interleave ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) with
	 * T = 8 bf16: MN chunks 256 B apart (SBO), K groups 1024 B (LBO) */
	LayoutIter in[] = {{2, 512, AX_M}, {8, 8, AX_M}, {4, 128, AX_M},
			   {8, 1, AX_M}};
	l = tile_of(c, in, 4);
	DescMode m0[] = {DESC_NONE};
	CHECK(extract_mn(c, l, 16, 32, 16, m0, 1, &d));
	CHECK_INT(d.lbo, 1024);
	CHECK_INT(d.sbo, 256);
	pt_ctx_free(c);
}

TEST(desc_mn_major_tf32_mode4)
{
	/* float32 MN-major, Swizzle<2,5,2> bytes: rows of 128 B, 4 K rows
	 * per SDO group (512 B), next 128-byte MN chunk at LDO 1024 B */
	Ctx *c = pt_ctx_new(NULL);
	LayoutIter it[] = {{2, 128, AX_M}, {4, 32, AX_M}, {2, 256, AX_M},
			   {32, 1, AX_M}};
	Layout *l = layout_compose(&c->arena, 3, 2, 2, tile_of(c, it, 4));
	CHECK(layout_swizzle_mode(l, 32) == SWZ_128B_BASE32B);
	SmemDesc d;
	DescMode m4[] = {DESC_SW128_32B};
	CHECK(extract_mn(c, l, 8, 64, 32, m4, 1, &d));
	CHECK_INT(d.lbo, 1024);
	CHECK_INT(d.sbo, 512);
	CHECK(desc_encode(&d, 0) >> 61 == 1);
	/* ordinary 128B cannot describe it */
	DescMode m3[] = {DESC_SW128};
	CHECK(!extract_mn(c, l, 8, 64, 32, m3, 1, &d));
	pt_ctx_free(c);
}

TEST(desc_k_advance_inside_128b_row)
{
	/* bf16 K-major 128B, K = 64: the MMA K slice k (16 elements, 32 B)
	 * starts 32k bytes into the unswizzled row: descriptor + 2k. */
	Ctx *c = pt_ctx_new(NULL);
	LayoutIter it[] = {{128, 64, AX_M}, {64, 1, AX_M}};
	Layout *l = layout_compose(&c->arena, 3, 3, 3, tile_of(c, it, 2));
	for (int k = 0; k < 4; k++) {
		DescImage im = {DESC_WALK_K, 128, 16, 16,
				image(c, l, 128, 64, 0, 16 * k, 128, 16, 16,
				      0x400, false)};
		SmemDesc d;
		DescMode m[] = {DESC_SW128};
		CHECK(desc_extract(&im, m, 1, &d, NULL, NULL, 0));
		CHECK(desc_encode(&d, d.start) ==
		      0x4000404000010040ull + 2 * (uint64_t)k);
	}
	pt_ctx_free(c);
}

TEST(desc_rejections)
{
	Ctx *c = pt_ctx_new(NULL);
	SmemDesc d;
	DescFail why = DESC_OK;
	char msg[256];
	/* a padded 136-byte row pitch under the 128B swizzle */
	LayoutIter pad[] = {{16, 68, AX_M}, {64, 1, AX_M}};
	Layout *l = layout_compose(&c->arena, 3, 3, 3, tile_of(c, pad, 2));
	DescImage im = {DESC_WALK_K, 16, 64, 16,
			image(c, l, 16, 68, 0, 0, 16, 64, 16, 0, false)};
	DescMode m3[] = {DESC_SW128};
	CHECK(!desc_extract(&im, m3, 1, &d, &why, msg, sizeof(msg)));
	CHECK_INT(why, DESC_F_WALK);
	/* origin 8 bytes into a row */
	LayoutIter row[] = {{8, 64, AX_M}, {64, 1, AX_M}};
	l = tile_of(c, row, 2);
	im = (DescImage){DESC_WALK_K, 8, 8, 16,
			 image(c, l, 8, 64, 0, 4, 8, 8, 16, 0, false)};
	DescMode m0[] = {DESC_NONE};
	CHECK(!desc_extract(&im, m0, 1, &d, &why, msg, sizeof(msg)));
	CHECK_INT(why, DESC_F_ORIGIN);
	/* a 256-byte K-major row under a 128-byte span */
	LayoutIter wide[] = {{8, 128, AX_M}, {128, 1, AX_M}};
	l = layout_compose(&c->arena, 3, 3, 3, tile_of(c, wide, 2));
	im = (DescImage){DESC_WALK_K, 8, 128, 16,
			 image(c, l, 8, 128, 0, 0, 8, 128, 16, 0, false)};
	CHECK(!desc_extract(&im, m3, 1, &d, &why, msg, sizeof(msg)));
	CHECK_INT(why, DESC_F_ROW_WIDTH);
	/* rows stored in reverse: a negative SDO */
	LayoutIter rev[] = {{16, 8, AX_M}, {8, 1, AX_M}};
	l = tile_of(c, rev, 2);
	int64_t *a = image(c, l, 16, 8, 0, 0, 16, 8, 16, 0, false);
	int64_t *b = NEWN(&c->arena, int64_t, 16 * 8);
	for (int r = 0; r < 16; r++)
		for (int k = 0; k < 8; k++)
			b[r * 8 + k] = a[(15 - r) * 8 + k];
	im = (DescImage){DESC_WALK_K, 16, 8, 16, b};
	CHECK(!desc_extract(&im, m0, 1, &d, &why, msg, sizeof(msg)));
	CHECK_INT(why, DESC_F_STRIDE);
	pt_ctx_free(c);
}

TEST(desc_mode_preference)
{
	/* one 16-byte row per 8-row group fits every mode: the first
	 * (the layout's stated mode) wins */
	Ctx *c = pt_ctx_new(NULL);
	LayoutIter it[] = {{8, 8, AX_M}, {8, 1, AX_M}};
	Layout *l = tile_of(c, it, 2);
	DescImage im = {DESC_WALK_K, 1, 8, 16,
			image(c, l, 8, 8, 0, 0, 1, 8, 16, 0, false)};
	SmemDesc d;
	DescMode pref[] = {DESC_SW64, DESC_NONE};
	CHECK(desc_extract(&im, pref, 2, &d, NULL, NULL, 0));
	CHECK_INT(d.mode, DESC_SW64);
	CHECK_INT(d.sbo, 0);  /* unused SDO */
	CHECK_INT(d.lbo, 16); /* unused LDO */
	pt_ctx_free(c);
}

TEST(desc_idesc_vectors)
{
	/* ptx_facts §2.4, K-major A/B unless noted */
	Idesc d = {UMMA_F16, 1, 1, 1, false, false, false, false, false,
		   128, 256, 0, 0, 0};
	CHECK_INT(desc_idesc(&d), 0x08400490);
	d = (Idesc){UMMA_F16, 1, 0, 0, false, false, false, false, false,
		    64, 128, 0, 0, 0};
	CHECK_INT(desc_idesc(&d), 0x04200010);
	d = (Idesc){UMMA_F16, 0, 0, 0, false, false, false, false, true,
		    128, 128, 0, 0, 0};
	CHECK_INT(desc_idesc(&d), 0x08210000);
	d = (Idesc){UMMA_TF32, 1, 2, 2, false, false, false, false, false,
		    128, 256, 0, 0, 0};
	CHECK_INT(desc_idesc(&d), 0x08400910);
	d = (Idesc){UMMA_F8F6F4, 1, 0, 0, false, false, false, false, false,
		    128, 256, 0, 0, 0};
	CHECK_INT(desc_idesc(&d), 0x08400010);
	d = (Idesc){UMMA_I8, 2, 1, 1, false, false, false, false, false,
		    128, 256, 0, 0, 0};
	CHECK_INT(desc_idesc(&d), 0x084004A0);
	CHECK_INT(desc_umma_format(UMMA_F16, "bfloat16"), 1);
	CHECK_INT(desc_umma_format(UMMA_TF32, "tf32"), 2);
	CHECK_INT(desc_umma_format(UMMA_TF32, "float32"), -1);
	CHECK_INT(desc_umma_format(UMMA_I8, "int8"), 1);
	CHECK_INT(desc_umma_format(UMMA_F8F6F4, "float4_e2m1fn"), 5);
	/* block-scaled (ptx_facts §2.4; Tables 43/44): mxf8f6f4 e4m3 UE8M0
	 * M128 N256; mxf4nvf4 e2m1 UE4M3 M128 N256; mxf4 e2m1 UE8M0 M256
	 * N256 with both scale-factor IDs 2 */
	d = (Idesc){UMMA_MXF8F6F4, 0, 0, 0, false, false, false, false,
		    false, 128, 256, 1, 0, 0};
	CHECK_INT(desc_idesc(&d), 0x08C00000);
	d = (Idesc){UMMA_MXF4NVF4, 0, 1, 1, false, false, false, false,
		    false, 128, 256, 0, 0, 0};
	CHECK_INT(desc_idesc(&d), 0x08400480);
	d = (Idesc){UMMA_MXF4, 0, 1, 1, false, false, false, false, false,
		    256, 256, 1, 2, 2};
	CHECK_INT(desc_idesc(&d), 0x50C004A0);
	CHECK_INT(desc_umma_format(UMMA_MXF4, "float4_e2m1fn"), 1);
	CHECK_INT(desc_umma_format(UMMA_MXF8F6F4, "float6_e3m2fn"), 4);
	CHECK_INT(desc_umma_format(UMMA_MXF4NVF4, "float8_e4m3fn"), -1);
}

TEST(desc_umma_shapes)
{
	CHECK(desc_umma_shape_ok(UMMA_F16, 1, 128, 256));
	CHECK(desc_umma_shape_ok(UMMA_F16, 1, 64, 8));
	CHECK(!desc_umma_shape_ok(UMMA_F16, 1, 256, 128));
	CHECK(!desc_umma_shape_ok(UMMA_F16, 1, 128, 12));
	/* M=128 on one CTA steps N by 16; M=64 by 8 */
	CHECK(!desc_umma_shape_ok(UMMA_F16, 1, 128, 24));
	CHECK(!desc_umma_shape_ok(UMMA_F16, 1, 128, 8));
	CHECK(desc_umma_shape_ok(UMMA_F16, 1, 128, 16));
	CHECK(desc_umma_shape_ok(UMMA_F16, 1, 64, 24));
	CHECK(desc_umma_shape_ok(UMMA_TF32, 1, 64, 248));
	CHECK(!desc_umma_shape_ok(UMMA_TF32, 1, 128, 248));
	CHECK(!desc_umma_shape_ok(UMMA_F16, 1, 64, 264));
	CHECK(desc_umma_shape_ok(UMMA_I8, 1, 64, 24));
	CHECK(!desc_umma_shape_ok(UMMA_I8, 1, 128, 24));
	CHECK(!desc_umma_shape_ok(UMMA_I8, 1, 64, 40));
	CHECK(!desc_umma_shape_ok(UMMA_I8, 1, 128, 40));
	CHECK(desc_umma_shape_ok(UMMA_I8, 1, 128, 48));
	/* block-scaled kinds: no M=64 */
	CHECK(!desc_umma_shape_ok(UMMA_MXF8F6F4, 1, 64, 128));
	CHECK(desc_umma_shape_ok(UMMA_MXF8F6F4, 1, 128, 128));
	CHECK(desc_umma_shape_ok(UMMA_MXF4, 2, 256, 256));
	CHECK(!desc_umma_shape_ok(UMMA_MXF4NVF4, 2, 256, 24));
	CHECK(!desc_umma_shape_ok(UMMA_MXF8F6F4, 2, 64, 128));
	/* .ws */
	CHECK(desc_umma_ws_shape_ok(UMMA_F16, 32, 64));
	CHECK(desc_umma_ws_shape_ok(UMMA_I8, 128, 256));
	CHECK(!desc_umma_ws_shape_ok(UMMA_TF32, 128, 192));
	CHECK(!desc_umma_ws_shape_ok(UMMA_F8F6F4, 256, 128));
	CHECK(!desc_umma_ws_shape_ok(UMMA_MXF8F6F4, 128, 128));
	CHECK_INT(desc_umma_k(UMMA_MXF8F6F4), 32);
	CHECK_INT(desc_umma_k(UMMA_MXF4NVF4), 64);
	CHECK(desc_umma_shape_ok(UMMA_F16, 2, 256, 16));
	CHECK(!desc_umma_shape_ok(UMMA_F16, 2, 256, 8));
	CHECK(!desc_umma_shape_ok(UMMA_I8, 2, 128, 48));
}
