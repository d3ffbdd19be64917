# args: --target sm_90a
# Register A of a wgmma is rank 5, (4, M_rep, K_rep, 16, 8): a rank-6
# operand is E8506 even when its dims 3 and 4 are 16 and 8 (issue 19,
# mutation survivor wgmma.c:287, seed 12: the mutant checked the rank
# only together with dim 3 and went on to the fragment check, E8507).
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

@T.function
def k(G: T.Tensor((64, 16), "bfloat16")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    B = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    Av = A.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    Bv = B.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    D = T.alloc_local((4, 1, 1, 16, 64), "float32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, 8, 4, 2):(1@wid_in_wg, 32, 32, 2, 4@laneid, 4, 1@laneid, 1)]))
    RA = T.alloc_local((4, 1, 4, 16, 8, 1), "uint32", layout=T.TileLayout(T.S[(4, 1, 4, 2, 8, 2, 4, 1):(1@wid_in_wg, 16, 4, 1, 4@laneid, 2, 1@laneid, 1)]))
    T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"], D, RA, Bv, scope="warpgroup")
