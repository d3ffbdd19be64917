# Element accesses a guard keeps in bounds (issue 22, compile-time
# bounds): S has 64 elements and the block 128 threads, so every access
# below needs the guard next to it.  All must be accepted.
from tvm_tirx.script import tirx as T

@T.function
def guarded(A: T.Tensor((128,), "float32"), B: T.Tensor((128,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((64,), "float32", layout="default")
    if tid < 64:
        S[tid] = A[tid]
    else:
        S[tid - 64] = A[tid]
    T.cuda.cta_sync()
    if tid >= 1 and tid <= 64:
        B[tid] = S[tid - 1]
    # a select and a short-circuit `and` evaluate the load only when the
    # condition holds
    v = T.if_then_else(tid < 64, S[tid], T.float32(0.0))
    if tid < 64 and S[tid] > 0.0:
        v = v + 1.0
    for i in range(2):
        if tid + 64 * i < 64:
            B[tid] = S[tid + 64 * i] + v
    if T.cuda.lane_id() == 0:
        S[T.cuda.warp_id() * 16 + 15] = v
