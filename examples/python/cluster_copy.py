"""cluster_copy as a Python program: the kernel of examples/cluster_copy.py
written in this module with `from ptxtile import tirx as T`, compiled with
ptxtile.compile and called with torch tensors, as the instruction
reference uses it (compile(cluster_copy)(a, b), then assert_close).

    pip install .            # from the repository root
    python3 examples/python/cluster_copy.py

Needs torch and an sm_90 or later GPU (thread-block clusters)."""
import torch

import ptxtile
from ptxtile import tirx as T


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
            src.ptr_to([0]), T.uint32(256),
            T.cast(remote_addresses[0], ty="uint32"),
        )
    else:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(mbar.ptr_to([0]), T.uint32(256))
        T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
        for i in range(64):
            B[i] = dst[i]
    T.cuda.cluster_sync()


if __name__ == "__main__":
    a = torch.randn(64, device="cuda")
    b = torch.zeros(64, device="cuda")
    ptxtile.compile(cluster_copy)(a, b)
    torch.testing.assert_close(b, a)
    print("cluster_copy: B == A (64 floats through a 2-CTA cluster)")
