# target: sm_90a
# 384 threads are 3 warps on each of an SM's 4 sub-partitions of 16384 registers: at most 168 per thread at the start, and no increase; ptxas 13.0 refuses a decrease to 176 (C7406).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((384,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=384))
    tid = T.cuda.thread_idx("x")
    if tid < 128:
        T.ptx["setmaxnreg.dec.sync.aligned.u32"](176)
    A[tid] = 1
