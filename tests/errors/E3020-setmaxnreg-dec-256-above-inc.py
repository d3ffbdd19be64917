# target: sm_90a
# gemm_wgmma's warp roles with the producer's decrease turned into 256 (255 to ptxas): above the largest increase (232) and the 168 registers 384 threads start with, ptxas 13.0 C7406.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((384,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=384), kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=1))
    tid = T.cuda.thread_idx("x")
    if tid < 128:
        T.ptx["setmaxnreg.dec.sync.aligned.u32"](256)
    else:
        T.ptx["setmaxnreg.inc.sync.aligned.u32"](232)
    A[tid] = 1
