# A select evaluates its arm only where the condition holds, and the
# prover uses that condition: tid < 65 still lets thread 64 load S[64].
from tvm_tirx.script import tirx as T

@T.function
def sel(A: T.Tensor((128,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((64,), "float32", layout="default")
    if tid < 64:
        S[tid] = A[tid]
    T.cuda.cta_sync()
    A[tid] = T.if_then_else(tid < 65, S[tid], T.float32(0.0))
