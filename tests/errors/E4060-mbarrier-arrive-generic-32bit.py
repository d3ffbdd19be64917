# target: sm_90a
# mbarrier.arrive without .shared addresses generically: a 32-bit shared-window register is refused (ptxas 13.0: "32-bit address ... conflicting with .address_size 64").
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    bar = T.alloc_shared((1,), "uint64", align=8)
    state: T.uint64 = T.uint64(0)
    ok: T.bool = False
    local: T.uint32 = T.cast(bar.ptr_to([0]), "uint32")
    T.ptx["mbarrier.arrive.b64"](state, local)
    A[tid] = 1
