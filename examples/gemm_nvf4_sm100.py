# gemm_nvf4_sm100.py - one block-scaled NVFP4 tile (kind::mxf4nvf4,
# scale_vec::4X / block16, UE4M3 scales) in one CTA: D (128 x 128 float32)
# = (A * SA) @ (B * SB).T with A (128 x 256) and B (128 x 256) E2M1 FP4
# packed two per byte (the lower K in the low nibble; here uint8 tensors
# of 128 x 128 bytes) and one UE4M3 scale per 16 consecutive K of every
# row (SA, SB: 128 x 16):
#     D[m, n] = sum_k A[m, k] SA[m, k/16] B[n, k] SB[n, k/16]
#
# TMA loads A and B (128 rows of 128 bytes, 128B swizzle) and the scale
# images into shared memory on one mbarrier; warp 0 allocates 512 TMEM
# columns; thread 0 copies the scale images into TMEM with tcgen05.cp
# .32x128b.warpx4 (four lane replicas) - SFA at columns 256..271, SFB at
# 272..287, K slice s (64 K, four 16-wide blocks) at cells 4 s.. of each,
# scale row r at lane r % 32 of every sub-partition, cell 4 s + r / 32,
# byte b = block 4 s + b - then issues the four K64 slices of
# tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 (the tile
# call builds the shared-memory and instruction descriptors) and commits;
# every warp reads its 32 TMEM lanes with tcgen05.ld 32x32b.x16 and
# writes row tid of D (float32 bits).
#
# Scale images (host-side arrangement of SA, SB, uint8 UE4M3 codes):
#   SFA[s, l, 4 c + b] = SA[32 c + l, 4 s + b], SFB the same from SB.
#
# Everything outside the tile calls is caller code.
# Target: sm_100a (compile and ptxas only on an H200; checked end to end
# in the PTX emulator, tests/unit/test_emu.c emu_script_gemm_nvf4_sm100).
# TIRx refuses: 'scale_vec'
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, R, TileLayout
from tvm_tirx.backend.cuda.axis import TLane, TCol
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

# A/B stage: 128 rows of 128 bytes (256 FP4), one 128-byte swizzled row
# each; as FP4 elements (K_rep, rows, K) = (1, 4, 128, 64) K slices
SW128 = T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(128, 128):(128, 1)]))
KSLICES = T.ComposeLayout(5, 3, 3, T.TileLayout(T.S[(1, 4, 128, 64):(32768, 64, 256, 1)]))
D_VIEW = TileLayout(S[(1, 1, 128, 128):(1@TCol, 1@TCol, 1@TLane, 1@TCol)])
# scale factors as the MMA reads them (bytes; TCol counts bytes): K slice
# s at cells 4 s.., row r at lane r % 32 and cell r / 32, byte b the
# block, four replicas 32 lanes apart
SF_MMA = TileLayout(S[(1, 4, 4, 32, 4):(1@TCol, 16@TCol, 4@TCol, 1@TLane, 1@TCol)] + R[4:32@TLane])
# the same cells as tcgen05.cp writes them: (slice, lane, word)
SF_CP = TileLayout(S[(4, 32, 4):(4@TCol, 1@TLane, 1@TCol)] + R[4:32@TLane])
TMEM_VIEW = TileLayout(S[(4, 32, 16):(32@TLane, 1@TLane, 1@TCol)])
ROW_REGS = TileLayout(S[(4, 32, 16):(1@wid_in_wg, 1@laneid, 1)])


