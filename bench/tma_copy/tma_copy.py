# tma_copy.py - bandwidth kernel for bench/tma_copy: Y = X for a float32
# matrix of m rows of 256 floats (1 KiB rows), one 32 x 256 box (32 KiB)
# per CTA: TMA load into shared memory, phase wait, TMA store from the
# same tile, commit_group, wait_group.read (the tile must stay valid until
# the store has read it).  One thread per CTA does all of it; the other
# CTAs on the SM overlap their transfers.
from tvm_tirx.script import tirx as T

m = T.dynamic("m")

@T.function
def tma_copy(X: T.Tensor((m, 256), "float32", align=16), Y: T.Tensor((m, 256), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=m // 32, block=32))
    tile = T.alloc_shared((32, 256), "float32", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    row = T.cuda.block_idx("x") * 32
    if T.cuda.lane_id() == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        state: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, mbar.ptr_to([0]), T.uint32(32768))
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            tile, X, box=(32, 256), coords=(row, 0), mbar=mbar.ptr_to([0]))
        T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
            Y, tile, box=(32, 256), coords=(row, 0))
        T.ptx.cp.async_.bulk.commit_group()
        T.ptx.cp.async_.bulk.wait_group.read(0)
