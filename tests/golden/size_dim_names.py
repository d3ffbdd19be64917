# A scalar parameter n_dim beside the symbolic size n: the size's hidden
# parameter is k_n$dim ('$' is in no script name), so the two never
# collide (this was E9001 before).
from tvm_tirx.script import tirx as T

n = T.dynamic("n")


@T.function
def k(A: T.Tensor((n,), "float32"), n_dim: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    A[tid] = T.float32(1.0)
