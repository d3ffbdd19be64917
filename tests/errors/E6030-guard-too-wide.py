# The guard admits threads 78 to 99, which store S[tid + 50] past the
# 128 elements of S: the counterexample honours the guard (tid < 100).
from tvm_tirx.script import tirx as T

@T.function
def shift(A: T.Tensor((128,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((128,), "float32", layout="default")
    if tid < 100:
        S[tid + 50] = A[tid]
