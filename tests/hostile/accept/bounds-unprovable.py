# Element accesses the prover cannot decide (issue 22, compile-time
# bounds): each may overrun for some inputs but none provably does, so
# all are accepted (the emulator's bounds check sees the rest at run
# time).  A symbolic size, a guard on a runtime argument, an index loaded
# from memory, a reassigned variable, a loop that may stop early.
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def unprovable(A: T.Tensor((n,), "float32"), I: T.Tensor((128,), "int32"),
               B: T.Tensor((128,), "float32"), k: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((64,), "float32", layout="default")
    B[tid] = A[tid]
    if tid < k:
        S[tid] = A[tid + 1]
    S[I[tid]] = B[tid]
    j = tid
    j = j % 64
    S[j] = B[tid]
    for i in range(128):
        if i == k:
            break
        S[i] = B[i]
    while j < 100:
        S[j] = B[j]
        j = j + 64
    if tid != 100:
        B[tid] = S[tid % 64]
