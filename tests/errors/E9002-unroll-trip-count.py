from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((16,), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    for i in T.unroll(-9223372036854775807, 9223372036854775807, 4611686018427387904):
        A[0] = T.uint32(1)
