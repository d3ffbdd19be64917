from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    if tid < 8:
        A[tid] = T.float32(1.0)
    elif tid < 3:
        A[tid] = T.float32(2.0)
