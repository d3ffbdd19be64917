# target: sm_90a
# Cluster bulk copy tile call (reference "Asynchronous cluster shared
# copies" -> "Repeated chunks and synchronization"): a float16 view
# (8,128):(256,1) with chunk_bytes=256 is eight separate chunks with gaps
# between them.  Expected: mapa of mbar once, then per repeat a mapa of
# the destination chunk and one cp.async.bulk (eight in all); the caller
# keeps barrier init, expect_tx (8*256 bytes), fences and cluster sync.
from tvm_tirx.script import tirx as T

@T.function
def bulk_gapped(A: T.Tensor((8, 128), "float16"), B: T.Tensor((8, 128), "float16")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=1, cluster=2))
    rank = T.cuda.cluster_cta_id("x")
    src = T.alloc_shared((8, 128), "float16", layout=T.TileLayout(T.S[(8, 128):(256, 1)]), align=16)
    dst = T.alloc_shared((8, 128), "float16", layout=T.TileLayout(T.S[(8, 128):(256, 1)]), align=16)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    state = T.alloc_local((1,), "uint64", layout="default")
    T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
    T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()
    if rank == 0:
        for i in range(8):
            for j in range(128):
                src[i, j] = A[i, j]
        T.ptx.fence.proxy.async_.shared__cta()
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"],
            dst, src, chunk_bytes=256, mbar=mbar.ptr_to([0]), remote_cta_id=T.uint32(1),
        )
    else:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(state[0], mbar.ptr_to([0]), T.uint32(8 * 256))
        T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
        for i in range(8):
            for j in range(128):
                B[i, j] = dst[i, j]
    T.cuda.cluster_sync()
