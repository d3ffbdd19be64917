# target: sm_80
# mma.sync tile calls: k16 bf16 with M/N/K repeats (batch, M, N, K issue
# order, C on the first K issue only, then D), k8 f16 with a scalar C
# and a batch axis, cta scope with a warp group axis.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid


@T.function
def mma_k16(out: T.Tensor((32, 4), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    D = T.alloc_local((2, 2, 16, 8), "float32", layout=T.TileLayout(T.S[(2, 2, 2, 8, 4, 2):(8, 4, 2, 4@laneid, 1@laneid, 1)]))
    C = T.alloc_local((2, 2, 16, 8), "float32", layout=T.TileLayout(T.S[(2, 2, 2, 8, 4, 2):(8, 4, 2, 4@laneid, 1@laneid, 1)]))
    A = T.alloc_local((2, 2, 16, 8), "tf32", layout=T.TileLayout(T.S[(2, 2, 2, 8, 2, 4):(8, 4, 1, 4@laneid, 2, 1@laneid)]))
    B = T.alloc_local((2, 2, 8, 8), "uint32", layout=T.TileLayout(T.S[(2, 2, 8, 2, 4):(4, 2, 4@laneid, 1, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], D, A, B, C, scope="warp")


@T.function
def mma_k8(out: T.Tensor((32, 4), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    D = T.alloc_local((2, 2, 1, 1, 16, 8), "float32", layout=T.TileLayout(T.S[(2, 2, 1, 1, 2, 8, 4, 2):(1@warpid, 4, 4, 4, 2, 4@laneid, 1@laneid, 1)]))
    A = T.alloc_local((2, 2, 1, 1, 16, 4), "uint32", layout=T.TileLayout(T.S[(2, 2, 1, 1, 2, 8, 4):(1@warpid, 2, 2, 2, 1, 4@laneid, 1@laneid)]))
    B = T.alloc_local((2, 2, 1, 1, 8, 4), "uint32", layout=T.TileLayout(T.S[(2, 2, 1, 1, 8, 4):(1@warpid, 1, 1, 1, 4@laneid, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"], D, A, B, 0.0, scope="cta")
