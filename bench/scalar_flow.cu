// Hand-written CUDA C++ equivalent of tests/gpu/kernels/scalar_flow.py,
// for bench/compile_latency.sh.
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ static int floordiv(int a, int b) { int q = a / b; return (a % b != 0 && ((a % b) ^ b) < 0) ? q - 1 : q; }
__device__ static int floormod(int a, int b) { int r = a % b; return (r != 0 && (r ^ b) < 0) ? r + b : r; }

__global__ void __launch_bounds__(64) scalar_flow(int *Out, float *F)
{
	int t, s;
	asm("mov.u32 %0, %%tid.x;" : "=r"(t));
	s = t - 32;
	Out[t * 8 + 0] = floordiv(s, 5);
	Out[t * 8 + 1] = floormod(s, 5);
	uint32_t h = (uint32_t)t * 2654435761u;
	Out[t * 8 + 2] = (int)(h >> 16);
	int8_t b = (int8_t)((int8_t)s * (int8_t)9);
	Out[t * 8 + 3] = b;
	int cnt = 0, i = -1;
	while (true) {
		i = i + 1;
		if (i >= t || i >= 40)
			break;
		if (floormod(i, 2) == 1)
			continue;
		if (floormod(i, 3) == 0)
			cnt++;
	}
	Out[t * 8 + 4] = cnt;
	__half hf = __float2half((float)__int2half_rn(s)) ;
	hf = __float2half(__half2float(hf) * 0.5f);
	Out[t * 8 + 5] = __half2int_rz(hf);
	Out[t * 8 + 6] = (s < 0 && floormod(t, 2) == 0) ? 1 : 0;
	int64_t w = s;
	int64_t mn = w < 10 ? w : 10, mx = mn > -10 ? mn : -10;
	int64_t aw = w < 0 ? -w : w;
	Out[t * 8 + 7] = (int)(mx + (aw >> 3));
	__nv_bfloat16 bf = __float2bfloat16(__bfloat162float(__float2bfloat16((float)t)) * 3.0f);
	F[t * 4 + 0] = __bfloat162float(bf);
	F[t * 4 + 1] = (float)((double)s / 4.0);
	float ft = (float)t, sq;
	asm("sqrt.rn.f32 %0, %1;" : "=f"(sq) : "f"(ft));
	F[t * 4 + 2] = s >= 0 ? sq : -1.0f;
	F[t * 4 + 3] = floorf(ft / 3.0f);
}
