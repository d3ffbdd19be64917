// Hand-written CUDA C++ equivalent of tests/gpu/kernels/smem_reduce.py,
// for bench/compile_latency.sh.
__global__ void __launch_bounds__(256) smem_reduce(const float *A, float *Out)
{
	__shared__ __align__(16) float buf[256];
	int tid = threadIdx.x, bid = blockIdx.x;
	float acc = 0.0f;
#pragma unroll
	for (int k = 0; k < 4; k++)
		acc += A[bid * 1024 + k * 256 + tid];
	buf[tid] = acc;
	asm volatile("bar.sync 0;" ::: "memory");
	for (int stride = 128; stride > 0; stride /= 2) {
		if (tid < stride)
			buf[tid] += buf[tid + stride];
		asm volatile("bar.sync 0;" ::: "memory");
	}
	if (tid == 0)
		Out[bid] = buf[0];
}
