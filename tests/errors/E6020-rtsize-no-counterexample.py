# c // 3 + 4 <= n does not bound c + 4 <= n (thread 31, n = 45: 45 <= 45 but
# c + 4 = 128): E6020, where the counterexample search finds none (the
# message says so; there are no values to print)
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def k(A: T.Tensor((n,), "float32", align=16), B: T.Tensor((n,), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    c = T.cuda.thread_idx("x") * 4
    x = T.alloc_local((4,), "float32", layout="default")
    if c // 3 + 4 <= n:
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[c:c + 4])
