// gemm_twin.cu - the hand-written CUDA C++ twin of examples/gemm_bf16.py
// with inline PTX: the same 128x128x32 CTA tile, 8 warps as 2 x 4 (64 x
// 32 per warp), the same four padded shared stages (40-element pitch,
// 80 KiB of dynamic shared memory), the same cp.async.cg chunks per
// thread with three k-tiles in flight, one barrier per k-tile, the k loop
// unrolled by four (constant stage indices), the same ldmatrix.x4 calls,
// mma.sync m16n8k16 issue order (M, N, then K), cvt.rn.bf16x2.f32 and
// st.global.b32 epilogue.
// C = A @ B.T; A (M, K), B (N, K), C (M, N) bf16, row-major.
//
// Also `mma_peak`: mma.sync m16n8k16 bf16 from registers only (16
// independent accumulators per warp, the GEMM's per-k16 pattern), the
// ceiling this kernel design can approach on the device.
//
// Built with `nvcc -cubin -arch=sm_90a -O3` and loaded by bench.py.
#include <stdint.h>

#ifndef GEMM_M
#define GEMM_M 4096
#define GEMM_N 4096
#define GEMM_K 4096
#endif
#define KT (GEMM_K / 32)

__device__ __forceinline__ uint32_t
smem_u32(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void
cp16(void *dst, const void *src)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
		     :
		     : "r"(smem_u32(dst)), "l"(src)
		     : "memory");
}

template <int N>
__device__ __forceinline__ void
wait_group(void)
{
	asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ void
ldsm4(uint32_t *r0, uint32_t *r1, uint32_t *r2, uint32_t *r3, const void *p)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
		     : "=r"(*r0), "=r"(*r1), "=r"(*r2), "=r"(*r3)
		     : "r"(smem_u32(p)));
}

__device__ __forceinline__ void
mma16816(float *d, const uint32_t *a, const uint32_t *b)
{
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
		     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
		     "{%0, %1, %2, %3};"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
		       "r"(b[1]));
}

template <int S> struct Smem {
	uint16_t a[S][128][40];
	uint16_t b[S][128][40];
};

