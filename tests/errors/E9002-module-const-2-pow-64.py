from tvm_tirx.script import tirx as T

N = 4294967296
M = N * N


@T.function
def k(A: T.Tensor((M + 16,), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    A[0] = T.uint32(1)
