# A guard's fact about a variable dies when the variable is reassigned:
# after row = row + 1000 inside 'if row < 100:', row <= 99 is unknown.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((100, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    row: T.int32 = T.cuda.thread_idx("x")
    x = T.alloc_local((4,), "float32", layout="default")
    if row < 100:
        row = row + 1000
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[row, :])
