# gate: sm_80
# expect: ld.volatile.global.u64, ld.volatile.u32, ld.volatile.shared.v2.f32, ld.volatile.shared::cta.b32
from tvm_tirx.script import tirx as T


@T.function
def ld_volatile(A: T.Tensor((2,), "uint64"), B: T.Tensor((4,), "uint32"),
                C: T.Tensor((2,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((2,), "float32", layout="default", align=8)
    w = T.alloc_shared((1,), "uint32", layout="default")
    v = T.alloc_local((2,), "float32", layout="default")
    T.ptx.ld.volatile.global_.u64(A[1], A.data)
    T.ptx.ld.volatile.u32(B[1], B.ptr_to([0]))
    T.ptx["ld.volatile.shared.v2.f32"](v[0], v[1], s.ptr_to([0]))
    T.ptx["ld.volatile.shared::cta.b32"](B[2], w.ptr_to([0]))
    C[0] = v[0] + v[1]
