# bulk_copy_gapped.py - cluster shared copies for tests/gpu/gpu_bulk_copy.c
# (reference "Asynchronous cluster shared copies"): two single-thread CTAs
# in a cluster of 2; CTA 0 sends eight 256-byte float16 chunks of its
# shared S to CTA 1 with one tile call (eight cp.async.bulk), CTA 1 waits
# on its barrier and writes its whole destination buffer (gaps included)
# to B.  The protocol is the reference's complete cluster copy: each CTA
# initialises its barrier, fence.mbarrier_init, cluster barrier; the
# sender fills S from A and fences the async proxy before issuing; the
# receiver posts 8 * 256 expected bytes and waits for phase 0; a final
# cluster barrier keeps both allocations alive.
#   bulk_copy_gapped   src S.sub[:, 0:128] and dst D.sub[:, 0:128] of
#                      (8, 256) buffers: both (8, 128):(256, 1), eight
#                      chunks with 256-byte gaps; B (8, 256) = all of D
#   bulk_copy_compact  src S.sub[:, 128:256] (8, 128):(256, 1) at byte 256,
#                      dst D.sub[1:9, :] of a (10, 128) buffer: compact
#                      (8, 128):(128, 1) at byte 256; B (10, 128) = all of D
# Every destination element starts as -1000.0 (0xE3D0) and every source
# gap holds -2000.0 (0xE7D0): gaps must keep the first and never receive
# the second.  The receiver fences the async proxy after its fill, before
# the cluster barrier that precedes the copy.
from tvm_tirx.script import tirx as T

@T.function
def bulk_copy_gapped(A: T.Tensor((8, 128), "float16"), B: T.Tensor((8, 256), "float16")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=1, cluster=2))
    rank = T.cuda.cluster_cta_id("x")
    S = T.alloc_shared((8, 256), "float16", layout="default", align=16)
    D = T.alloc_shared((8, 256), "float16", layout="default", align=16)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    state = T.alloc_local((1,), "uint64", layout="default")
    for i in range(8):
        for j in range(256):
            D[i, j] = T.float16(-1000.0)
    T.ptx.fence.proxy.async_.shared__cta()
    T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
    T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()
    if rank == 0:
        for i in range(8):
            for j in range(128):
                S[i, j] = A[i, j]
                S[i, 128 + j] = T.float16(-2000.0)
        T.ptx.fence.proxy.async_.shared__cta()
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"],
            D.sub[:, 0:128], S.sub[:, 0:128], chunk_bytes=256,
            mbar=mbar.ptr_to([0]), remote_cta_id=T.uint32(1),
        )
    else:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(state[0], mbar.ptr_to([0]), T.uint32(8 * 256))
        T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
        for i in range(8):
            for j in range(256):
                B[i, j] = D[i, j]
    T.cuda.cluster_sync()

@T.function
def bulk_copy_compact(A: T.Tensor((8, 128), "float16"), B: T.Tensor((10, 128), "float16")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=1, cluster=2))
    rank = T.cuda.cluster_cta_id("x")
    S = T.alloc_shared((8, 256), "float16", layout="default", align=16)
    D = T.alloc_shared((10, 128), "float16", layout="default", align=16)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    state = T.alloc_local((1,), "uint64", layout="default")
    for i in range(10):
        for j in range(128):
            D[i, j] = T.float16(-1000.0)
    T.ptx.fence.proxy.async_.shared__cta()
    T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
    T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()
    if rank == 0:
        for i in range(8):
            for j in range(128):
                S[i, j] = T.float16(-2000.0)
                S[i, 128 + j] = A[i, j]
        T.ptx.fence.proxy.async_.shared__cta()
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"],
            D.sub[1:9, :], S.sub[:, 128:256], chunk_bytes=256,
            mbar=mbar.ptr_to([0]), remote_cta_id=T.uint32(1),
        )
    else:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(state[0], mbar.ptr_to([0]), T.uint32(8 * 256))
        T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
        for i in range(10):
            for j in range(128):
                B[i, j] = D[i, j]
    T.cuda.cluster_sync()
