/*
 * test_fragments.c - the named fragment layouts (src/layout/fragments.c)
 * against the PTX ISA's fragment maps, written out here per element from
 * the ISA's "Matrix fragments for mma.m16n8k*", ldmatrix and wgmma
 * register figures (groupID g = lane / 4, threadID_in_group t = lane % 4):
 * for every lane and register the ISA's (row, column) must evaluate, in
 * the named layout, to that lane and register, and the layout must cover
 * each coordinate once.
 */
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "base/base.h"
#include "layout/layout.h"
#include "ptxtile.h"

/* The ISA's coordinate of register r of lane l: row, and column in the
 * unit the layout's last dimension counts (words or elements). */
typedef void (*IsaMap)(int l, int r, int *row, int *col);

static Layout *
make(TestCtx *t, Arena *a, FragReq r)
{
	Layout *l = NULL;
	const char *why = frag_layout(a, &r, &l);
	if (why)
		test_fail(t, __FILE__, __LINE__, "frag_layout: %s", why);
	return l;
}

/* A request with the fields the tests vary (the rest zero). */
static FragReq
req(FragKind kind, char op, const char *shape, const char *dtype, int bits,
    int num, bool trans)
{
	FragReq r;
	memset(&r, 0, sizeof r);
	r.kind = kind, r.operand = op, r.shape = shape, r.dtype = dtype;
	r.bits = bits, r.num = num, r.trans = trans;
	return r;
}

/* One atom (no repeats, no warps): every (lane, register) of the ISA
 * lands where the layout puts it, and each coordinate exactly once. */
static void
check_atom(TestCtx *t, const Layout *lay, int rows, int cols, int regs,
	   IsaMap isa)
{
	int64_t shape[2] = {rows, cols};
	int seen[16][8] = {{0}};
	for (int l = 0; l < 32; l++)
		for (int r = 0; r < regs; r++) {
			int row, col;
			isa(l, r, &row, &col);
			int64_t c[2] = {row, col};
			PhysCoord p;
			layout_eval(lay, shape, 2, c, &p);
			if (p.v[AX_LANEID] != l || p.v[AX_M] != r) {
				test_fail(t, __FILE__, __LINE__,
					  "lane %d reg %d (row %d col %d): layout "
					  "gives lane %lld m %lld", l, r, row, col,
					  (long long)p.v[AX_LANEID],
					  (long long)p.v[AX_M]);
				return;
			}
			seen[row][col]++;
		}
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++)
			if (seen[i][j] != 1) {
				test_fail(t, __FILE__, __LINE__,
					  "(%d, %d) covered %d times", i, j,
					  seen[i][j]);
				return;
			}
}

/* mma A, f16/bf16 m16n8k16 in words: elements a0..a7, two per register:
 * row g + 8 for a2 a3 a6 a7, column 2t + (i & 1) (+ 8 for i >= 4) */
static void
a_k16_f16(int l, int r, int *row, int *col)
{
	int i = 2 * r, g = l / 4, tt = l % 4;
	*row = g + ((i / 2) % 2 ? 8 : 0);
	*col = (2 * tt + (i & 1) + (i >= 4 ? 8 : 0)) / 2;
}

/* m16n8k8 f16: a0..a3: row g (+8 for a2 a3), column 2t + (i & 1) */
static void
a_k8_f16(int l, int r, int *row, int *col)
{
	int i = 2 * r;
	*row = l / 4 + (i >= 2 ? 8 : 0);
	*col = (2 * (l % 4) + (i & 1)) / 2;
}

/* tf32 m16n8k8: a0..a3 one per register: row g (+8 for a1 a3), column t
 * (+4 for a2 a3) */
static void
a_k8_tf32(int l, int r, int *row, int *col)
{
	*row = l / 4 + (r % 2 ? 8 : 0);
	*col = l % 4 + (r >= 2 ? 4 : 0);
}

/* s8 m16n8k32: a0..a15, four per register: row g for i < 4 or 8 <= i <
 * 12 (else g + 8), column 4t + (i & 3) (+16 for i >= 8) */
static void
a_k32_s8(int l, int r, int *row, int *col)
{
	int i = 4 * r;
	*row = l / 4 + ((i < 4 || (i >= 8 && i < 12)) ? 0 : 8);
	*col = (4 * (l % 4) + (i & 3) + (i >= 8 ? 16 : 0)) / 4;
}

