# TIRx spellings of layout axes: T.cuda.Axis.x in the script, and the
# real import paths (tvm_tirx.tirx.layout, tvm_tirx.backend.cuda.axis).
# expect: ld.global.v4.b32=2
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, R, TileLayout, ComposeLayout
from tvm_tirx.backend.cuda.axis import laneid, warpid, wid_in_wg, tid_in_wg, wgid, TLane, TCol, cbx, cby, cbz

@T.function
def compat_axis_imported(A: T.Tensor((64, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    r = T.alloc_local((2, 32, 4), "float32", layout=TileLayout(S[(2, 32, 4):(1@warpid, 1@laneid, 1)]))
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], r, A.view(2, 32, 4), scope="cta")

@T.function
def compat_axis_cuda(A: T.Tensor((64, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    r = T.alloc_local((2, 32, 4), "float32", layout=T.TileLayout(T.S[(2, 32, 4):(1@T.cuda.Axis.warpid, 1@T.cuda.Axis.laneid, 1)]))
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], r, A.view(2, 32, 4), scope="cta")
