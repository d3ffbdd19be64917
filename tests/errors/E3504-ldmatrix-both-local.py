# ldmatrix takes (registers, shared): a local tensor as the source is
# rejected even when the destination is local too
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def k():
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    L = T.alloc_local((4, 8, 4), "uint32", layout="default")
    R = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, L, scope="warp")
