from tvm_tirx.script import tirx as T

n = T.dynamic("n")


@T.function
def k(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((64,), "float32", align=3)
    S[tid] = A[tid]
