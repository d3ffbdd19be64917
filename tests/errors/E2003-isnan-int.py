from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32,), "int32"), F: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tx = T.cuda.thread_idx("x")
    A[0] = T.if_then_else(T.isnan(A[1]), 1, 0)
