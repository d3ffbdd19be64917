# gate: sm_80
# expect: st.volatile.global.u64, st.volatile.u32, st.volatile.shared.v2.f32, st.volatile.shared::cta.b32
from tvm_tirx.script import tirx as T


@T.function
def st_volatile(A: T.Tensor((2,), "uint64"), B: T.Tensor((4,), "uint32"),
                C: T.Tensor((2,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((2,), "float32", layout="default", align=8)
    w = T.alloc_shared((1,), "uint32", layout="default")
    T.ptx.st.volatile.global_.u64(A.data, A[1])
    T.ptx.st.volatile.u32(B.ptr_to([0]), B[1])
    T.ptx["st.volatile.shared.v2.f32"](s.ptr_to([0]), (C[0], C[1]))
    T.ptx["st.volatile.shared::cta.b32"](w.ptr_to([0]), B[2])
    T.cuda.cta_sync()
    C[0] = s[0] + s[1]
    B[3] = w[0]
