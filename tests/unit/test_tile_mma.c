/*
 * Unit tests of the mma.sync tile family through the public API: exact
 * spelling, issue count (batch x M x N x K), the batch/M/N/K issue order
 * with C read only on the first K issue, scalar C, and the codes of
 * rejected calls.  Fragment layouts follow the reference's lane maps:
 *   A reg r of lane l: (l/4 + 8*(r%2), l%4 + 4*(r/2))
 *   B reg r:           (l/4, l%4 + 4*r)
 *   D/C reg r:         (l/4 + 8*(r/2), 2*(l%4) + r%2)
 */
#include <stdio.h>
#include <string.h>

#include "ptxtile.h"
#include "test.h"

#define MMA16 "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
#define MMA8 "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"

#define HEAD                                                            \
	"from tvm_tirx.script import tirx as T\n"                      \
	"from tvm_tirx.backend.cuda.axis import laneid, warpid\n"      \
	"@T.function\n"                                                \
	"def k(out: T.Tensor((32, 4), \"float32\")):\n"                \
	"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))\n"

/* D (M, N, 16, 8): reg r at slot 4*(m*N + n) + r */
#define D_LAYOUT(M, N)                                                  \
	"T.TileLayout(T.S[(" #M ", " #N ", 2, 8, 4, 2):(" #N "*4, 4, 2, 4@laneid, 1@laneid, 1)])"

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

/* The i-th line holding needle (0-based), copied into buf. */
static const char *
nth_line(const char *hay, const char *needle, int i, char *buf, size_t n)
{
	const char *p = hay;
	for (int k = 0; p && (p = strstr(p, needle)); p++, k++) {
		if (k != i)
			continue;
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len >= n)
			len = n - 1;
		memcpy(buf, p, len);
		buf[len] = 0;
		return buf;
	}
	return "";
}

TEST(mma_k16_order_and_recurrence)
{
	pt_ctx *c = pt_ctx_new(NULL);
	const char *ptx;
	char line[512];
	/* M=2, N=1, K=2: issues (m,n,k) = (0,0,0) (0,0,1) (1,0,0) (1,0,1) */
	const char *src = HEAD
		"    D = T.alloc_local((2, 1, 16, 8), \"float32\", layout=T.TileLayout(T.S[(2, 1, 2, 8, 4, 2):(4, 4, 2, 4@laneid, 1@laneid, 1)]))\n"
		"    C = T.alloc_local((2, 1, 16, 8), \"float32\", layout=T.TileLayout(T.S[(2, 1, 2, 8, 4, 2):(4, 4, 2, 4@laneid, 1@laneid, 1)]))\n"
		"    A = T.alloc_local((2, 2, 16, 8), \"uint32\", layout=T.TileLayout(T.S[(2, 2, 2, 8, 2, 4):(8, 4, 1, 4@laneid, 2, 1@laneid)]))\n"
		"    B = T.alloc_local((1, 2, 8, 8), \"uint32\", layout=T.TileLayout(T.S[(1, 2, 8, 2, 4):(4, 2, 4@laneid, 1, 1@laneid)]))\n"
		"    for i in T.unroll(8):\n"
		"        C[i // 4, 0, (i % 4) // 2 * 8, i % 2] = 1.0\n"
		"    T.cuda.tile.apply(T.ptx[\"" MMA16 "\"], D, A, B, C, scope=\"warp\")\n";
	CHECK_INT(compile(c, src, "sm_80", &ptx), PT_OK);
	CHECK_INT(count(ptx, MMA16 " {"), 4);
	/* registers: D slots 0-7 -> %f1-%f8, C slots -> %f9-%f16, A slots
	 * 0-15 -> %r1-%r16, B slots 0-3 -> %r17-%r20 */
	CHECK_STR(nth_line(ptx, MMA16, 0, line, sizeof(line)),
		  MMA16 " {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, "
		  "{%r17, %r18}, {%f9, %f10, %f11, %f12};");
	CHECK_STR(nth_line(ptx, MMA16, 1, line, sizeof(line)),
		  MMA16 " {%f1, %f2, %f3, %f4}, {%r5, %r6, %r7, %r8}, "
		  "{%r19, %r20}, {%f1, %f2, %f3, %f4};");
	CHECK_STR(nth_line(ptx, MMA16, 2, line, sizeof(line)),
		  MMA16 " {%f5, %f6, %f7, %f8}, {%r9, %r10, %r11, %r12}, "
		  "{%r17, %r18}, {%f13, %f14, %f15, %f16};");
	pt_ctx_free(c);
}