/* s8 m16n8k16: a0..a7: row g (+8 for i >= 4), column 4t + (i & 3) */
static void
a_k16_s8(int l, int r, int *row, int *col)
{
	int i = 4 * r;
	*row = l / 4 + (i >= 4 ? 8 : 0);
	*col = (4 * (l % 4) + (i & 3)) / 4;
}

/* B f16 m16n8k16: b0..b3: k 2t + (i & 1) (+8 for i >= 2), n g; the
 * operand's coordinate is (n, k word) */
static void
b_k16_f16(int l, int r, int *row, int *col)
{
	int i = 2 * r;
	*row = l / 4;
	*col = (2 * (l % 4) + (i & 1) + (i >= 2 ? 8 : 0)) / 2;
}

/* B s8 m16n8k32: b0..b7: k 4t + (i & 3) (+16 for i >= 4), n g */
static void
b_k32_s8(int l, int r, int *row, int *col)
{
	int i = 4 * r;
	*row = l / 4;
	*col = (4 * (l % 4) + (i & 3) + (i >= 4 ? 16 : 0)) / 4;
}

/* C/D m16n8k*: c0..c3: row g (+8 for c2 c3), column 2t + (i & 1) */
static void
cd(int l, int r, int *row, int *col)
{
	*row = l / 4 + (r >= 2 ? 8 : 0);
	*col = 2 * (l % 4) + (r & 1);
}

TEST(fragment_mma_sync_maps)
{
	Arena a;
	arena_init(&a, NULL);
	FragReq r = req(FRAG_MMA_SYNC, 'A', "m16n8k16", "bfloat16", 16, 0, false);
	check_atom(t, make(t, &a, r), 16, 8, 4, a_k16_f16);
	r.dtype = "float16";
	check_atom(t, make(t, &a, r), 16, 8, 4, a_k16_f16);
	r.shape = "m16n8k8";
	check_atom(t, make(t, &a, r), 16, 4, 2, a_k8_f16);
	r.dtype = "tf32";
	check_atom(t, make(t, &a, r), 16, 8, 4, a_k8_tf32);
	r.shape = "m16n8k32";
	r.dtype = "int8";
	check_atom(t, make(t, &a, r), 16, 8, 4, a_k32_s8);
	r.dtype = "float8_e4m3fn";
	check_atom(t, make(t, &a, r), 16, 8, 4, a_k32_s8);
	r.shape = "m16n8k16";
	check_atom(t, make(t, &a, r), 16, 4, 2, a_k16_s8);
	r.operand = 'B';
	r.shape = "m16n8k32";
	check_atom(t, make(t, &a, r), 8, 8, 2, b_k32_s8);
	r.shape = "m16n8k16";
	r.dtype = "bfloat16";
	check_atom(t, make(t, &a, r), 8, 8, 2, b_k16_f16);
	r.operand = 'D';
	check_atom(t, make(t, &a, r), 16, 8, 4, cd);
	r.operand = 'C';
	r.shape = "m16n8k32";
	r.dtype = "uint8";
	check_atom(t, make(t, &a, r), 16, 8, 4, cd);
	/* repeats: (M_rep, K_rep) row-major, 4 registers per atom; warps
	 * row-major on warpid in front */
	FragReq q = req(FRAG_MMA_SYNC, 'A', "m16n8k16", "bfloat16", 16, 0, false);
	q.repeat[0] = 4, q.repeat[1] = 2, q.nrepeat = 2;
	q.warps[0] = 2, q.warps[1] = 4, q.nwarps = 2;
	Layout *l = make(t, &a, q);
	int64_t shape[6] = {2, 4, 4, 2, 16, 8};
	for (int wm = 0; wm < 2; wm++)
		for (int wn = 0; wn < 4; wn++)
			for (int mb = 0; mb < 4; mb++)
				for (int ks = 0; ks < 2; ks++) {
					int row, col;
					a_k16_f16(13, 3, &row, &col);
					int64_t c[6] = {wm, wn, mb, ks, row, col};
					PhysCoord p;
					layout_eval(l, shape, 6, c, &p);
					CHECK_INT(p.v[AX_WARPID], 4 * wm + wn);
					CHECK_INT(p.v[AX_LANEID], 13);
					CHECK_INT(p.v[AX_M], (mb * 2 + ks) * 4 + 3);
				}
	/* order=(1, 0): the second repeat axis outermost in storage */
	FragReq o = req(FRAG_LDMATRIX, 0, NULL, NULL, 32, 4, false);
	o.repeat[0] = 2, o.repeat[1] = 4, o.nrepeat = 2;
	o.order[0] = 1, o.order[1] = 0, o.norder = 2;
	l = make(t, &a, o);
	int64_t s5[5] = {2, 4, 4, 8, 4};
	int64_t c5[5] = {1, 3, 2, 5, 1};
	PhysCoord p;
	layout_eval(l, s5, 5, c5, &p);
	CHECK_INT(p.v[AX_M], 3 * 8 + 1 * 4 + 2); /* block 3, k step 1, matrix 2 */
	CHECK_INT(p.v[AX_LANEID], 5 * 4 + 1);
	arena_free(&a);
}

