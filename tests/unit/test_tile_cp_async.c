/*
 * Unit tests of the cp.async and cluster bulk copy families through the
 * public API (script text -> PTX): exact spellings and issue counts
 * (one instruction per repeat, mapa once for the barrier and once per
 * repeat for the destination), no inserted commit/wait, and the common
 * contract codes these families rely on (required parameters, unknown
 * keyword, non-contiguous chunk, unaligned base, missing group axis).
 */
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "ptxtile.h"

/* Compiles text for target; returns the PTX (NULL on error) and the
 * first diagnostic code in *code (0 when none). */
static const char *
compile(pt_ctx *c, const char *text, const char *target, int *code)
{
	pt_module *m = NULL;
	const char *ptx = NULL, *meta = NULL;
	*code = 0;
	int st = pt_load(c, "t.py", text, strlen(text), &m);
	if (st == PT_OK)
		st = pt_compile(c, m, target, &ptx, &meta);
	if (pt_diag_count(c))
		*code = pt_diag_code(c, 0);
	return st == PT_OK ? ptx : NULL;
}

static int
count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; p && (p = strstr(p, needle)); p++)
		n++;
	return n;
}

#define HEAD                                                              \
	"from tvm_tirx.script import tirx as T\n"                         \
	"@T.function\n"                                                   \
	"def k(A: T.Tensor((32, 16), \"uint8\", align=16), "              \
	"B: T.Tensor((32, 4, 1), \"uint32\", align=16), "                 \
	"n: T.int32, p: T.uint64):\n"                                     \
	"    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, "          \
	"block=32))\n"                                                    \
	"    tid = T.cuda.thread_idx(\"x\")\n"                            \
	"    S = T.alloc_shared((32, 16), \"uint8\", layout=\"default\", " \
	"align=16)\n"                                                     \
	"    W = T.alloc_shared((32, 4, 1), \"uint32\", align=16)\n"      \
	"    Z = T.alloc_shared((32, 8), \"uint8\", layout="              \
	"T.TileLayout(T.S[(32, 8):(16, 2)]), align=16)\n"

static int
cp_code(const char *call, const char *target, const char **ptx)
{
	char buf[2048];
	snprintf(buf, sizeof(buf), "%s    %s\n", HEAD, call);
	pt_ctx *c = pt_ctx_new(NULL);
	int code;
	const char *out = compile(c, buf, target, &code);
	if (ptx)
		*ptx = NULL;
	if (ptx && out) {
		static char keep[65536];
		snprintf(keep, sizeof(keep), "%s", out);
		*ptx = keep;
	}
	pt_ctx_free(c);
	return code;
}

TEST(cp_async_zero_fill_spelling_and_count)
{
	const char *ptx;
	int code = cp_code("T.cuda.tile.apply(T.ptx[\"cp.async.cg.shared.global"
			   ".L2::128B\"], S.sub[tid, :], A.sub[tid, :], "
			   "chunk_bytes=16, src_size=T.if_then_else(tid < n, "
			   "T.uint32(16), T.uint32(0)))", "sm_80", &ptx);
	CHECK_INT(code, 0);
	CHECK(ptx != NULL);
	CHECK_INT(count(ptx, "cp.async.cg.shared.global.L2::128B ["), 1);
	CHECK_INT(count(ptx, "], 16, %r"), 1);
	/* the caller supplies commit/wait; none is inserted */
	CHECK_INT(count(ptx, "commit_group"), 0);
	CHECK_INT(count(ptx, "wait_group"), 0);
	CHECK_INT(count(ptx, "bar.sync"), 0);
}

TEST(cp_async_ignore_src_and_pred)
{
	const char *ptx;
	/* ignore_src is an operand: the copy is issued (with a predicate
	 * operand), not predicated off */
	int code = cp_code("T.cuda.tile.apply(T.ptx[\"cp.async.ca.shared.global\"]"
			   ", S.sub[tid, 0:8], A.sub[tid, 0:8], chunk_bytes=8, "
			   "ignore_src=tid >= n)", "sm_80", &ptx);
	CHECK_INT(code, 0);
	CHECK(ptx && strstr(ptx, "\tcp.async.ca.shared.global ["));
	CHECK(ptx && strstr(ptx, "], 8, %p"));
	/* pred guards the issue instead */
	code = cp_code("T.cuda.tile.apply(T.ptx[\"cp.async.ca.shared.global\"]"
		       ", S.sub[tid, 0:4], A.sub[tid, 0:4], chunk_bytes=4, "
		       "pred=tid < n)", "sm_80", &ptx);
	CHECK_INT(code, 0);
	CHECK(ptx && strstr(ptx, "@%p"));
	CHECK(ptx && strstr(ptx, "cp.async.ca.shared.global ["));
	CHECK_INT(count(ptx, "cp.async.ca"), 1);
}

