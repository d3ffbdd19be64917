# target: sm_90a
# The mbarrier forms without .shared address generically: a ptr_to of a
# shared barrier becomes a 64-bit generic address (cvta.shared.u64), which
# ptxas 13.0 accepts; with .shared or .shared::cta a 32-bit shared-window
# register is still fine.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    bar = T.alloc_shared((1,), "uint64", align=8)
    state: T.uint64 = T.uint64(0)
    ok: T.bool = False
    local: T.uint32 = T.cast(bar.ptr_to([0]), "uint32")
    if tid == 0:
        T.ptx["mbarrier.init.b64"](bar.ptr_to([0]), T.uint32(32))
    T.cuda.cta_sync()
    T.ptx["mbarrier.arrive.b64"](state, bar.ptr_to([0]))
    T.ptx["mbarrier.arrive.release.cta.b64"](state, bar.ptr_to([0]), T.uint32(1))
    T.ptx["mbarrier.arrive.expect_tx.release.cta.b64"](state, bar.ptr_to([0]), T.uint32(0))
    T.ptx["mbarrier.test_wait.b64"](ok, bar.ptr_to([0]), state)
    T.ptx["mbarrier.test_wait.parity.acquire.cta.b64"](ok, bar.ptr_to([0]), T.uint32(0))
    T.ptx["mbarrier.try_wait.b64"](ok, bar.ptr_to([0]), state)
    T.ptx["mbarrier.try_wait.parity.b64"](ok, bar.ptr_to([0]), T.uint32(0))
    T.ptx["mbarrier.arrive.shared.b64"](state, local)
    T.ptx["mbarrier.try_wait.parity.shared::cta.b64"](ok, local, T.uint32(0))
    T.cuda.cta_sync()
    if tid == 0:
        T.ptx["mbarrier.inval.b64"](bar.ptr_to([0]))
    A[tid] = 1