/* ldmatrix: lane l receives row l/4, elements 2(l%4), 2(l%4)+1 of each
 * matrix (register j = matrix j); with .trans it receives column l/4,
 * rows 2(l%4), 2(l%4)+1 of the matrix in memory */
static int ld_num;

static void
ld_words(int l, int r, int *row, int *col)
{
	*row = r * 8 + l / 4; /* matrix r stacked on rows */
	*col = l % 4;
}

TEST(fragment_ldmatrix_maps)
{
	Arena a;
	arena_init(&a, NULL);
	for (ld_num = 1; ld_num <= 4; ld_num *= 2) {
		FragReq r = req(FRAG_LDMATRIX, 0, NULL, NULL, 32, ld_num, false);
		Layout *l = make(t, &a, r);
		/* (num, 8, 4) words seen as (num * 8, 4) rows */
		for (int lane = 0; lane < 32; lane++)
			for (int j = 0; j < ld_num; j++) {
				int row, col;
				ld_words(lane, j, &row, &col);
				int64_t sh[3] = {ld_num, 8, 4};
				int64_t c[3] = {row / 8, row % 8, col};
				PhysCoord p;
				layout_eval(l, ld_num > 1 ? sh : sh + 1,
					    ld_num > 1 ? 3 : 2,
					    ld_num > 1 ? c : c + 1, &p);
				CHECK_INT(p.v[AX_LANEID], lane);
				CHECK_INT(p.v[AX_M], j);
			}
		/* 16-bit elements, plain and .trans: element h of register
		 * j is storage element 2j + h */
		for (int trans = 0; trans < 2; trans++) {
			FragReq e = req(FRAG_LDMATRIX, 0, NULL, NULL, 16, ld_num, false);
			e.trans = trans;
			Layout *le = make(t, &a, e);
			int64_t sh[3] = {ld_num, 8, 8};
			for (int lane = 0; lane < 32; lane++)
				for (int j = 0; j < ld_num; j++)
					for (int h = 0; h < 2; h++) {
						int g = lane / 4, tt = lane % 4;
						int64_t c[3] = {j, trans ? 2 * tt + h : g,
								trans ? g : 2 * tt + h};
						PhysCoord p;
						layout_eval(le, sh, 3, c, &p);
						CHECK_INT(p.v[AX_LANEID], lane);
						CHECK_INT(p.v[AX_M], 2 * j + h);
					}
		}
	}
	arena_free(&a);
}

/* wgmma D (f32) of warp w: register i is row 16w + g + 8((i/2)%2),
 * column 8(i/4) + 2t + (i & 1) (ISA "wgmma .m64nNk16 D fragment") */
static int wg_n;

