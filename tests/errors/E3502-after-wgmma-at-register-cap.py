# args: --target sm_90a
# The m64n64 f32 wgmma holds 36 registers in its operands: with
# max_registers_per_thread=36 that is exactly the cap and passes (the
# budget is regs <= cap); the first error is the partial-warp ldmatrix.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

@T.function
def k(G: T.Tensor((64, 16), "bfloat16")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128), kernel_attrs=T.cuda.KernelAttributes(max_registers_per_thread=36))
    A = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    B = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    Av = A.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    Bv = B.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    D = T.alloc_local((4, 1, 1, 16, 64), "float32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, 8, 4, 2):(1@wid_in_wg, 32, 32, 2, 4@laneid, 4, 1@laneid, 1)]))
    RA = T.alloc_local((4, 1, 4, 16, 8), "uint32", layout=T.TileLayout(T.S[(4, 1, 4, 2, 8, 2, 4):(1@wid_in_wg, 16, 4, 1, 4@laneid, 2, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"], D, Av, Bv, scope="warpgroup")
    S = T.alloc_shared((4, 8, 8), "uint32", align=16)
    R = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)]))
    if T.cuda.lane_id() < 16:
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, S[:, :, 0:4], scope="warp")
