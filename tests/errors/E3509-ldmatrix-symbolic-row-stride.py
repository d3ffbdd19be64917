# the matrix stride is the runtime scalar n: rows of one ldmatrix must lie
# at constant offsets from row (0, 0)
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def k(n: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    S = T.alloc_shared((1024,), "uint32", align=16)
    R = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)]))
    V = S.view(4, 8, 4, layout=T.TileLayout(T.S[(4, 8, 4):(n, 4, 1)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, V, scope="warp")
