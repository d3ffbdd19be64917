# Target: sm_100a
# TIRx surface (issue 22): the sm_100 raw forms add.rn.f32.bf16 and
# st.bulk.weak.shared::cta.
# expect: add.rn.f32.bf16=1, st.bulk.weak.shared::cta=1
from tvm_tirx.script import tirx as T


@T.function
def surface_forms_sm100(F: T.Tensor((32,), "float32"), H: T.Tensor((32,), "uint16")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.thread_idx("x")
    s = T.alloc_shared((64,), "uint32", layout="default", align=16)
    T.ptx.add.rn.f32.bf16(F[lane], H[lane], F[lane])
    if lane == 0:
        T.ptx.st_bulk.weak.shared__cta(s.ptr_to([0]), T.uint64(128))
