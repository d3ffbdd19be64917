# x2: the 64B swizzle of 32-bit words (ComposeLayout(2, 2, 3)) moves
# row 1 of each matrix by other amounts than a sum over lane bits
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def k():
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    S = T.alloc_shared((1024,), "uint32", align=16)
    R = T.alloc_local((2, 8, 4), "uint32", layout=T.TileLayout(T.S[(2, 8, 4):(1, 4@laneid, 1@laneid)]))
    V = S.view(2, 8, 4, layout=T.ComposeLayout(2, 2, 3, T.TileLayout(T.S[(2, 8, 4):(32, 4, 1)])))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x2.shared.b16"], R, V, scope="warp")
