# T.cuda.printf's format is checked against its arguments at compile time,
# the way C promotes them for vprintf: %d reads an int of at most 32 bits,
# %lld a 64-bit one, %f a float; %s (a device pointer) is not accepted
from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((32,), "float32"), n: T.int64):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    T.cuda.printf("%d\n", A[tid])
    T.cuda.printf("%f\n", tid)
    T.cuda.printf("%d %d\n", tid)
    T.cuda.printf("%d\n", tid, tid)
    T.cuda.printf("%d\n", n)
    T.cuda.printf("%s\n", tid)
    T.cuda.printf("%*d\n", tid, tid)
    fmt = "%u\n"
    T.cuda.printf(fmt, n)
    T.cuda.printf(tid)
