# args: --target sm_80
from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32, cluster=2))
    A[0] = 1.0
