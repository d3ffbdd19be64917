// Hand-written CUDA C++ equivalent of examples/cluster_copy.py with inline
// PTX, for bench/compile_latency.sh (nvcc -ptx time on the same kernel).
#include <cstdint>

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(1)
cluster_copy(const float *A, float *B)
{
	__shared__ __align__(16) float src[64];
	__shared__ __align__(16) float dst[64];
	__shared__ __align__(8) uint64_t mbar;
	uint32_t rank, mb = (uint32_t)__cvta_generic_to_shared(&mbar);
	asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(rank));
	asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(mb));
	asm volatile("fence.mbarrier_init.release.cluster;");
	asm volatile("barrier.cluster.arrive.aligned;\n\t"
		     "barrier.cluster.wait.aligned;");
	if (rank == 0) {
		for (int i = 0; i < 64; i++)
			src[i] = A[i];
		asm volatile("fence.proxy.async.shared::cta;");
		uint64_t rbar, rdst;
		asm volatile("mapa.u64 %0, %1, 1;" : "=l"(rbar) : "l"(&mbar));
		asm volatile("mapa.u64 %0, %1, 1;" : "=l"(rdst) : "l"(dst));
		asm volatile("cp.async.bulk.shared::cluster.shared::cta."
			     "mbarrier::complete_tx::bytes [%0], [%1], 256, [%2];"
			     ::"r"((uint32_t)rdst),
			     "r"((uint32_t)__cvta_generic_to_shared(src)),
			     "r"((uint32_t)rbar) : "memory");
	} else {
		asm volatile("{\n\t.reg .b64 st;\n\t"
			     "mbarrier.arrive.expect_tx.shared.b64 st, [%0], 256;"
			     "\n\t}" ::"r"(mb) : "memory");
		asm volatile("{\n\t.reg .pred p;\n"
			     "W:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t"
			     "@!p bra W;\n\t}" ::"r"(mb) : "memory");
		for (int i = 0; i < 64; i++)
			B[i] = dst[i];
	}
	asm volatile("barrier.cluster.arrive.aligned;\n\t"
		     "barrier.cluster.wait.aligned;");
}
