# A tensor with a runtime extent and an explicit (column-major) layout: the
# symbolic-extent path addresses the default row-major layout only, so
# this is E3131 rather than a load from row-major addresses.
from tvm_tirx.script import tirx as T

m = T.dynamic("m")

@T.function
def k(A: T.Tensor((m, 4), "float32", align=16, layout=T.TileLayout(T.S[(64, 4):(1, 64)]))):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    r = T.cuda.lane_id()
    x = T.alloc_local((4,), "float32", layout="default")
    if r < m:
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[r, 0:4])
