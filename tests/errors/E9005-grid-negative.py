from tvm_tirx.script import tirx as T

n = T.dynamic("n")


@T.function
def k(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=-1, block=32))
    tid = T.cuda.thread_idx("x")
    A[tid] = T.float32(1.0)
