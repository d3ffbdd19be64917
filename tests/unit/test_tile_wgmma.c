/*
 * test_tile_wgmma.c - the wgmma form rows (every shape and type) and the
 * sm_90 wgmma matrix descriptor against the test
 * vectors of ptx_facts §1.2 (address 0x400, LBO 16 B, K-major; CUTLASS
 * GmmaDescriptor layout: layout type at [62,64), no bit 46).
 */
#include <stdio.h>

#include "ptx/ptx.h"
#include "tile/descriptors.h"
#include "test.h"

TEST(wgmma_desc_sm90_vectors)
{
	static const struct {
		DescMode m;
		int64_t sbo;
		uint64_t want;
	} v[] = {
		{DESC_SW128, 1024, 0x4000004000010040ull},
		{DESC_SW64, 512, 0x8000002000010040ull},
		{DESC_SW32, 256, 0xC000001000010040ull},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		SmemDesc d = {v[i].m, 0x400, 16, v[i].sbo};
		CHECK(desc_encode_sm90(&d, 0x400) == v[i].want);
	}
	/* interleave: layout type 0, LBO/SBO as given */
	SmemDesc n = {DESC_NONE, 0, 128, 256};
	CHECK(desc_encode_sm90(&n, 0) == ((uint64_t)16 << 32 | 8u << 16));
}

/* Every legal wgmma spelling parses for sm_90a with D holding N/2
 * registers (N/4 for f16 accumulators), is refused for sm_100a, and the
 * illegal neighbours are refused (shapes: PTX ISA wgmma .m64nNkK table,
 * checked with ptxas 13.0 on all 592 spellings of these loops). */
static bool
wg_parse(Target t, const char *s, PtxInst *in)
{
	pt_ctx *c = pt_ctx_new(NULL);
	c->target = t;
	bool ok = ptx_parse(c, s, (Span){0}, in) &&
		  ptx_check_target(c, in, (Span){0});
	pt_ctx_free(c);
	return ok;
}

TEST(wgmma_forms_every_shape)
{
	static const struct {
		const char *types;
		int k, dregs_div; /* D registers = N / dregs_div */
		bool integer;
	} f[] = {
		{"f32.f16.f16", 16, 2, false}, {"f32.bf16.bf16", 16, 2, false},
		{"f16.f16.f16", 16, 4, false}, {"f32.tf32.tf32", 8, 2, false},
		{"f32.e4m3.e5m2", 32, 2, false}, {"f16.e5m2.e4m3", 32, 4, false},
		{"s32.s8.s8", 32, 2, true}, {"s32.u8.s8", 32, 2, true},
		{"satfinite.s32.u8.u8", 32, 2, true},
	};
	char s[128];
	PtxInst in;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		for (int n = 8; n <= 264; n += 8) {
			bool legal = n <= 256 &&
				     (!f[i].integer || n <= 24 || n % 16 == 0);
			snprintf(s, sizeof(s),
				 "wgmma.mma_async.sync.aligned.m64n%dk%d.%s", n,
				 f[i].k, f[i].types);
			CHECK(wg_parse(TGT_SM_90A, s, &in) == legal);
			if (legal) {
				CHECK_INT(in.ops[0].vec, n / f[i].dregs_div);
				CHECK(!wg_parse(TGT_SM_100A, s, &in));
			}
			/* the wrong K for the types */
			snprintf(s, sizeof(s),
				 "wgmma.mma_async.sync.aligned.m64n%dk%d.%s", n,
				 f[i].k == 16 ? 32 : 16, f[i].types);
			CHECK(!wg_parse(TGT_SM_90A, s, &in));
		}
	CHECK(!wg_parse(TGT_SM_90A, "wgmma.mma_async.sync.aligned.m64n64k16.f16.bf16.bf16", &in));
	CHECK(wg_parse(TGT_SM_90A, "wgmma.fence.sync.aligned", &in));
	CHECK(wg_parse(TGT_SM_90A, "wgmma.commit_group.sync.aligned", &in));
	CHECK(wg_parse(TGT_SM_90A, "wgmma.wait_group.sync.aligned", &in));
	CHECK(!wg_parse(TGT_SM_90, "wgmma.fence.sync.aligned", &in));
}
