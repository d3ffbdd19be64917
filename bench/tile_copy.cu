// tile_copy.cu - the hand-written CUDA C++ twin of bench/tile_copy.py
// (inline PTX, the same CTA shape, the same four ld.global.v4.b32 and
// four st.global.v4.b32 per thread), and the bandwidth benchmark that
// compares, in one run on one device:
//   d2d     cudaMemcpyAsync device-to-device of the same 2 GiB
//   twin    this file's inline-PTX kernel
//   tile    ptxtile's PTX for tile_copy.py (path in argv[1]), loaded with
//           the driver API
// Each is verified (B == A, sampled at 2^20 positions plus both ends)
// and timed with events over `iters` launches after a warm-up; bandwidth
// counts bytes read plus bytes written.
//
// Build and run (on the GPU host):
//   build/ptxtile compile bench/tile_copy.py --target sm_90a -o build/tile_copy.ptx
//   nvcc -O3 -arch=sm_90a -o build/tile_copy bench/tile_copy.cu -lcuda
//   build/tile_copy build/tile_copy.ptx [iters]
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1u << 29) /* float32 elements: 2 GiB per buffer */
#define G (N / 4096) /* CTAs: 256 threads x 4 repeats x 4 words */

__global__ void __launch_bounds__(256)
tile_copy_twin(const float *__restrict__ a, float *__restrict__ b)
{
	unsigned lane, warp = threadIdx.x >> 5;
	asm("mov.u32 %0, %%laneid;" : "=r"(lane));
	size_t base = (size_t)blockIdx.x * 4096 + warp * 128 + lane * 4;
	float r[4][4];
#pragma unroll
	for (int k = 0; k < 4; k++)
		asm volatile("ld.global.v4.b32 {%0, %1, %2, %3}, [%4];"
			     : "=f"(r[k][0]), "=f"(r[k][1]), "=f"(r[k][2]),
			       "=f"(r[k][3])
			     : "l"(a + base + k * 1024));
#pragma unroll
	for (int k = 0; k < 4; k++)
		asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};"
			     :
			     : "l"(b + base + k * 1024), "f"(r[k][0]),
			       "f"(r[k][1]), "f"(r[k][2]), "f"(r[k][3])
			     : "memory");
}

#define CK(x)                                                              \
	do {                                                               \
		cudaError_t e_ = (x);                                      \
		if (e_ != cudaSuccess) {                                   \
			fprintf(stderr, "%s: %s\n", #x,                    \
				cudaGetErrorString(e_));                   \
			exit(1);                                           \
		}                                                          \
	} while (0)
#define CKD(x)                                                             \
	do {                                                               \
		CUresult r_ = (x);                                         \
		if (r_ != CUDA_SUCCESS) {                                  \
			const char *s_ = "";                               \
			cuGetErrorName(r_, &s_);                           \
			fprintf(stderr, "%s: %s\n", #x, s_);               \
			exit(1);                                           \
		}                                                          \
	} while (0)

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = (char *)malloc(n + 1);
	if (fread(s, 1, n, f) != (size_t)n)
		exit(1);
	s[n] = 0;
	fclose(f);
	return s;
}

__global__ void
fill(float *a)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		a[i] = (float)(i % 1000003) + 0.5f; /* never zero */
}

static int
verify(const float *da, const float *db, const char *what)
{
	static float ha[1 << 20], hb[1 << 20];
	/* 2^20 samples spread over the buffer, plus the first/last words */
	for (int s = 0; s < 2; s++) {
		size_t off = s ? N - (1 << 20) : 0;
		CK(cudaMemcpy(ha, da + off, sizeof(ha), cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(hb, db + off, sizeof(hb), cudaMemcpyDeviceToHost));
		for (int i = 0; i < (1 << 20); i++)
			if (ha[i] != hb[i]) {
				printf("%s: MISMATCH at %zu: %g vs %g\n", what,
				       off + i, hb[i], ha[i]);
				return 0;
			}
	}
	for (size_t i = 0; i < N; i += N / 1024 + 7) {
		float x, y;
		CK(cudaMemcpy(&x, da + i, 4, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(&y, db + i, 4, cudaMemcpyDeviceToHost));
		if (x != y) {
			printf("%s: MISMATCH at %zu\n", what, i);
			return 0;
		}
	}
	return 1;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s tile_copy.ptx [iters]\n", argv[0]);
		return 2;
	}
	int iters = argc > 2 ? atoi(argv[2]) : 20;
	float *a, *b;
	CK(cudaMalloc(&a, (size_t)N * 4));
	CK(cudaMalloc(&b, (size_t)N * 4));
	fill<<<N / 256, 256>>>(a);
	CK(cudaDeviceSynchronize());

	CKD(cuInit(0));
	CUmodule mod;
	CUfunction fn;
	char *ptx = slurp(argv[1]);
	CKD(cuModuleLoadData(&mod, ptx));
	CKD(cuModuleGetFunction(&fn, mod, "tile_copy"));
	CUdeviceptr pa = (CUdeviceptr)a, pb = (CUdeviceptr)b;
	void *params[] = {&pa, &pb};

	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	double bytes = 2.0 * N * 4;
	const char *names[3] = {"d2d", "twin", "tile"};
	float ms[3];
	for (int v = 0; v < 3; v++) {
		CK(cudaMemset(b, 0, (size_t)N * 4));
		for (int it = -2; it < iters; it++) {
			if (it == 0)
				CK(cudaEventRecord(e0));
			if (v == 0)
				CK(cudaMemcpyAsync(b, a, (size_t)N * 4,
						   cudaMemcpyDeviceToDevice));
			else if (v == 1)
				tile_copy_twin<<<G, 256>>>(a, b);
			else
				CKD(cuLaunchKernel(fn, G, 1, 1, 256, 1, 1, 0,
						   0, params, NULL));
		}
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaGetLastError());
		CK(cudaEventElapsedTime(&ms[v], e0, e1));
		ms[v] /= iters;
		if (!verify(a, b, names[v]))
			return 1;
	}
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	printf("device: %s, %d MiB per buffer, %d iterations\n", p.name,
	       N * 4 >> 20, iters);
	for (int v = 0; v < 3; v++)
		printf("%-5s %8.3f ms  %7.1f GB/s  %.3fx of d2d\n", names[v],
		       ms[v], bytes / ms[v] / 1e6, ms[0] / ms[v]);
	printf("tile/twin: %.3f\n", ms[1] / ms[2]);
	return 0;
}
