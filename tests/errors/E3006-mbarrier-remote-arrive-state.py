# mbarrier.arrive on a shared::cluster address returns no state (its
# first operand is the sink `_`): a state argument is rejected.
from tvm_tirx.script import tirx as T

@T.function
def remote_arrive(A: T.Tensor((64,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32, cluster=2))
    tid = T.cuda.thread_idx("x")
    rank = T.cuda.cluster_cta_id("x")
    bar = T.alloc_shared((1,), "uint64", align=8)
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(2))
        T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()
    if tid == 0:
        local: T.uint32 = T.cast(bar.ptr_to([0]), "uint32")
        remote: T.uint32 = T.uint32(0)
        T.ptx["mapa.shared::cluster.u32"](remote, local, 1 - rank)
        st: T.uint64 = T.uint64(0)
        T.ptx["mbarrier.arrive.release.cluster.shared::cluster.b64"](st, remote, T.uint32(1))
        T.ptx["mbarrier.arrive.release.cluster.shared::cluster.b64"](local, T.uint32(1))
    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
    A[T.cuda.block_idx("x") * 32 + tid] = rank + 1
    T.cuda.cluster_sync()
