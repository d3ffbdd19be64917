# target: sm_90a
# A decrease to exactly the start cap (168 for 384 threads) is accepted by ptxas 13.0.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((384,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=384))
    tid = T.cuda.thread_idx("x")
    if tid < 128:
        T.ptx["setmaxnreg.dec.sync.aligned.u32"](168)
    A[tid] = 1
