# A view dim of extent 1 with stride 0 repeats no element, so the view
# is not a broadcast and may be written (issue 19, mutation survivor
# view.c:89: only a zero-stride dim of extent > 1 makes a view
# read-only).  The ld writes x through such a view.
from tvm_tirx.script import tirx as T

@T.function
def unit_zero_stride(X: T.Tensor((1, 2), "float32", align=8), Y: T.Tensor((1, 2), "float32", align=8)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    x = T.alloc_local((2,), "float32", layout="default")
    xv = x.view(1, 2, layout=T.TileLayout(T.S[(1, 2):(0, 1)]))
    T.cuda.tile.apply(T.ptx["ld.global.v2.f32"], xv, X, scope="thread")
    T.cuda.tile.apply(T.ptx["st.global.v2.f32"], Y, xv, scope="thread")
