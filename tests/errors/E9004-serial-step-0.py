from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    for i in T.serial(0, 10, 0):
        A[i] = T.float32(1.0)
