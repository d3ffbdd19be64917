from tvm_tirx.script import tirx as T

@T.function(private=1)
def k(A: T.Tensor((32,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    A[0] = 1
