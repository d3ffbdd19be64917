# target: sm_90a
# tma_load_swizzle.py - load a 64 x 64 float16 tile of A with one TMA
# issue into a 128-byte-swizzled shared tile and let the CTA consume it:
# each of the 128 threads reads the tile by logical index (the layout
# applies the swizzle) and writes it to B.  Afterwards
# B[64 b + i, j] == A[64 b + i, j] for CTA b, and row 64 b + p // 64,
# column p % 64 of raw holds storage element p of the shared image as the
# hardware wrote it (swizzled).
#
# The completion protocol is caller code: thread 0 initialises the
# mbarrier, makes the initialisation visible to the async proxy, posts
# the expected 8192 transaction bytes and issues the load; every thread
# waits for phase 0.  The 1024-byte alignment is the 128B swizzle period.
# Source: cuda_tile_instruction_reference.rst, "Tensor memory accelerator
# transfers".  Target: sm_90 and later.
from tvm_tirx.script import tirx as T

m = T.dynamic("m")

@T.function
def tma_load_swizzle(A: T.Tensor((m, 64), "float16", align=16), B: T.Tensor((m, 64), "float16"), raw: T.Tensor((m, 64), "float16")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=m // 64, block=128))
    tid = T.cuda.thread_idx("x")
    b = T.cuda.block_idx("x")
    tile = T.alloc_shared((64, 64), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        state: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, mbar.ptr_to([0]), T.uint32(8192))
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            tile, A, box=(64, 64), coords=(b * 64, 0), swizzle=3,
            mbar=mbar.ptr_to([0]))
    T.cuda.cta_sync()
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), -1)
    flat = tile.view(0)
    for i in range(32):
        r = i * 2 + tid // 64
        c = tid % 128
        B[b * 64 + r, c] = tile[r, c]
        raw[b * 64 + r, c] = flat[r * 64 + c]
