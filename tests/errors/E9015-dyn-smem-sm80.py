# args: --target sm_80
from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((16,), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_buffer((50000,), "uint32", scope="shared.dyn", align=16)
    S[0] = A[0]
    A[1] = S[0]
