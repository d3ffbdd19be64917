/*
 * Unit tests of the ldmatrix/stmatrix tile family through the public
 * API: the exact spelling and issue count in the PTX, the register slots
 * each issue names (in the order the reference's owner map gives), and
 * the codes of rejected calls.  Expected values are worked out by hand
 * from the reference (lane 8*matrix+row provides the address, word
 * (matrix,row,word) is register `matrix` of lane 4*row+word).
 */
#include <stdio.h>
#include <string.h>

#include "ptxtile.h"
#include "test.h"

#define HEAD                                                            \
	"from tvm_tirx.script import tirx as T\n"                      \
	"from tvm_tirx.backend.cuda.axis import laneid, warpid\n"      \
	"@T.function\n"                                                \
	"def k(out: T.Tensor((32, 4), \"uint32\", align=16)):\n"       \
	"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))\n"

/* Compiles src for target; returns the status, *ptx the text. */
static int
compile(pt_ctx *c, const char *src, const char *target, const char **ptx)
{
	pt_module *m;
	const char *meta;
	*ptx = NULL;
	int st = pt_load(c, "k.py", src, strlen(src), &m);
	if (st == PT_OK)
		st = pt_compile(c, m, target, ptx, &meta);
	return st;
}

static int
count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; p && (p = strstr(p, needle)); p++)
		n++;
	return n;
}

