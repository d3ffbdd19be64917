# target: sm_90a
# Thread/CTA/cluster ids and every sync helper; raw PTX calls with pred=.
from tvm_tirx.script import tirx as T


@T.function
def ids_sync(Out: T.Tensor((2, 64), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=(32, 2), cluster=2))
    mbar = T.alloc_shared((1,), "uint64", align=8)
    tid = T.cuda.thread_idx("x") + 32 * T.cuda.thread_idx("y")
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(64))
    T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()
    leader = T.cuda.elect_sync()
    state: T.uint64 = T.uint64(0)
    T.ptx.mbarrier.arrive.shared.b64(state, mbar.ptr_to([0]), pred=leader)
    T.ptx.mbarrier.arrive.shared.b64(state, mbar.ptr_to([0]), T.uint32(31), pred=leader)
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    T.cuda.warp_sync()
    T.cuda.cta_sync()
    Out[T.cuda.block_idx("x"), tid] = T.cuda.cluster_cta_id("x") * 1000 + T.cuda.warp_id() * 100 + T.cuda.lane_id()
    T.cuda.cluster_sync()
