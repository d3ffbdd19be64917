# Integer // and % by a literal zero (the other operand a runtime value):
# PTX div/rem by zero has no defined result, so it is rejected like a
# constant division by zero.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64,), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    A[tid // 0] = T.float32(1)
