# A guard on runtime sizes alone that can never hold (n is a size, so
# n < 0 is false for every launch) makes its branch dead: the overrun
# inside (A[n] is past the end for every n) never runs, so it is not
# reported (issue 19, mutation survivor bounds.c:206).
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def dead(A: T.Tensor((n,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    if n < 0:
        A[n] = T.float32(0.0)