TEST(ldmatrix_x4_repeats_spelling_and_count)
{
	pt_ctx *c = pt_ctx_new(NULL);
	const char *ptx;
	const char *src = HEAD
		"    S = T.alloc_shared((3, 4, 8, 4), \"uint32\", align=16)\n"
		"    R = T.alloc_local((3, 4, 8, 4), \"uint32\", layout=T.TileLayout(T.S[(3, 4, 8, 4):(4, 1, 4@laneid, 1@laneid)]))\n"
		"    T.cuda.tile.apply(T.ptx[\"ldmatrix.sync.aligned.m8n8.x4.shared.b16\"], R, S, scope=\"warp\")\n";
	CHECK_INT(compile(c, src, "sm_80", &ptx), PT_OK);
	CHECK_INT(count(ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16 "), 3);
	CHECK_INT(count(ptx, "ldmatrix"), 3);
	/* one register group per repeat, slots 4t..4t+3 in matrix order */
	CHECK(strstr(ptx, "{%r1, %r2, %r3, %r4}") != NULL);
	CHECK(strstr(ptx, "{%r9, %r10, %r11, %r12}") != NULL);
	pt_ctx_free(c);
}

TEST(ldmatrix_permuted_register_slots)
{
	pt_ctx *c = pt_ctx_new(NULL);
	const char *ptx;
	/* matrix i = (i1, i0) at slot i1 + 2*i0: matrices 0..3 at slots
	 * 0, 2, 1, 3 */
	const char *src = HEAD
		"    S = T.alloc_shared((4, 8, 4), \"uint32\", align=16)\n"
		"    R = T.alloc_local((4, 8, 4), \"uint32\", layout=T.TileLayout(T.S[(2, 2, 8, 4):(1, 2, 4@laneid, 1@laneid)]))\n"
		"    T.cuda.tile.apply(T.ptx[\"stmatrix.sync.aligned.m8n8.x4.trans.shared.b16\"], S, R, scope=\"warp\")\n";
	CHECK_INT(compile(c, src, "sm_90a", &ptx), PT_OK);
	CHECK_INT(count(ptx, "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r"), 1);
	CHECK(ptx && strstr(ptx, "], {%r1, %r3, %r2, %r4};") != NULL);
	/* stmatrix needs sm_90: the PTX table's gate rejects sm_80 */
	CHECK(compile(c, src, "sm_80", &ptx) != PT_OK);
	pt_ctx_free(c);
}

/* x1/x2: lanes past 8*count repeat valid rows: the matrix index is
 * (lane >> 3) & (count - 1), so x1 uses only lane & 7. */
TEST(ldmatrix_x1_x2_lane_expansion)
{
	pt_ctx *c = pt_ctx_new(NULL);
	const char *ptx;
	const char *src = HEAD
		"    S = T.alloc_shared((2, 8, 4), \"uint32\", align=16)\n"
		"    R1 = T.alloc_local((1, 8, 4), \"uint32\", layout=T.TileLayout(T.S[(1, 8, 4):(1, 4@laneid, 1@laneid)]))\n"
		"    R2 = T.alloc_local((2, 8, 4), \"uint32\", layout=T.TileLayout(T.S[(2, 8, 4):(1, 4@laneid, 1@laneid)]))\n"
		"    T.cuda.tile.apply(T.ptx[\"ldmatrix.sync.aligned.m8n8.x1.shared.b16\"], R1, S[1:2, :, :], scope=\"warp\")\n"
		"    T.cuda.tile.apply(T.ptx[\"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16\"], R2, S, scope=\"warp\")\n";
	CHECK_INT(compile(c, src, "sm_80", &ptx), PT_OK);
	CHECK_INT(count(ptx, "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r"), 1);
	CHECK_INT(count(ptx, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r"), 1);
	/* x1 needs no matrix bits of the lane: one shr only, for x2 */
	CHECK_INT(count(ptx, "shr."), 1);
	CHECK_INT(count(ptx, ", 3;"), 1);
	pt_ctx_free(c);
}

TEST(ldmatrix_rejections_have_codes)
{
	static const struct {
		const char *body;
		int code;
	} cases[] = {
		{"    T.cuda.tile.apply(T.ptx[\"ldmatrix.sync.aligned.m8n8.x4.shared.b16\"], R, S)\n",
		 PT_E_COLL_SCOPE},
		{"    if T.cuda.lane_id() < 31:\n"
		 "        T.cuda.tile.apply(T.ptx[\"ldmatrix.sync.aligned.m8n8.x4.shared.b16\"], R, S, scope=\"warp\")\n",
		 PT_E_COLL_PARTIAL_WARP},
		{"    T.cuda.tile.apply(T.ptx[\"ldmatrix.sync.aligned.m8n8.x4.b16\"], R, S, scope=\"warp\")\n",
		 PT_E_LDM_FORM},
		{"    T.cuda.tile.apply(T.ptx[\"stmatrix.sync.aligned.m8n8.x4.shared.b16\"], R, S, scope=\"warp\")\n",
		 PT_E_LDM_ORDER},
		{"    T.cuda.tile.apply(T.ptx[\"ldmatrix.sync.aligned.m8n8.x1.shared.b16\"], R, S, scope=\"warp\")\n",
		 PT_E_LDM_ATOM_SHAPE},
		{"    T.cuda.tile.apply(T.ptx[\"ldmatrix.sync.aligned.m8n8.x4.shared.b16\"], R, S, scope=\"warp\", pred=True)\n",
		 PT_E_TILE_PARAM_NOT_LISTED},
		{"    T.cuda.tile.apply(T.ptx[\"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16\"], R, Q, scope=\"warp\")\n",
		 PT_E_LDM_TRANS},
		{"    T.cuda.tile.apply(T.ptx[\"ldmatrix.sync.aligned.m8n8.x4.shared.b16\"], W, S, scope=\"warp\")\n",
		 PT_E_LDM_OWNER},
		{"    T.cuda.tile.apply(T.ptx[\"ldmatrix.sync.aligned.m8n8.x4.shared.b16\"], R, H, scope=\"warp\")\n",
		 PT_E_LDM_DTYPE},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[4096];
		snprintf(src, sizeof(src), "%s%s%s",
			 HEAD
			 "    S = T.alloc_shared((4, 8, 4), \"uint32\", align=16)\n"
			 "    F = T.alloc_shared((4, 8, 16), \"uint8\", align=16)\n"
			 "    Q = F.view(\"uint32\")\n"
			 "    H = T.alloc_shared((4, 8, 4), \"float16\", align=16)\n"
			 "    R = T.alloc_local((4, 8, 4), \"uint32\", layout=T.TileLayout(T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)]))\n",
			 "    W = T.alloc_local((4, 8, 4), \"uint32\", layout=T.TileLayout(T.S[(4, 8, 4):(1, 1@laneid, 8@laneid)]))\n",
			 cases[i].body);
		pt_ctx *c = pt_ctx_new(NULL);
		const char *ptx;
		int st = compile(c, src, "sm_90a", &ptx);
		if (st != cases[i].code)
			fprintf(stderr, "case %zu: %s\n", i,
				pt_diag_render(c, PT_DIAG_SHORT));
		CHECK_INT(st, cases[i].code);
		pt_ctx_free(c);
	}
}
