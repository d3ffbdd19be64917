# Reading the left neighbour without a guard: thread 0 loads A[-1].
from tvm_tirx.script import tirx as T

@T.function
def left(A: T.Tensor((128,), "float32"), B: T.Tensor((128,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    B[tid] = A[tid - 1]
