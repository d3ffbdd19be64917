from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((16, 16), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    A[0, 1152921504606846976] = T.uint32(1)
