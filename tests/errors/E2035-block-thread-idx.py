from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((16,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=T.cuda.thread_idx("x")))
    A[0] = 1
