from tvm_tirx.script import tirx as T

n = T.dynamic("n")


@T.function
def k(A: T.Tensor((n,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    R = T.alloc_local((n,), "int32")
    R[0] = 1
    A[tid] = R[0]
