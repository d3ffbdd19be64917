# lane << 0 is lane: the shift by a constant 0 scales by 1, so the bound
# of A.sub[(lane << 0) * 4 : ... + 4] (rows 0..127 of 128) is proven and
# the load compiles (an opaque shift would leave the extent non-static).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((128,), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    x = T.alloc_local((4,), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[(lane << 0) * 4:(lane << 0) * 4 + 4])