TEST(fragment_wgmma_maps)
{
	Arena a;
	arena_init(&a, NULL);
	static const int ns[] = {8, 64, 256};
	for (size_t k = 0; k < countof(ns); k++) {
		wg_n = ns[k];
		char shape[16];
		snprintf(shape, sizeof shape, "m64n%dk16", wg_n);
		FragReq r = req(FRAG_WGMMA, 'D', shape, "float32", 32, 0, false);
		Layout *l = make(t, &a, r);
		int64_t sh[3] = {4, 16, wg_n};
		for (int w = 0; w < 4; w++)
			for (int lane = 0; lane < 32; lane++)
				for (int i = 0; i < wg_n / 2; i++) {
					int g = lane / 4, tt = lane % 4;
					int64_t c[3] = {w, g + 8 * ((i / 2) % 2),
							8 * (i / 4) + 2 * tt + (i & 1)};
					PhysCoord p;
					layout_eval(l, sh, 3, c, &p);
					CHECK_INT(p.v[AX_WID_IN_WG], w);
					CHECK_INT(p.v[AX_LANEID], lane);
					CHECK_INT(p.v[AX_M], i);
				}
	}
	/* register A (bf16 k16): mma A's map per warp */
	FragReq r = req(FRAG_WGMMA, 'A', "m64n128k16", "bfloat16", 16, 0, false);
	Layout *l = make(t, &a, r);
	int64_t sh[3] = {4, 16, 8};
	for (int w = 0; w < 4; w++)
		for (int lane = 0; lane < 32; lane++)
			for (int i = 0; i < 4; i++) {
				int row, col;
				a_k16_f16(lane, i, &row, &col);
				int64_t c[3] = {w, row, col};
				PhysCoord p;
				layout_eval(l, sh, 3, c, &p);
				CHECK_INT(p.v[AX_WID_IN_WG], w);
				CHECK_INT(p.v[AX_LANEID], lane);
				CHECK_INT(p.v[AX_M], i);
			}
	arena_free(&a);
}

TEST(fragment_refusals)
{
	Arena a;
	arena_init(&a, NULL);
	Layout *l;
	FragReq bad[] = {
		req(FRAG_MMA_SYNC, 'A', "m16n8k16", "float32", 32, 0, false),
		req(FRAG_MMA_SYNC, 'Q', "m16n8k16", "bfloat16", 16, 0, false),
		req(FRAG_MMA_SYNC, 'A', "m8n8k4", "float16", 16, 0, false),
		req(FRAG_LDMATRIX, 0, NULL, NULL, 32, 3, false),
		req(FRAG_LDMATRIX, 0, NULL, NULL, 8, 4, false),
		req(FRAG_WGMMA, 'D', "m64n12k16", "float32", 32, 0, false),
		req(FRAG_WGMMA, 'B', "m64n64k16", "bfloat16", 16, 0, false),
	};
	for (size_t i = 0; i < countof(bad); i++)
		CHECK(frag_layout(&a, &bad[i], &l) != NULL);
	FragReq rep = req(FRAG_MMA_SYNC, 'A', "m16n8k16", "bfloat16", 16, 0, false);
	rep.repeat[0] = 0, rep.nrepeat = 1;
	CHECK(frag_layout(&a, &rep, &l) != NULL);
	rep.repeat[0] = 2, rep.order[0] = 1, rep.norder = 1;
	CHECK(frag_layout(&a, &rep, &l) != NULL);
	arena_free(&a);
}

/* Through the script: a fragment the ISA does not define is
 * PT_E_FRAGMENT at the call, and a good one lowers to the layout that
 * T.TileLayout spells out (the same buffer layout either way). */
TEST(fragment_script_code)
{
	static const char head[] =
		"from tvm_tirx.script import tirx as T\n"
		"@T.function\n"
		"def k(A: T.Tensor((32,), \"float32\")):\n"
		"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n";
	char src[1024];
	snprintf(src, sizeof src, "%s    a = T.alloc_local((2, 16, 4), \"uint32\", "
		 "layout=T.cuda.mma_sync_layout(\"A\", \"m16n8k12\", \"float16\", "
		 "repeat=2))\n", head);
	pt_ctx *c = pt_ctx_new(NULL);
	pt_module *m;
	CHECK_INT(pt_load(c, "f.py", src, strlen(src), &m), PT_E_FRAGMENT);
	CHECK(pt_diag_count(c) == 1 && pt_diag_code(c, 0) == PT_E_FRAGMENT);
	pt_ctx_free(c);
	snprintf(src, sizeof src, "%s    a = T.alloc_local((2, 16, 4), \"uint32\", "
		 "layout=T.cuda.mma_sync_layout(\"A\", \"m16n8k8\", \"float16\", "
		 "repeat=2))\n", head);
	c = pt_ctx_new(NULL);
	const char *text = NULL;
	CHECK_INT(pt_load(c, "f.py", src, strlen(src), &m), PT_OK);
	if (pt_print(c, m, &text) == PT_OK)
		CHECK(strstr(text, "T.S[(2, 2, 8, 4):(2, 1, 4@T.cuda.Axis.laneid, "
			      "1@T.cuda.Axis.laneid)]") != NULL);
	pt_ctx_free(c);
}

