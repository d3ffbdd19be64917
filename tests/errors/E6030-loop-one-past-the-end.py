# An off-by-one loop: range(65) over a 64-element shared array stores
# S[64] on the last iteration (i = 64), whatever the thread.
from tvm_tirx.script import tirx as T

@T.function
def fill(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((64,), "float32", layout="default")
    if T.cuda.thread_idx("x") == 0:
        for i in range(65):
            S[i] = T.float32(0.0)
    T.cuda.cta_sync()
    A[T.cuda.thread_idx("x")] = S[T.cuda.thread_idx("x")]
