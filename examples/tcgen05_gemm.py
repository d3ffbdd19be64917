# tcgen05_gemm.py - a tcgen05 GEMM mainloop, whole kernel: D (128 x 128 float32)
# = A (128 x 64 bf16, K-major) @ B (128 x 64 bf16, K-major).T in one CTA
# of 128 threads.  TMA loads A and B into 128B-swizzled shared tiles
# (one mbarrier, 32 KiB of expected bytes); warp 0 allocates 128 TMEM
# columns; thread 0 issues the four K16 slices of
# tcgen05.mma.cta_group::1.kind::f16 (the tile call builds the shared
# memory and instruction descriptors; enable-input-d false on the first)
# and commits to a second mbarrier; every warp then reads its 32 TMEM
# lanes in 8 chunks of tcgen05.ld 32x32b.x16 and writes row tid of D
# (as float32 bits).  Afterwards D[i, j] == sum_k A[i, k] * B[j, k].
#
# Source: cuda_tile_instruction_reference.rst, "Tensor memory
# accelerator transfers", "Tensor Core matrix multiply-accumulate"
# (tcgen05.mma kind::f16, the views of the
# tile_tcgen05_mma golden) and "TMEM loads and stores"; the caller code
# (allocation, barriers, commit, waits, fences, deallocation) follows
# "Completion and producer dependencies".  Checked end to end in the PTX
# emulator (tests/unit/test_emu.c emu_script_tcgen05_gemm).
# Target: sm_100a; compile-only on an H200.
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, TileLayout
from tvm_tirx.backend.cuda.axis import TLane, TCol
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

TMEM_VIEW = TileLayout(S[(4, 32, 16):(32@TLane, 1@TLane, 1@TCol)])
ROW_REGS = TileLayout(S[(4, 32, 16):(1@wid_in_wg, 1@laneid, 1)])

@T.function
def tcgen05_gemm(A: T.Tensor((128, 64), "bfloat16", align=16),
                 B: T.Tensor((128, 64), "bfloat16", align=16),
                 D: T.Tensor((128, 128), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    As = T.alloc_shared((128, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=1024)
    Bs = T.alloc_shared((128, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=1024)
    mbar = T.alloc_shared((2,), "uint64", align=8)
    taddr_smem = T.alloc_shared((1,), "uint32", align=4)
    if warp == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(
            taddr_smem.ptr_to([0]), T.uint32(128))
        T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([1]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        state: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, mbar.ptr_to([0]), T.uint32(32768))
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            As, A, box=(128, 64), coords=(0, 0), swizzle=3, mbar=mbar.ptr_to([0]))
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            Bs, B, box=(128, 64), coords=(0, 0), swizzle=3, mbar=mbar.ptr_to([0]))
    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    taddr = taddr_smem[0]
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    Dt = T.tmem((128, 128), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 128):(1@TLane, 1@TCol)]))
    Av = As.view(1, 4, 128, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 128, 16):(8192, 16, 64, 1)])))
    Bv = Bs.view(1, 4, 128, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 128, 16):(8192, 16, 64, 1)])))
    Dv = Dt.view(1, 1, 128, 128, layout=T.TileLayout(T.S[(1, 1, 128, 128):(1@TCol, 1@TCol, 1@TLane, 1@TCol)]))
    if tid == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::f16"], Dv, Av, Bv, instruction_shape=(128, 128, 16))
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
