# With a symbolic size the facts can still suffice: A[n] of a tensor of
# n elements is past its end for every n.
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def tail(A: T.Tensor((n,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    if T.cuda.thread_idx("x") == 0:
        A[n] = T.float32(0.0)
