/*
 * gemm_wgmma_twin.cu - the hand-written CUDA C++ twin of
 * examples/gemm_wgmma.py, the same algorithm in inline PTX: C = A @ B.T,
 * bf16 A (M, K), B (N, K) K-contiguous, f32 accumulation, bf16 C.
 * Persistent, clusters of 2 CTAs of 384 threads: cluster c takes the
 * 256 x 256 blocks of C in turn (block = c, + clusters, ...), CTA rank r
 * its rows 128 r .. 128 r + 127; one ring across tiles; warpgroup 0
 * produces (one thread: empty-wait, expect_tx, the TMA load of its
 * 128 x 64 box of A and the multicast of its half, 128 x 64, of the
 * 256 x 64 box of B into both CTAs, 128B swizzle, into a 4-stage ring),
 * warpgroups 1 and 2 consume (full-wait, wgmma.fence, 4 x wgmma
 * m64n256k16 per 64-wide k-tile, commit, wait_group 1, release the
 * previous stage in both CTAs: "empty" counts 4 arrivals, thread r of
 * each consumer warpgroup arrives on CTA r's), setmaxnreg 40/232, and
 * the epilogue through shared memory (epilogue_tma: stmatrix into two
 * 8 KiB 128B-swizzled buffers per consumer warpgroup, TMA store per
 * 64 x 64 quarter; N % 8 == 0 for C's map).  With -DEPI_DIRECT it is
 * the twin of examples/gemm_wgmma_direct.py instead: direct bf16x2
 * stores (b16 halves for odd N) masked to row < M, col < N, 192 KiB of
 * shared memory, tc unused.  Sizes are runtime arguments, ragged edges
 * allowed (the tensor maps zero-fill past M, N, K and clip the stores;
 * K % 8 == 0 for the TMA row stride); the caller launches
 * 2 min(max(SM count / 2, 1), pairs) CTAs with the example's dynamic
 * shared memory + 1024 and encodes the maps as the example's metadata
 * says (boxes, swizzle, L2 promotion).  Built with
 *   nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -O3 [-DEPI_DIRECT]
 */
#include <cuda.h>
#include <stdint.h>

static __device__ __forceinline__ uint32_t
smem_u32(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void
wait_parity(uint32_t bar, uint32_t parity)
{
	asm volatile("{\n\t.reg .pred p;\n"
		     "WAIT_%=:\n\t"
		     "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
		     "@!p bra WAIT_%=;\n}" :: "r"(bar), "r"(parity) : "memory");
}

static __device__ __forceinline__ void
cluster_sync(void)
{
	asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
		     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* Arrives on the "empty" barrier at the same offset in CTA cta. */
static __device__ __forceinline__ void
release(uint32_t bar, uint32_t cta)
{
	asm volatile("{\n\t.reg .b32 r;\n\t"
		     "mapa.shared::cluster.u32 r, %0, %1;\n\t"
		     "mbarrier.arrive.shared::cluster.b64 _, [r];\n}"
		     :: "r"(bar), "r"(cta) : "memory");
}

#ifndef EPI_DIRECT
/* Named barrier id over count threads (one consumer warpgroup). */
static __device__ __forceinline__ void
bar_sync(int id, int count)
{
	asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count) : "memory");
}

/* Epilogue of one consumer warpgroup through shared memory: its 64 x 256
 * block of C in four 64 x 64 quarters, each converted to bf16 and
 * written with stmatrix into one of two 8 KiB buffers (128B swizzle,
 * the TMA store map's), then stored by its first thread with one TMA
 * store (bulk group; the edges are clipped by the map).  A buffer is
 * rewritten only after the store that read it two quarters ago has
 * finished reading (wait_group.read 1), so the consumers go on to the
 * next tile while the last two stores drain. */
static __device__ __forceinline__ void
epilogue_tma(const float *d, const CUtensorMap *tc, uint32_t cbuf, int wg,
	     int w, int lane, int row, int col)
{
	int leader = w == 0 && lane == 0;
#pragma unroll
	for (int q = 0; q < 4; q++) {
		uint32_t buf = cbuf + (q % 2) * 8192;
		if (leader)
			asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
		bar_sync(1 + wg, 128);
#pragma unroll
		for (int cb = 0; cb < 8; cb += 2) {
			/* matrix j: column block cb + j/2, row half j%2 =
			 * accumulator pair 2 (8q + cb) + j */
			uint32_t r[4];
#pragma unroll
			for (int j = 0; j < 4; j++) {
				int i = 2 * (8 * q + cb) + j;
				asm("cvt.rn.bf16x2.f32 %0, %1, %2;"
				    : "=r"(r[j]) : "f"(d[2 * i + 1]), "f"(d[2 * i]));
			}
			int j = lane / 8, rr = lane % 8;
			int srow = 16 * w + 8 * (j % 2) + rr;
			int ch = cb + j / 2;
			uint32_t a = buf + srow * 128 + ((ch ^ rr) * 16);
			asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
				     :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
		}
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
		bar_sync(1 + wg, 128);
		if (leader) {
			asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
				     :: "l"(tc), "r"(col + 64 * q), "r"(row), "r"(buf) : "memory");
			asm volatile("cp.async.bulk.commit_group;" ::: "memory");
		}
	}
}
#endif

static __device__ __forceinline__ uint64_t
desc_128b(uint32_t addr)
{
	/* sm_90 descriptor: start >> 4, LBO 16 B (unused, K-major
	 * swizzled), SBO 1024 B (8 rows of 128 B), layout type 1 = 128B */
	return (uint64_t)((addr >> 4) & 0x3FFF) | (1ull << 16) |
	       (64ull << 32) | (1ull << 62);
}

