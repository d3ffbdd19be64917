# args: --target sm_90a
# count 2147483647 is not a multiple of 32 (ptxas: "Number of threads participating in barrier must be in multiple of warp size"; found by tools/mutate_examples.py on gemm_wgmma.py)
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    A[T.cuda.thread_idx("x")] = 1
    T.ptx["bar.sync"](1, 2147483647)
