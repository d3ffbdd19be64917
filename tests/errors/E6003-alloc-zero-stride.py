# a zero stride in an allocation's layout: two elements share storage
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64,), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((4, 8), "float32", layout=T.TileLayout(T.S[(4, 8):(0, 1)]), align=16)
    S[0, tid % 8] = A[tid]
