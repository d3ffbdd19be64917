# tests/gpu/kernels/tma_interleave.py - a 16B-interleaved TMA load through
# a caller-encoded tensor map (tests/gpu/gpu_tma.c encodes it with the
# driver; the runtime builds no interleaved map).
#   interleave16  uint16, 16B interleave, rank 3: one 128-byte box (for
#                 the test's map: 8 pixels of one 16-byte channel slice),
#                 coords (k2, k1, k0) outermost first, image (1, 1, 8, 8)
from tvm_tirx.script import tirx as T

@T.function
def interleave16(M: T.TensorMap(), out: T.Tensor((8, 8), "uint16"), k2: T.int32, k1: T.int32, k0: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    t = T.alloc_shared((1, 1, 8, 8), "uint16", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if lane == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        st: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(st, mbar.ptr_to([0]), T.uint32(128))
        T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            t, M, box=(1, 1, 8), coords=(k2, k1, k0), interleave=1, mbar=mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    for i in range(2):
        out[i * 4 + lane // 8, lane % 8] = t[0, 0, i * 4 + lane // 8, lane % 8]
