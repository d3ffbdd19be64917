# row = low + 512 adds to another variable, not to row: row is not a
# variable that only grows, and low starts at -1000, so the second pass
# reads row -488.
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def vcopy(A: T.Tensor((n, 4), "float32", align=16), B: T.Tensor((n, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=4, block=128))
    row = T.cuda.block_idx("x") * 128 + T.cuda.thread_idx("x")
    low = T.cuda.thread_idx("x") - 1000
    x = T.alloc_local((4,), "float32", layout="default")
    while row < n:
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[row, :])
        row = low + 512