// then commits the group; thread (warp, lane) copies rows 64*i + 8*warp + lane/4, columns
// 8*(lane%4)..+8 of the k-tile, i = 0, 1 (A then B, as the script)
template <int S>
__device__ __forceinline__ void
load_stage(Smem<S> &s, int st, const uint16_t *A, const uint16_t *B, int bm,
	   int bn, int kt, int warp, int lane)
{
#pragma unroll
	for (int i = 0; i < 2; i++) {
		int row = 64 * i + 8 * warp + lane / 4, col = 8 * (lane % 4);
		cp16(&s.a[st][row][col],
		     A + (size_t)(bm * 128 + row) * GEMM_K + kt * 32 + col);
	}
#pragma unroll
	for (int i = 0; i < 2; i++) {
		int row = 64 * i + 8 * warp + lane / 4, col = 8 * (lane % 4);
		cp16(&s.b[st][row][col],
		     B + (size_t)(bn * 128 + row) * GEMM_K + kt * 32 + col);
	}
	asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int S>
__device__ __forceinline__ void
compute_stage(Smem<S> &s, int st, float (&acc)[4][4][4], int wm, int wn,
	      int lane)
{
	uint32_t fa[4][2][4], fb[4][2][2];
	int i = lane >> 3, j = lane & 7;
	// A: matrix i = (k half i/2, row half i%2) of block (ks, mi)
#pragma unroll
	for (int ks = 0; ks < 2; ks++)
#pragma unroll
		for (int mi = 0; mi < 4; mi++)
			ldsm4(&fa[mi][ks][0], &fa[mi][ks][1], &fa[mi][ks][2],
			      &fa[mi][ks][3],
			      &s.a[st][wm * 64 + mi * 16 + (i & 1) * 8 + j]
				  [ks * 16 + (i >> 1) * 8]);
	// B: matrix i = (n8 block i/2, k half i%2) of block (ks, np)
#pragma unroll
	for (int ks = 0; ks < 2; ks++)
#pragma unroll
		for (int np = 0; np < 2; np++)
			ldsm4(&fb[2 * np][ks][0], &fb[2 * np][ks][1],
			      &fb[2 * np + 1][ks][0], &fb[2 * np + 1][ks][1],
			      &s.b[st][wn * 32 + np * 16 + (i >> 1) * 8 + j]
				  [ks * 16 + (i & 1) * 8]);
#pragma unroll
	for (int mi = 0; mi < 4; mi++)
#pragma unroll
		for (int ni = 0; ni < 4; ni++)
#pragma unroll
			for (int ks = 0; ks < 2; ks++)
				mma16816(acc[mi][ni], fa[mi][ks], fb[ni][ks]);
}

// epilogue: cvt's first source goes to the high half; then one
// st.global.b32 per accumulator row pair
__device__ __forceinline__ void
store_tile(uint16_t *C, float (&acc)[4][4][4], int wm, int wn, int bm,
	   int bn, int lane)
{
	uint32_t p[4][4][2];
#pragma unroll
	for (int mi = 0; mi < 4; mi++)
#pragma unroll
		for (int ni = 0; ni < 4; ni++)
#pragma unroll
			for (int rh = 0; rh < 2; rh++)
				asm("cvt.rn.bf16x2.f32 %0, %1, %2;"
				    : "=r"(p[mi][ni][rh])
				    : "f"(acc[mi][ni][2 * rh + 1]),
				      "f"(acc[mi][ni][2 * rh]));
#pragma unroll
	for (int mi = 0; mi < 4; mi++)
#pragma unroll
		for (int ni = 0; ni < 4; ni++)
#pragma unroll
			for (int rh = 0; rh < 2; rh++) {
				int row = bm * 128 + wm * 64 + mi * 16 + rh * 8 +
					  lane / 4;
				int col = bn * 128 + wn * 32 + ni * 8 +
					  2 * (lane % 4);
				asm volatile("st.global.b32 [%0], %1;"
					     :
					     : "l"(C + (size_t)row * GEMM_N + col),
					       "r"(p[mi][ni][rh])
					     : "memory");
			}
}

extern "C" __global__ void __launch_bounds__(256, 2)
gemm_twin(const uint16_t *__restrict__ A, const uint16_t *__restrict__ B,
	  uint16_t *__restrict__ C)
{
	extern __shared__ __align__(128) unsigned char dyn[];
	Smem<4> &s = *reinterpret_cast<Smem<4> *>(dyn);
	int warp = threadIdx.x >> 5, lane;
	asm("mov.u32 %0, %%laneid;" : "=r"(lane));
	int wm = warp / 4, wn = warp % 4, bn = blockIdx.x, bm = blockIdx.y;
	float acc[4][4][4];
#pragma unroll
	for (int a = 0; a < 4; a++)
#pragma unroll
		for (int b = 0; b < 4; b++)
#pragma unroll
			for (int c = 0; c < 4; c++)
				acc[a][b][c] = 0.0f;
	for (int j = 0; j < 3; j++)
		load_stage(s, j, A, B, bm, bn, j, warp, lane);
	// k-tile kt = 4*it + j lives in stage j; after the barrier stage
	// (j + 3) % 4 (k-tile kt - 1) is free for k-tile kt + 3
	for (int it = 0; it < KT / 4 - 1; it++) {
#pragma unroll
		for (int j = 0; j < 4; j++) {
			wait_group<2>();
			__syncthreads();
			load_stage(s, (j + 3) % 4, A, B, bm, bn, 4 * it + j + 3,
				   warp, lane);
			compute_stage(s, j, acc, wm, wn, lane);
		}
	}
	// the last four k-tiles: only KT - 1 remains to be fetched
	wait_group<2>();
	__syncthreads();
	load_stage(s, 3, A, B, bm, bn, KT - 1, warp, lane);
	compute_stage(s, 0, acc, wm, wn, lane);
	wait_group<2>();
	__syncthreads();
	compute_stage(s, 1, acc, wm, wn, lane);
	wait_group<1>();
	__syncthreads();
	compute_stage(s, 2, acc, wm, wn, lane);
	wait_group<0>();
	__syncthreads();
	compute_stage(s, 3, acc, wm, wn, lane);
	store_tile(C, acc, wm, wn, bm, bn, lane);
}

// mma.sync throughput: per iteration each warp issues the GEMM's 16
// independent m16n8k16 (4 x 4 accumulators); out keeps them live.
extern "C" __global__ void __launch_bounds__(256)
mma_peak(float *out, int iters)
{
	uint32_t a[4][4], b[4][2];
	float acc[4][4][4];
#pragma unroll
	for (int i = 0; i < 4; i++) {
#pragma unroll
		for (int r = 0; r < 4; r++)
			a[i][r] = 0x3f803f80u ^ (threadIdx.x * (i + r + 1));
#pragma unroll
		for (int r = 0; r < 2; r++)
			b[i][r] = 0x3f803f80u ^ (threadIdx.x * (i + r + 7));
#pragma unroll
		for (int n = 0; n < 4; n++)
#pragma unroll
			for (int c = 0; c < 4; c++)
				acc[i][n][c] = 0.0f;
	}
	for (int it = 0; it < iters; it++)
#pragma unroll
		for (int mi = 0; mi < 4; mi++)
#pragma unroll
			for (int ni = 0; ni < 4; ni++)
				mma16816(acc[mi][ni], a[mi], b[ni]);
	float s = 0.0f;
#pragma unroll
	for (int mi = 0; mi < 4; mi++)
#pragma unroll
		for (int ni = 0; ni < 4; ni++)
#pragma unroll
			for (int c = 0; c < 4; c++)
				s += acc[mi][ni][c];
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
