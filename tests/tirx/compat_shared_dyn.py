# TIRx spelling: T.alloc_shared(..., scope="shared.dyn") (issue 11).
# expect: ld.global.v4.b32=1, st.shared.v4.b32=1
from tvm_tirx.script import tirx as T

@T.function
def compat_shared_dyn(A: T.Tensor((32, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    s = T.alloc_shared((32, 4), "float32", scope="shared.dyn", align=16)
    x = T.alloc_local((4,), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[tid, :])
    T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], s.sub[tid, :], x)
