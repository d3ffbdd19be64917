# swizzle parameters B + M + S at most 40
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64,), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((8, 64), "float16", layout=T.ComposeLayout(20, 3, 20, T.TileLayout(T.S[(8, 64):(64, 1)])), align=128)
    S[0, tid] = T.float16(0.0)
