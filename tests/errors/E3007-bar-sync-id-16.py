# args: --target sm_90a
# barrier 16 (ptxas: "Barrier number '16' out of range, expected to be in range [0..15]")
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    A[T.cuda.thread_idx("x")] = 1
    T.ptx["bar.sync"](16, 64)
