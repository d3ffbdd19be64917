# args: --target sm_90a
# an arrive count of 0 (ptxas: "Instruction 'bar.arrive' requires a non-zero thread count argument")
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    A[T.cuda.thread_idx("x")] = 1
    T.ptx["bar.arrive"](1, 0)
