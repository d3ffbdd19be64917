# gemm_fp4_f8f6f4_sm100.py - an FP4 tile through the padded shared-memory
# format of kind::f8f6f4, one CTA: D (128 x 128 float32) = A (128 x 128
# float4_e2m1fn) @ B (128 x 128 float4_e2m1fn).T, A and B packed two per
# byte in global memory (the lower K in the low nibble).
#
# TMA with format float4_e2m1fn (16U4_ALIGN16B) loads A and B (box
# 128 x 128, 128B swizzle) into padded images:
# every 16 values occupy the low 8 bytes of a 16-byte block, the upper 8
# bytes are padding - the b4x16_p64 layout tcgen05.mma .kind::f8f6f4
# reads FP4 operands in (PTX §9.7.16.10.4.4).  The mbarrier counts the
# payload bytes (64 per row).  Thread 0 issues the four K32 slices
# of tcgen05.mma.cta_group::1.kind::f8f6f4 over the images seen as bytes
# (a_format/b_format float4_e2m1fn: E2M1 in the instruction descriptor)
# and commits; every warp reads its 32 TMEM lanes with tcgen05.ld
# 32x32b.x16 and writes row tid of D (float32 bits).
#
# Everything outside the tile calls is caller code.
# Target: sm_100a (compile and ptxas only on an H200; checked end to end
# in the PTX emulator, tests/unit/test_emu.c emu_script_gemm_fp4_f8f6f4).
# TIRx refuses: expected trailing atom shape (128, 128), got (128, 256)
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, TileLayout
from tvm_tirx.backend.cuda.axis import TLane, TCol
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

# a padded image: 128 rows of 256 FP4 slots (128 bytes), 128B swizzle
PADDED = T.ComposeLayout(5, 3, 3, T.TileLayout(T.S[(128, 256):(256, 1)]))
# the same bytes as the MMA reads them: (1, K_rep, rows, 32 bytes)
KSLICES = T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(1, 4, 128, 32):(16384, 32, 128, 1)]))
D_VIEW = TileLayout(S[(1, 1, 128, 128):(1@TCol, 1@TCol, 1@TLane, 1@TCol)])
TMEM_VIEW = TileLayout(S[(4, 32, 16):(32@TLane, 1@TLane, 1@TCol)])
ROW_REGS = TileLayout(S[(4, 32, 16):(1@wid_in_wg, 1@laneid, 1)])


@T.function
def gemm_fp4_f8f6f4(A: T.Tensor((128, 128), "float4_e2m1fn", align=128),
                    B: T.Tensor((128, 128), "float4_e2m1fn", align=128),
                    D: T.Tensor((128, 128), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    A0 = T.alloc_shared((128, 256), "float4_e2m1fn", layout=PADDED, align=1024)
    B0 = T.alloc_shared((128, 256), "float4_e2m1fn", layout=PADDED, align=1024)
    mbar = T.alloc_shared((2,), "uint64", align=8)
    slot = T.alloc_shared((1,), "uint32", align=4)
    if warp == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(slot.ptr_to([0]), T.uint32(128))
        T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([1]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        state: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, mbar.ptr_to([0]), T.uint32(16384))
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            A0, A, box=(128, 128), coords=(0, 0), swizzle=3, format="float4_e2m1fn", mbar=mbar.ptr_to([0]))
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            B0, B, box=(128, 128), coords=(0, 0), swizzle=3, format="float4_e2m1fn", mbar=mbar.ptr_to([0]))
    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    taddr = slot[0]
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    Dt = T.tmem((128, 128), "float32", scope="tmem", allocated_addr=taddr,
                layout=TileLayout(S[(128, 128):(1@TLane, 1@TCol)]))
    Dv = Dt.view(1, 1, 128, 128, layout=D_VIEW)
    if tid == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::f8f6f4"], Dv,
                          A0.view("uint8").view(1, 4, 128, 32, layout=KSLICES),
                          B0.view("uint8").view(1, 4, 128, 32, layout=KSLICES),
                          instruction_shape=(128, 128, 32),
                          a_format="float4_e2m1fn", b_format="float4_e2m1fn")
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
        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(taddr, T.uint32(128))
