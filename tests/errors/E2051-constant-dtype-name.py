# args: -D DT='float33'
# DT is a dtype name in the script, so its override must be one too
# (float33 is not a dtype).
from tvm_tirx.script import tirx as T

DT = "float32"


@T.function
def k(A: T.Tensor((1024,), DT)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=8, block=128))
    A[T.cuda.thread_idx("x")] = T.cast(0, DT)
