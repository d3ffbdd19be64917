# target: sm_90
# cluster_copy.py - copy 64 floats from CTA 0 to CTA 1 of a two-CTA
# cluster with cp.async.bulk (shared::cta -> shared::cluster), completing
# on an mbarrier in the receiving CTA.  CTA 0 stages A in shared memory;
# CTA 1 waits for the 256 transaction bytes and writes them to B, so
# B == A afterwards.
#
# Source: cuda_tile_instruction_reference.rst, "Asynchronous cluster shared
# copies" -> "Complete cluster copy" (quoted as written; raw PTX path).
# Target: sm_90 and later (thread-block clusters).
from tvm_tirx.script import tirx as T

@T.function
def cluster_copy(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=1, cluster=2))
    rank = T.cuda.cluster_cta_id("x")
    src = T.alloc_shared((64,), "float32", layout="default", align=16)
    dst = T.alloc_shared((64,), "float32", layout="default", align=16)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    remote_addresses = T.alloc_local((2,), "uint64", layout="default")
    T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
    T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()
    if rank == 0:
        for i in range(64):
            src[i] = A[i]
        T.ptx.fence.proxy.async_.shared__cta()
        T.ptx.mapa.u64(remote_addresses[0], mbar.ptr_to([0]), T.uint32(1))
        T.ptx.mapa.u64(remote_addresses[1], dst.ptr_to([0]), T.uint32(1))
        T.ptx["cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"](
            T.cast(remote_addresses[1], ty="uint32"),
            src.ptr_to([0]), T.uint32(33554432),
            T.cast(remote_addresses[0], ty="uint32"),
        )
    else:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(mbar.ptr_to([0]), T.uint32(256))
        T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
        for i in range(1):
            B[i] = dst[i]
    T.cuda.cluster_sync()