TEST(cp_async_cache_hint_and_repeats)
{
	const char *ptx;
	/* (4, 1) uint32 per thread: four 4-byte copies */
	int code = cp_code("T.cuda.tile.apply(T.ptx[\"cp.async.ca.shared.global"
			   ".L2::cache_hint\"], W.sub[tid, :, :], "
			   "B.sub[tid, :, :], chunk_bytes=4, cache_policy=p)",
			   "sm_90a", &ptx);
	CHECK_INT(code, 0);
	CHECK_INT(count(ptx, "cp.async.ca.shared.global.L2::cache_hint ["), 4);
	CHECK_INT(count(ptx, "], 4, %rd"), 4);
}

TEST(cp_async_contract_codes)
{
	/* required chunk_bytes, unknown keyword */
	CHECK_INT(cp_code("T.cuda.tile.apply(T.ptx[\"cp.async.cg.shared.global"
			  "\"], S.sub[tid, :], A.sub[tid, :])", "sm_80", NULL),
		  PT_E_TILE_PARAM_REQUIRED);
	CHECK_INT(cp_code("T.cuda.tile.apply(T.ptx[\"cp.async.cg.shared.global"
			  "\"], S.sub[tid, :], A.sub[tid, :], chunk_bytes=16, "
			  "zfill=True)", "sm_80", NULL),
		  PT_E_TILE_UNKNOWN_PARAM);
	CHECK_INT(cp_code("T.cuda.tile.apply(T.ptx[\"cp.async.cg.shared.global"
			  ".L2::cache_hint\"], S.sub[tid, :], A.sub[tid, :], "
			  "chunk_bytes=16)", "sm_80", NULL),
		  PT_E_TILE_PARAM_REQUIRED);
	/* a non-contiguous chunk: every other byte of a row */
	CHECK_INT(cp_code("T.cuda.tile.apply(T.ptx[\"cp.async.ca.shared.global"
			  "\"], Z.sub[tid, 0:4], A.sub[tid, 0:4], "
			  "chunk_bytes=4)",
			  "sm_80", NULL),
		  PT_E_TILE_ATOM_CONTIG);
	/* an unaligned base: a chunk starting at byte 4 of a row */
	CHECK_INT(cp_code("T.cuda.tile.apply(T.ptx[\"cp.async.ca.shared.global"
			  "\"], S.sub[0, 0:8], A.sub[0, 4:12], "
			  "chunk_bytes=8)", "sm_80", NULL),
		  PT_E_TILE_ATOM_ALIGN);
	/* missing group axis: a per-thread view at warp scope */
	CHECK_INT(cp_code("T.cuda.tile.apply(T.ptx[\"cp.async.cg.shared.global"
			  "\"], S.sub[tid, :], A.sub[tid, :], chunk_bytes=16, "
			  "scope=\"warp\")", "sm_80", NULL),
		  PT_E_TILE_RANK);
}

#define BULK_HEAD                                                         \
	"from tvm_tirx.script import tirx as T\n"                         \
	"@T.function\n"                                                   \
	"def k(A: T.Tensor((8, 128), \"float16\")):\n"                    \
	"    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=1%s))\n" \
	"    src = T.alloc_shared((8, 128), \"float16\", layout="          \
	"T.TileLayout(T.S[(8, 128):(256, 1)]), align=16)\n"               \
	"    dst = T.alloc_shared((8, 128), \"float16\", layout="          \
	"T.TileLayout(T.S[(8, 128):(256, 1)]), align=16)\n"               \
	"    mbar = T.alloc_shared((1,), \"uint64\", align=8)\n"

static int
bulk_code(const char *cluster, const char *call, const char **ptx)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), BULK_HEAD "    %s\n", cluster, call);
	pt_ctx *c = pt_ctx_new(NULL);
	int code;
	const char *out = compile(c, buf, "sm_90a", &code);
	if (ptx)
		*ptx = NULL;
	if (ptx && out) {
		static char keep[65536];
		snprintf(keep, sizeof(keep), "%s", out);
		*ptx = keep;
	}
	pt_ctx_free(c);
	return code;
}

#define BULK_OP "T.ptx[\"cp.async.bulk.shared::cluster.shared::cta." \
		"mbarrier::complete_tx::bytes\"]"

