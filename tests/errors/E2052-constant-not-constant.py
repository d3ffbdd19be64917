# args: -D BLOCK=n
# An override is a compile-time value; n is a T.dynamic size, known only
# at launch.
from tvm_tirx.script import tirx as T

n = T.dynamic("n")
BLOCK = 128


@T.function
def k(A: T.Tensor((n,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=8, block=BLOCK))
    A[T.cuda.thread_idx("x")] = T.float32(0.0)
