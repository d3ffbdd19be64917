# Exactly 2^22 coordinates (32 lanes x 32768 repeats x 4 registers) is
# within the enumeration limit; one repeat more is E3133.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def k():
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S0 = T.alloc_shared((4, 8, 8), "uint32", align=16)
    S = S0.view(32768, 4, 8, 8, layout=T.TileLayout(T.S[(32768, 4, 8, 8):(0, 64, 8, 1)]))
    R = T.alloc_local((32768, 4, 8, 4), "uint32", layout=T.TileLayout(T.S[(32768, 4, 8, 4):(4, 1, 4@laneid, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, S[:, :, :, 0:4], scope="warp")
    R2 = T.alloc_local((32769, 4, 8, 4), "uint32", layout=T.TileLayout(T.S[(32769, 4, 8, 4):(4, 1, 4@laneid, 1@laneid)]))
    S2 = S0.view(32769, 4, 8, 8, layout=T.TileLayout(T.S[(32769, 4, 8, 8):(0, 64, 8, 1)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R2, S2[:, :, :, 0:4], scope="warp")
