# target: sm_90a
# tile_wgmma.py - wgmma.mma_async tile calls across the form families:
#   bf16 -> f32 m64n64k16, A/B shared 128B K-major, K_rep 4 (descriptor
#     start +32 bytes per K slice), accum from a runtime predicate
#   f16 -> f16 m64n32k16, A in registers, B MN-major 64B (imm-trans-b 1),
#     negate_b
#   tf32 m64n8k8, no-swizzle (interleaved core matrices) K-major, M_rep 2
#   e4m3 x e5m2 -> f32 m64n32k32, 32B swizzle
#   s8 x u8 -> s32 m64n24k32 .satfinite, A in registers, B no swizzle
# and the raw companions a warp-specialised kernel needs.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg


@T.function
def tile_wgmma(flag: T.int32):
    # a register cap at entry (.minnctapersm 1) lets setmaxnreg apply
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128),
                   kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=1))
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.ptx["setmaxnreg.inc.sync.aligned.u32"](240)
    ok: T.bool = T.bool(False)
    T.ptx["mbarrier.try_wait.parity.shared::cta.b64"](ok, mbar.ptr_to([0]), T.uint32(0), T.uint32(1000000))
    T.ptx.fence.proxy.async_.shared__cta()
    T.ptx["wgmma.fence.sync.aligned"]()
    # bf16, 128B K-major, K_rep 4
    A = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    B = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    Av = A.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    Bv = B.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    D = T.alloc_local((4, 1, 1, 16, 64), "float32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, 8, 4, 2):(1@wid_in_wg, 32, 32, 2, 4@laneid, 4, 1@laneid, 1)]))
    T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"], D, Av, Bv, scope="warpgroup", accum=flag != 0)
    # f16 -> f16, register A, B MN-major 64B
    RA = T.alloc_local((4, 1, 1, 16, 8), "uint32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, 2, 4):(1@wid_in_wg, 4, 4, 1, 4@laneid, 2, 1@laneid)]))
    BH = T.alloc_shared((16, 32), "float16", layout=T.ComposeLayout(3, 2, 3, T.TileLayout(T.S[(16, 32):(32, 1)])), align=512)
    BHv = BH.view(1, 1, 32, 16, layout=T.ComposeLayout(3, 2, 3, T.TileLayout(T.S[(1, 1, 32, 16):(512, 512, 1, 32)])))
    DH = T.alloc_local((4, 1, 1, 16, 16), "uint32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, 4, 4):(1@wid_in_wg, 8, 8, 1, 4@laneid, 2, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16"], DH, RA, BHv, scope="warpgroup", accum=True, negate_b=True)
    # tf32, interleaved (no swizzle), M_rep 2
    AT = T.alloc_shared((1024,), "float32", align=128)
    BT = T.alloc_shared((64,), "float32", align=128)
    ATv = AT.view(2, 1, 64, 8, layout=T.TileLayout(T.S[(2, 1, 8, 8, 2, 4):(512, 0, 64, 4, 32, 1)]))
    BTv = BT.view(1, 1, 8, 8, layout=T.TileLayout(T.S[(1, 1, 8, 2, 4):(0, 0, 4, 32, 1)]))
    DT = T.alloc_local((4, 2, 1, 16, 8), "float32", layout=T.TileLayout(T.S[(4, 2, 1, 2, 8, 1, 4, 2):(1@wid_in_wg, 4, 4, 2, 4@laneid, 4, 1@laneid, 1)]))
    T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32"], DT, ATv, BTv, scope="warpgroup")
    # e4m3 x e5m2, 32B swizzle
    A8 = T.alloc_shared((64, 32), "float8_e4m3fn", layout=T.ComposeLayout(4, 1, 3, T.TileLayout(T.S[(64, 32):(32, 1)])), align=256)
    B8 = T.alloc_shared((32, 32), "float8_e5m2", layout=T.ComposeLayout(4, 1, 3, T.TileLayout(T.S[(32, 32):(32, 1)])), align=256)
    D8 = T.alloc_local((4, 1, 1, 16, 32), "float32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, 4, 4, 2):(1@wid_in_wg, 16, 16, 2, 4@laneid, 4, 1@laneid, 1)]))
    T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e5m2"], D8, A8.view(1, 1, 64, 32, layout=T.ComposeLayout(4, 1, 3, T.TileLayout(T.S[(1, 1, 64, 32):(0, 0, 32, 1)]))), B8.view(1, 1, 32, 32, layout=T.ComposeLayout(4, 1, 3, T.TileLayout(T.S[(1, 1, 32, 32):(0, 0, 32, 1)]))), scope="warpgroup", negate_a=True)
    # s8 x u8 -> s32 satfinite, register A, B interleaved
    RI = T.alloc_local((4, 1, 1, 16, 8), "uint32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, 2, 4):(1@wid_in_wg, 4, 4, 1, 4@laneid, 2, 1@laneid)]))
    BI = T.alloc_shared((768,), "uint8", align=128)
    DI = T.alloc_local((4, 1, 1, 16, 24), "int32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, 3, 4, 2):(1@wid_in_wg, 12, 12, 2, 4@laneid, 4, 1@laneid, 1)]))
    T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n24k32.satfinite.s32.s8.u8"], DI, RI, BI.view(1, 1, 24, 32, layout=T.TileLayout(T.S[(1, 1, 3, 8, 2, 16):(0, 0, 256, 16, 128, 1)])), scope="warpgroup", accum=True)
    T.ptx["wgmma.commit_group.sync.aligned"]()
    T.ptx["wgmma.wait_group.sync.aligned"](0)
    T.ptx["setmaxnreg.dec.sync.aligned.u32"](40)
