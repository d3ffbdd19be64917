/*
 * test_tile_wgmma.c - the sm_90 wgmma matrix descriptor against the test
 * vectors of ptx_facts §1.2 (address 0x400, LBO 16 B, K-major; CUTLASS
 * GmmaDescriptor layout: layout type at [62,64), no bit 46).
 */
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
