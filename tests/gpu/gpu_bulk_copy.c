/*
 * gpu_bulk_copy.c - cluster shared copies (cp.async.bulk.shared::cluster,
 * one tile call of eight 256-byte chunks) on a real GPU, kernels in
 * tests/gpu/kernels/bulk_copy_gapped.py, against a host image written
 * from the reference's "Repeated chunks and synchronization": repeat i
 * copies the 128 float16 elements of source chunk i (row i of A) to
 * destination chunk i; bytes outside the eight destination chunks are
 * never written.
 *   gapped   destination chunk i = D[i, 0:128] of an (8, 256) buffer;
 *            B = all of D: row i is A[i] then 128 sentinels.
 *   compact  destination chunk i = D[1 + i, :] of a (10, 128) buffer;
 *            B rows 0 and 9 are sentinels, row 1 + i is A[i].
 * The destination starts as -1000.0 everywhere; source gaps hold -2000.0
 * (a flattened copy across a gap would bring them along).  Values are
 * compared as bits.  binary16 bits of the two sentinels, by hand:
 * 1000 = 1.953125 * 2^9 -> exponent 9 + 15 = 24, fraction 0.953125 * 1024
 * = 976 = 0x3d0: 0x8000 | 24 << 10 | 0x3d0 = 0xe3d0; 2000 = 1000 * 2 ->
 * exponent 25: 0xe7d0.
 */
#include "gpu_script.h"

#define DST_SENTINEL 0xe3d0u /* -1000.0 */
#define SRC_GAP 0xe7d0u      /* -2000.0 */

enum { CHUNKS = 8, CHUNK_ELEMS = 128 };

/* Uploads A, launches `name` with B of `brows` x `bcols` float16 and
 * checks B against want[brows * bcols]. */
static void
run_bulk(GpuRun *g, const char *name, const uint16_t *a, int brows,
	 int bcols, const uint16_t *want, char *why, size_t n)
{
	ptrt_kernel *k = gs_load(g, "tests/gpu/kernels/bulk_copy_gapped.py",
				 name, why, n);
	if (!k)
		return;
	size_t bbytes = (size_t)brows * bcols * 2;
	uint16_t *b = malloc(bbytes);
	ptrt_devptr da = gs_upload(g, a, CHUNKS * CHUNK_ELEMS * 2, why, n);
	ptrt_devptr db = gs_upload(g, NULL, bbytes, why, n);
	int64_t sa[] = {CHUNKS, CHUNK_ELEMS}, sb[] = {brows, bcols};
	ptrt_arg args[] = {ptrt_arg_tensor(da, PTRT_FLOAT16, 2, sa, NULL),
			   ptrt_arg_tensor(db, PTRT_FLOAT16, 2, sb, NULL)};
	if (!b || why[0] ||
	    gpu_check(g, ptrt_memset(g->rt, db, 0, bbytes), "memset", why,
		      n) ||
	    gpu_check(g, ptrt_launch(k, args, 2, NULL), "launch", why, n) ||
	    gpu_check(g, ptrt_sync(g->rt), "sync", why, n) ||
	    gpu_check(g, ptrt_copy_dtoh(g->rt, b, db, bbytes), "get B", why,
		      n)) {
		if (!b && !why[0])
			snprintf(why, n, "out of host memory");
		free(b);
		return;
	}
	for (int i = 0; i < brows * bcols; i++)
		if (b[i] != want[i]) {
			snprintf(why, n, "B[%d, %d] = 0x%04x, expected 0x%04x "
				 "(%s)", i / bcols, i % bcols, b[i], want[i],
				 want[i] == DST_SENTINEL ? "a gap: untouched"
							 : "chunk data");
			break;
		}
	free(b);
	ptrt_free(g->rt, da);
	ptrt_free(g->rt, db);
}

static void
random_chunks(uint16_t a[CHUNKS][CHUNK_ELEMS], uint64_t seed)
{
	/* |x| < 1: never zero and never a sentinel */
	for (int i = 0; i < CHUNKS; i++)
		for (int j = 0; j < CHUNK_ELEMS; j++)
			a[i][j] = gs_f2h(gs_rnd(&seed));
}

static void
run_gapped(GpuRun *g, char *why, size_t n)
{
	uint16_t a[CHUNKS][CHUNK_ELEMS], want[CHUNKS][2 * CHUNK_ELEMS];
	random_chunks(a, 0xb01cull);
	for (int i = 0; i < CHUNKS; i++)
		for (int j = 0; j < 2 * CHUNK_ELEMS; j++)
			want[i][j] = j < CHUNK_ELEMS ? a[i][j] : DST_SENTINEL;
	run_bulk(g, "bulk_copy_gapped", &a[0][0], CHUNKS, 2 * CHUNK_ELEMS,
		 &want[0][0], why, n);
}

static void
run_compact(GpuRun *g, char *why, size_t n)
{
	uint16_t a[CHUNKS][CHUNK_ELEMS], want[CHUNKS + 2][CHUNK_ELEMS];
	random_chunks(a, 0xc0de5ull);
	for (int i = 0; i < CHUNKS + 2; i++)
		for (int j = 0; j < CHUNK_ELEMS; j++)
			want[i][j] = i == 0 || i == CHUNKS + 1 ? DST_SENTINEL
							       : a[i - 1][j];
	run_bulk(g, "bulk_copy_compact", &a[0][0], CHUNKS + 2, CHUNK_ELEMS,
		 &want[0][0], why, n);
}

int
main(void)
{
	GpuRun g;
	gpu_open(&g, "gpu_bulk_copy");
	GPU_CASE(&g, "bulk_copy_eight_gapped_chunks", run_gapped);
	GPU_CASE(&g, "bulk_copy_gapped_src_compact_dst", run_compact);
	return gpu_finish(&g);
}