static __device__ __forceinline__ void
wgmma_256(float *d, uint64_t da, uint64_t db, int scale_d)
{
	asm volatile("{\n\t.reg .pred p;\n\t"
		     "setp.ne.b32 p, %130, 0;\n\t"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n}"
		  : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
		  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
		  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
		  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
		  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
		  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
		  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
		  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
		  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
		  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
		  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
		  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
		  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
		  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
		  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
		  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		  : "l"(da), "l"(db), "r"(scale_d));
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1)
gemm_wgmma_twin(const __grid_constant__ CUtensorMap ta,
		const __grid_constant__ CUtensorMap tb,
		const __grid_constant__ CUtensorMap tc, uint16_t *C, int M,
		int N, int K)
{
	extern __shared__ uint8_t smem_raw[];
	__shared__ __align__(8) uint64_t full[4], empty[4];
	uint8_t *smem = (uint8_t *)(((uintptr_t)smem_raw + 1023) &
				    ~(uintptr_t)1023);
	uint32_t sa = smem_u32(smem), sb = sa + 4 * 16384;
#ifndef EPI_DIRECT
	uint32_t sc = sb + 4 * 32768; /* 2 x 2 x 8 KiB C buffers */
#endif
	int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
	int KT = (K + 63) / 64, NT = (N + 255) / 256;
	int npair = (M + 255) / 256 * NT;
	int cid = blockIdx.x / 2, ncl = gridDim.x / 2;
	uint32_t rank;
	asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
	if (tid == 0) {
		for (int j = 0; j < 4; j++) {
			asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(
				smem_u32(&full[j])));
			asm volatile("mbarrier.init.shared.b64 [%0], 4;" ::"r"(
				smem_u32(&empty[j])));
		}
		asm volatile("fence.mbarrier_init.release.cluster;");
	}
	cluster_sync();
	if (warp < 4) {
		asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
		if (tid == 0) {
			int it = 0;
			for (int tile = cid; tile < npair; tile += ncl) {
				int bm = tile / NT * 2 + rank, bn = tile % NT;
				for (int kt = 0; kt < KT; kt++, it++) {
					int s = it % 4;
					if (it >= 4)
						wait_parity(smem_u32(&empty[s]),
							    (it / 4 - 1) % 2);
					uint32_t fb = smem_u32(&full[s]);
					asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], 49152;"
						     ::"r"(fb) : "memory");
					asm volatile("cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
						     ::"r"(sa + s * 16384), "l"(&ta), "r"(kt * 64),
						     "r"(bm * 128), "r"(fb) : "memory");
					asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;"
						     ::"r"(sb + s * 32768 + rank * 16384), "l"(&tb),
						     "r"(kt * 64), "r"(bn * 256 + rank * 128),
						     "r"(fb), "h"((uint16_t)3) : "memory");
				}
			}
		}
	} else {
		asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
		int wg = warp / 8;  /* warps 4-7 -> 0, 8-11 -> 1 */
		float d[128];
#pragma unroll
		for (int i = 0; i < 128; i++)
			d[i] = 0.0f;
		int w = warp % 4, it = 0;
		for (int tile = cid; tile < npair; tile += ncl) {
			int bm = tile / NT * 2 + rank, bn = tile % NT;
			for (int kt = 0; kt < KT; kt++, it++) {
				int s = it % 4;
				wait_parity(smem_u32(&full[s]), (it / 4) % 2);
				asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
				uint32_t a0 = sa + s * 16384 + wg * 8192;
				uint32_t b0 = sb + s * 32768;
#pragma unroll
				for (int j = 0; j < 4; j++)
					wgmma_256(d, desc_128b(a0 + 32 * j),
						  desc_128b(b0 + 32 * j),
						  kt > 0 || j > 0);
				asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
				asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
				if (kt > 0 && tid % 128 < 2)
					release(smem_u32(&empty[(it + 3) % 4]), tid % 128);
			}
			asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
			if (tid % 128 < 2)
				release(smem_u32(&empty[(it + 3) % 4]), tid % 128);
#ifndef EPI_DIRECT
			epilogue_tma(d, &tc, sc + wg * 16384, wg, w, lane,
				     bm * 128 + wg * 64, bn * 256);
#else
			int g = lane / 4, t = lane % 4;
			int row0 = bm * 128 + wg * 64 + 16 * w + g;
			int col0 = bn * 256 + 2 * t;
#pragma unroll
			for (int i = 0; i < 64; i++) {
				uint32_t packed;
				asm("cvt.rn.bf16x2.f32 %0, %1, %2;"
				    : "=r"(packed) : "f"(d[2 * i + 1]), "f"(d[2 * i]));
				int row = row0 + 8 * (i % 2), col = col0 + 8 * (i / 2);
				uint16_t *p = C + (size_t)row * N + col;
				if (N % 2 == 0) {
					if (row < M && col < N)
						*(uint32_t *)p = packed;
				} else {
					if (row < M && col < N)
						p[0] = (uint16_t)packed;
					if (row < M && col + 1 < N)
						p[1] = (uint16_t)(packed >> 16);
				}
			}
#endif
		}
#ifndef EPI_DIRECT
		/* the last stores have read their buffers before the CTA's
		 * shared memory goes away */
		if (tid % 128 == 0)
			asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
	}
	cluster_sync(); /* the peer may still arrive on our barriers */
}
