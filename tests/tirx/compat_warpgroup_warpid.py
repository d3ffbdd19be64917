# A warpid layout at warpgroup scope in a 128-thread block: warpid is
# wid_in_wg there (TIRx accepts it).
# expect: ld.global.v4.b32=1
from tvm_tirx.script import tirx as T

@T.function
def compat_warpgroup_warpid(A: T.Tensor((128, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    r = T.alloc_local((4, 32, 4), "float32", layout=T.TileLayout(T.S[(4, 32, 4):(1@T.cuda.Axis.warpid, 1@T.cuda.Axis.laneid, 1)]))
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], r, A.view(4, 32, 4), scope="warpgroup")