TEST(mma_k8_batch_scalar_c_and_permuted_a)
{
	pt_ctx *c = pt_ctx_new(NULL);
	const char *ptx;
	char line[512];
	/* batch 2, M=N=K=1; A slot = batch + 2*(r%2), so batch 0 reads
	 * slots 0, 2 and batch 1 slots 1, 3 */
	const char *src = HEAD
		"    D = T.alloc_local((2, 1, 1, 16, 8), \"float32\", layout=T.TileLayout(T.S[(2, 1, 1, 2, 8, 4, 2):(4, 4, 4, 2, 4@laneid, 1@laneid, 1)]))\n"
		"    A = T.alloc_local((2, 1, 1, 16, 4), \"uint32\", layout=T.TileLayout(T.S[(2, 1, 1, 2, 8, 4):(1, 1, 1, 2, 4@laneid, 1@laneid)]))\n"
		"    B = T.alloc_local((2, 1, 1, 8, 4), \"uint32\", layout=T.TileLayout(T.S[(2, 1, 1, 8, 4):(1, 1, 1, 4@laneid, 1@laneid)]))\n"
		"    T.cuda.tile.apply(T.ptx[\"" MMA8 "\"], D, A, B, 0.0, scope=\"warp\")\n";
	CHECK_INT(compile(c, src, "sm_80", &ptx), PT_OK);
	CHECK_INT(count(ptx, MMA8 " {"), 2);
	/* D %f1-%f8, A %r1-%r4, B %r5-%r6; C is the scalar in every slot */
	CHECK(strstr(nth_line(ptx, MMA8, 0, line, sizeof(line)),
		     "{%f1, %f2, %f3, %f4}, {%r1, %r3}, {%r5}, {") != NULL);
	CHECK(strstr(nth_line(ptx, MMA8, 1, line, sizeof(line)),
		     "{%f5, %f6, %f7, %f8}, {%r2, %r4}, {%r6}, {") != NULL);
	pt_ctx_free(c);
}

TEST(mma_rejections_have_codes)
{
	static const struct {
		const char *body;
		int code;
	} cases[] = {
		{"    T.cuda.tile.apply(T.ptx[\"" MMA16 "\"], D, A, B, D)\n",
		 PT_E_COLL_SCOPE},
		{"    T.cuda.tile.apply(T.ptx[\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32\"], D, A, B, D, scope=\"warp\")\n",
		 PT_E_MMA_FORM},
		{"    T.cuda.tile.apply(T.ptx[\"" MMA16 "\"], D, A, B, scope=\"warp\")\n",
		 PT_E_TILE_OPERAND_COUNT},
		{"    T.cuda.tile.apply(T.ptx[\"" MMA16 "\"], D, A, B, D, scope=\"warp\", pred=True)\n",
		 PT_E_TILE_PARAM_NOT_LISTED},
		{"    T.cuda.tile.apply(T.ptx[\"" MMA16 "\"], D, A, B, A, scope=\"warp\")\n",
		 PT_E_MMA_DTYPE},
		{"    T.cuda.tile.apply(T.ptx[\"" MMA16 "\"], D, A, B, B, scope=\"warp\")\n",
		 PT_E_MMA_ATOM_SHAPE},
		/* cta scope adds a warp axis the operands lack */
		{"    T.cuda.tile.apply(T.ptx[\"" MMA16 "\"], D, A, B, 0.0, scope=\"cta\")\n",
		 PT_E_MMA_ATOM_SHAPE},
		{"    T.cuda.tile.apply(T.ptx[\"" MMA16 "\"], D, A, Bw, 0.0, scope=\"warp\")\n",
		 PT_E_MMA_OWNER},
		{"    T.cuda.tile.apply(T.ptx[\"" MMA16 "\"], D2, A, B, 0.0, scope=\"warp\")\n",
		 PT_E_MMA_REPEAT},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[4096];
		snprintf(src, sizeof(src), "%s%s",
			 HEAD
			 "    D = T.alloc_local((1, 1, 16, 8), \"float32\", layout=" D_LAYOUT(1, 1) ")\n"
			 "    D2 = T.alloc_local((1, 2, 16, 8), \"float32\", layout=" D_LAYOUT(1, 2) ")\n"
			 "    A = T.alloc_local((1, 1, 16, 8), \"uint32\", layout=T.TileLayout(T.S[(1, 1, 2, 8, 2, 4):(4, 4, 1, 4@laneid, 2, 1@laneid)]))\n"
			 "    B = T.alloc_local((1, 1, 8, 8), \"uint32\", layout=T.TileLayout(T.S[(1, 1, 8, 2, 4):(2, 2, 4@laneid, 1, 1@laneid)]))\n"
			 "    Bw = T.alloc_local((1, 1, 8, 8), \"uint32\", layout=T.TileLayout(T.S[(1, 1, 8, 2, 4):(2, 2, 1@laneid, 1, 8@laneid)]))\n",
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