@T.function
def gemm_nvf4_sm100(A: T.Tensor((128, 128), "uint8", align=128),
                    B: T.Tensor((128, 128), "uint8", align=128),
                    SFA: T.Tensor((4, 32, 16), "uint8", align=128),
                    SFB: T.Tensor((4, 32, 16), "uint8", align=128),
                    D: T.Tensor((128, 128), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    As = T.alloc_shared((128, 128), "uint8", layout=SW128, align=1024)
    Bs = T.alloc_shared((128, 128), "uint8", layout=SW128, align=1024)
    SAs = T.alloc_shared((4, 32, 16), "uint8", layout="default", align=128)
    SBs = T.alloc_shared((4, 32, 16), "uint8", layout="default", align=128)
    mbar = T.alloc_shared((2,), "uint64", align=8)
    slot = T.alloc_shared((1,), "uint32", align=4)
    if warp == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(slot.ptr_to([0]), T.uint32(512))
        T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([1]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        state: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, mbar.ptr_to([0]), T.uint32(36864))
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            As, A, box=(128, 128), coords=(0, 0), swizzle=3, mbar=mbar.ptr_to([0]))
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            Bs, B, box=(128, 128), coords=(0, 0), swizzle=3, mbar=mbar.ptr_to([0]))
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            SAs, SFA, box=(4, 32, 16), coords=(0, 0, 0), mbar=mbar.ptr_to([0]))
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            SBs, SFB, box=(4, 32, 16), coords=(0, 0, 0), mbar=mbar.ptr_to([0]))
    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    taddr = slot[0]
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    Dt = T.tmem((128, 128), "float32", scope="tmem", allocated_addr=taddr,
                layout=TileLayout(S[(128, 128):(1@TLane, 1@TCol)]))
    SA_T = T.tmem((128, 64), "float8_e4m3fn", scope="tmem", allocated_addr=taddr + T.uint32(256),
                  layout=TileLayout(S[(128, 64):(1@TLane, 1@TCol)]))
    SB_T = T.tmem((128, 64), "float8_e4m3fn", scope="tmem", allocated_addr=taddr + T.uint32(272),
                  layout=TileLayout(S[(128, 64):(1@TLane, 1@TCol)]))
    SA_W = T.tmem((128, 16), "uint32", scope="tmem", allocated_addr=taddr + T.uint32(256),
                  layout=TileLayout(S[(128, 16):(1@TLane, 1@TCol)]))
    SB_W = T.tmem((128, 16), "uint32", scope="tmem", allocated_addr=taddr + T.uint32(272),
                  layout=TileLayout(S[(128, 16):(1@TLane, 1@TCol)]))
    Dv = Dt.view(1, 1, 128, 128, layout=D_VIEW)
    Av = As.view("float4_e2m1fn").view(1, 4, 128, 64, layout=KSLICES)
    Bv = Bs.view("float4_e2m1fn").view(1, 4, 128, 64, layout=KSLICES)
    SAv = SA_T.view(1, 4, 128, 4, layout=SF_MMA)
    SBv = SB_T.view(1, 4, 128, 4, layout=SF_MMA)
    SAc = SA_W.view(4, 32, 4, layout=SF_CP)
    SBc = SB_W.view(4, 32, 4, layout=SF_CP)
    SAw = SAs.view("uint32").view(4, 32, 4)
    SBw = SBs.view("uint32").view(4, 32, 4)
    if tid == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::1.32x128b.warpx4"], SAc, SAw)
        T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::1.32x128b.warpx4"], SBc, SBw)
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16"],
                          Dv, Av, Bv, SAv, SBv, instruction_shape=(128, 128, 64))
        T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(mbar.ptr_to([1]))
    T.cuda.mbarrier_wait(mbar.ptr_to([1]), 0)
    T.ptx.tcgen05.fence__after_thread_sync()
    for ch in T.unroll(8):
        mem = T.tmem((4, 32, 16), "uint32", scope="tmem",
                     allocated_addr=taddr + T.uint32(ch * 16), layout=TMEM_VIEW)
        row = T.alloc_local((16,), "uint32", layout="default")
        T.cuda.tile.apply(
            T.ptx["tcgen05.ld.sync.aligned.32x32b.x16.b32"],
            row.view(4, 32, 16, layout=ROW_REGS), mem, scope="warpgroup",
        )
        T.ptx.tcgen05.wait__ld.sync.aligned()
        for c in T.unroll(16):
            D[tid, ch * 16 + c] = row[c]
    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    if warp == 0:
        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(taddr, T.uint32(512))
