from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def k():
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    D = T.alloc_local((1, 1, 16, 8), "float32", layout=T.TileLayout(T.S[(1, 1, 2, 8, 4, 2):(4, 4, 2, 4@laneid, 1@laneid, 1)]))
    A = T.alloc_local((1, 2, 16, 8), "uint32", layout=T.TileLayout(T.S[(1, 2, 2, 8, 2, 4):(8, 4, 1, 4@laneid, 2, 1@laneid)]))
    B = T.alloc_local((1, 2, 8, 8), "uint32", layout=T.TileLayout(T.S[(1, 2, 8, 2, 4):(4, 2, 4@laneid, 1, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], T.float32(0.0), A, B, D, scope="warp")
