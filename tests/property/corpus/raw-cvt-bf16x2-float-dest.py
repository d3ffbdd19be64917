# target: sm_90a
# Found by tools/mutate_examples.py (gemm_wgmma.py, arguments swapped):
# a float32 local as the destination of cvt.rn.bf16x2.f32 was emitted as
# `cvt.rn.bf16x2.f32 %f1, ...` - "bf16x2" was taken for a .bN type, so an
# f32 register passed for it and ptxas said "Arguments mismatch".  The
# destination now goes through a b32 temporary.
from tvm_tirx.script import tirx as T

@T.function
def cvt_pair(A: T.Tensor((32, 2), "float32"), B: T.Tensor((32, 2), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    x = T.alloc_local((2,), "float32")
    x[0] = A[tid, 0]
    x[1] = A[tid, 1]
    T.ptx["cvt.rn.bf16x2.f32"](x[0], x[1], A[tid, 0])
    B[tid, 0] = x[0]
