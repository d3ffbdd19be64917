# A never-reassigned uint32 variable stands for its declared value: r = 3
# is a row inside A's 32, so the load is provably in bounds (an untracked
# uint32 r would range over 0..2^32-1 and fail E6020).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    r = T.uint32(3)
    x = T.alloc_local((4,), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[r, :])
