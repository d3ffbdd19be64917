from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((16,), "int64")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    A[0] = 1 << -1
