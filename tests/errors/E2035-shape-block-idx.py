from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((T.cuda.block_idx("x"),), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    A[0] = 1
