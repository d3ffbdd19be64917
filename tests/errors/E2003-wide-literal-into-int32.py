# x + 3000000000 is an int64 sum (the literal does not fit int32, so it
# widens the operation rather than wrapping): storing it into an int32
# variable or tensor needs an explicit T.cast (issue 19).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    x: T.int32 = T.cuda.thread_idx("x")
    x = x + 3000000000
    A[1] = A[1] + 3000000000