/* tcgen05 data-path layouts (PTX ISA, tcgen05 "Data path layout
 * organization"): for every (row, col) of the (rows, cols) accumulator,
 * the TMEM lane and column the figure gives; layouts must also put no two
 * coordinates in one (lane, column) */
static void
isa_tmem(char d, int sub, int64_t rows, int64_t cols, int64_t row, int64_t col,
	 int64_t *lane, int64_t *tcol)
{
	(void)rows;
	switch (d) {
	case 'A': case 'D': /* M = 128 per CTA: row i is lane i */
		*lane = row, *tcol = col;
		break;
	case 'B': case 'E': /* half datapath: second column half on lanes 64+ */
		*lane = row + (col >= cols / 2 ? 64 : 0);
		*tcol = col % (cols / 2);
		break;
	case 'G': /* quarter datapath: column quarter q on lanes 32q.. */
		*lane = row + 32 * (col / (cols / 4));
		*tcol = col % (cols / 4);
		break;
	default: /* C, F: 16 rows in each warp's 32-lane slab */
		*lane = 32 * (row / 16) + row % 16 + 16 * sub;
		*tcol = col;
	}
}

TEST(fragment_tmem_datapaths)
{
	Arena a;
	arena_init(&a, NULL);
	static const struct {
		char d;
		int sub;
		int64_t rows, cols;
	} cases[] = {
		{'A', 0, 128, 64}, {'D', 0, 128, 256}, {'B', 0, 64, 128},
		{'E', 0, 64, 32},  {'C', 0, 64, 64},   {'F', 0, 64, 16},
		{'F', 1, 64, 16},  {'G', 0, 32, 64},
	};
	for (size_t k = 0; k < countof(cases); k++) {
		FragReq r;
		memset(&r, 0, sizeof r);
		r.kind = FRAG_TMEM, r.datapath = cases[k].d;
		r.rows = cases[k].rows, r.cols = cases[k].cols;
		r.sub_slab = cases[k].sub;
		Layout *l = make(t, &a, r);
		static unsigned char used[128][512];
		memset(used, 0, sizeof used);
		int64_t shape[2] = {r.rows, r.cols};
		for (int64_t row = 0; l && row < r.rows; row++)
			for (int64_t col = 0; col < r.cols; col++) {
				int64_t lane, tc, c[2] = {row, col};
				isa_tmem(r.datapath, r.sub_slab, r.rows, r.cols,
					 row, col, &lane, &tc);
				PhysCoord p;
				layout_eval(l, shape, 2, c, &p);
				if (p.v[AX_TLANE] != lane || p.v[AX_TCOL] != tc) {
					test_fail(t, __FILE__, __LINE__,
						  "datapath %c (%lld, %lld): lane "
						  "%lld col %lld, ISA %lld %lld",
						  r.datapath, (long long)row,
						  (long long)col,
						  (long long)p.v[AX_TLANE],
						  (long long)p.v[AX_TCOL],
						  (long long)lane, (long long)tc);
					row = r.rows;
					break;
				}
				CHECK(used[lane][tc]++ == 0);
			}
	}
	/* refusals: rows that are not the datapath's, odd columns for B,
	 * sub_slab outside C/F, an unknown letter */
	FragReq bad;
	memset(&bad, 0, sizeof bad);
	bad.kind = FRAG_TMEM, bad.datapath = 'D', bad.rows = 64, bad.cols = 8;
	Layout *l;
	CHECK(frag_layout(&a, &bad, &l) != NULL);
	bad.datapath = 'B', bad.cols = 7;
	CHECK(frag_layout(&a, &bad, &l) != NULL);
	bad.cols = 8, bad.sub_slab = 1;
	CHECK(frag_layout(&a, &bad, &l) != NULL);
	bad.datapath = 'H', bad.sub_slab = 0;
	CHECK(frag_layout(&a, &bad, &l) != NULL);
	arena_free(&a);
}
