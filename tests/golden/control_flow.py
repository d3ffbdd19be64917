# target: sm_90a
# Control flow: serial loops with break/continue, T.unroll over a register
# array, while, if/elif/else.
from tvm_tirx.script import tirx as T


@T.function
def control_flow(A: T.Tensor((32,), "int32"), n: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    r = T.alloc_local((4,), "int32")
    for i in T.unroll(4):
        r[i] = tid * i
    acc: T.int32 = 0
    for j in range(n):
        if j == 7:
            continue
        if acc > 100:
            break
        acc = acc + r[3]
    k: T.int32 = 0
    while k < n:
        k = k + 2
    if tid < 8:
        A[tid] = acc
    elif tid < 16:
        A[tid] = k
    else:
        A[tid] = r[1]