TEST(bulk_gapped_chunks_eight_copies)
{
	const char *ptx;
	int code = bulk_code(", cluster=2", "T.cuda.tile.apply(" BULK_OP
			     ", dst, src, chunk_bytes=256, mbar=mbar.ptr_to([0]),"
			     " remote_cta_id=T.uint32(1))", &ptx);
	/* compiles, with the warning that mbar is never initialised here
	 * (this fragment has no mbarrier.init) */
	CHECK(ptx != NULL);
	CHECK_INT(code, PT_E_PTX_MBAR_UNINIT);
	CHECK_INT(count(ptx, "\tcp.async.bulk.shared::cluster.shared::cta."
			     "mbarrier::complete_tx::bytes ["), 8);
	CHECK_INT(count(ptx, "], 256, ["), 8);
	/* one mapa for the barrier, one per repeat for the destination */
	CHECK_INT(count(ptx, "\tmapa.shared::cluster.u32 "), 9);
	/* the barrier's mapa comes before the first copy */
	const char *m = ptx ? strstr(ptx, "\tmapa") : NULL;
	const char *b = ptx ? strstr(ptx, "\tcp.async.bulk") : NULL;
	CHECK(m && b && m < b);
}

/* remote_cta_id is a CTA rank of the launch cluster, 0..n-1 (PTX ISA,
 * mapa: the target CTA's rank in the cluster): with cluster=2, ranks 0
 * and 1 compile (only the uninitialised-mbar warning of this fragment),
 * 2 and -1 are PT_E_BULK_REMOTE_RANK. */
TEST(bulk_remote_rank_bounds)
{
	static const struct { const char *rank; int code; } cases[] = {
		{"0", PT_E_PTX_MBAR_UNINIT}, {"1", PT_E_PTX_MBAR_UNINIT},
		{"2", PT_E_BULK_REMOTE_RANK}, {"-1", PT_E_BULK_REMOTE_RANK},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char call[512];
		snprintf(call, sizeof(call), "T.cuda.tile.apply(" BULK_OP
			 ", dst, src, chunk_bytes=256, mbar=mbar.ptr_to([0]),"
			 " remote_cta_id=%s)", cases[i].rank);
		const char *ptx;
		int code = bulk_code(", cluster=2", call, &ptx);
		if (code != cases[i].code)
			test_fail(t, __FILE__, __LINE__,
				  "remote_cta_id=%s: E%04d, expected E%04d",
				  cases[i].rank, code, cases[i].code);
		CHECK((ptx != NULL) == (cases[i].code == PT_E_PTX_MBAR_UNINIT));
	}
}

TEST(bulk_contract_codes)
{
	/* a larger chunk flattened over the gap: (4, 256) over (256, 1)
	 * rows of 128 elements */
	CHECK_INT(bulk_code(", cluster=2", "T.cuda.tile.apply(" BULK_OP
			    ", dst.view(4, 256, layout=T.TileLayout(T.S[(4, 2, 128):(512, 256, 1)])), src.view(4, 256, layout=T.TileLayout(T.S[(4, 2, 128):(512, 256, 1)])), "
			    "chunk_bytes=512, mbar=mbar.ptr_to([0]), "
			    "remote_cta_id=1)", NULL),
		  PT_E_BULK_GAP);
	CHECK_INT(bulk_code(", cluster=2", "T.cuda.tile.apply(" BULK_OP
			    ", dst, src, chunk_bytes=200, mbar=mbar.ptr_to([0]),"
			    " remote_cta_id=1)", NULL),
		  PT_E_BULK_CHUNK_BYTES);
	CHECK_INT(bulk_code(", cluster=2", "T.cuda.tile.apply(" BULK_OP
			    ", dst, src, chunk_bytes=256, remote_cta_id=1)",
			    NULL),
		  PT_E_TILE_PARAM_REQUIRED);
	CHECK_INT(bulk_code(", cluster=2", "T.cuda.tile.apply(" BULK_OP
			    ", dst, src, chunk_bytes=256, mbar=mbar.ptr_to([0]))",
			    NULL),
		  PT_E_TILE_PARAM_REQUIRED);
	CHECK_INT(bulk_code(", cluster=2", "T.cuda.tile.apply(" BULK_OP
			    ", dst, src, chunk_bytes=256, mbar=mbar.ptr_to([0]),"
			    " remote_cta_id=1, multicast=1)", NULL),
		  PT_E_TILE_UNKNOWN_PARAM);
	CHECK_INT(bulk_code("", "T.cuda.tile.apply(" BULK_OP
			    ", dst, src, chunk_bytes=256, mbar=mbar.ptr_to([0]),"
			    " remote_cta_id=1)", NULL),
		  PT_E_BULK_NO_CLUSTER);
}
