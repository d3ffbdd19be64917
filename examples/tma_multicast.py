# tma_multicast.py - one TMA issue fills both CTAs of a 2-CTA cluster:
# CTA rank 0 of cluster c loads the 32 x 64 float32 box at rows 32 c of A
# with .multicast::cluster and cta_mask 0b11, which writes the box at the
# same shared offset of both CTAs and signals each CTA's mbarrier at the
# same offset.  Each CTA then writes its copy to rows 32 (2 c + rank) .. of B, so both
# copies equal A[32 c : 32 c + 32, :].
#
# Protocol (caller code): every CTA initialises its own mbarrier and posts
# the 8192 expected bytes; the initialisation is released to the cluster
# and a cluster barrier orders it before the issue; each CTA waits for
# phase 0; a final cluster barrier keeps the cluster alive until every
# copy has landed.  Source: cuda_tile_instruction_reference.rst, "Tensor
# memory accelerator transfers" (multicast).  Target: sm_90a.
from tvm_tirx.script import tirx as T

m = T.dynamic("m")
n = T.dynamic("n")  # 2 m: two copies of every box

@T.function
def tma_multicast(A: T.Tensor((m, 64), "float32", align=16), B: T.Tensor((n, 64), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=m // 16, block=64, cluster=2))
    tid = T.cuda.thread_idx("x")
    rank = T.cuda.cluster_cta_id("x")
    c = T.cuda.block_idx("x") // 2
    tile = T.alloc_shared((32, 64), "float32", layout="default", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        state: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, mbar.ptr_to([0]), T.uint32(8192))
    T.cuda.cluster_sync()
    if tid == 0 and rank == 0:
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"],
            tile, A, box=(32, 64), coords=(c * 32, 0),
            mbar=mbar.ptr_to([0]), cta_mask=T.uint16(3))
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    for r in range(32):
        B[(c * 2 + rank) * 32 + r, tid] = tile[r, tid]
    T.cuda.cluster_sync()
