from tvm_tirx.script import tirx as T
n = T.dynamic("n")

@T.function
def k(A: T.Tensor((n,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=n // T.cuda.block_idx("x"), block=32))
    A[0] = 1
