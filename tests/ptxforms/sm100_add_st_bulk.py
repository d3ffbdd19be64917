# gate: sm_100a
# expect: add.rn.f32.bf16, add.rz.sat.f32.f16, st.bulk.weak.shared::cta, st.bulk
from tvm_tirx.script import tirx as T


@T.function
def add_st_bulk(A: T.Tensor((32,), "float32"), H: T.Tensor((32,), "bfloat16"),
                G: T.Tensor((32,), "float16"), n: T.uint64):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    s = T.alloc_shared((64,), "uint32", layout="default", align=16)
    T.ptx.add.rn.f32.bf16(A[lane], H[lane], A[lane])
    A[lane] = T.ptx["add.rz.sat.f32.f16"](G[lane], T.float32(1.5))
    T.ptx.st.bulk.weak.shared__cta(s.ptr_to([0]), T.uint64(128), 0)
    T.ptx["st.bulk"](s.ptr_to([0]), n, 0)
    T.ptx.st_bulk(s.ptr_to([8]), n)
