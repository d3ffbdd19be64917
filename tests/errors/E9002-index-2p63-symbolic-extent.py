from tvm_tirx.script import tirx as T
n = T.dynamic("n")

@T.function
def k(A: T.Tensor((n,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    A[9223372036854775807] = 1
