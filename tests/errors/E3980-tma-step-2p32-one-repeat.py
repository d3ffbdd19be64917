# One repeat (a leading axis of extent 1): its coord_steps entry is never
# added, yet 2^32 is still no int32 TMA coordinate step: E3980 (the
# repeat-sum check alone would pass it).
from tvm_tirx.script import tirx as T

p = T.dynamic("p")

@T.function
def tma_load_3d_steps(X: T.Tensor((p, 64, 32), "float32", align=16), Y: T.Tensor((p, 64, 32), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(4, p // 4), block=32))
    lane = T.cuda.lane_id()
    bx = T.cuda.block_idx("x")
    by = T.cuda.block_idx("y")
    tile = T.alloc_shared((1, 1, 16, 32), "float32", layout="default", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if lane == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        state: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, mbar.ptr_to([0]), T.uint32(2048))
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            tile, X, box=(1, 16, 32), coords=(by * 4, bx * 16, 0),
            coord_steps=((4294967296, 0, 0),), mbar=mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    for q in range(1):
        for r in range(16):
            Y[by * 4 + q, bx * 16 + r, lane] = tile[q, 0, r, lane]
