# target: sm_90a
# 128 threads start with up to 255 registers (one warp per sub-partition); a decrease to 256, which ptxas reads as 255, is accepted by ptxas 13.0.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((384,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    if tid < 128:
        T.ptx["setmaxnreg.dec.sync.aligned.u32"](256)
    A[tid] = 1
