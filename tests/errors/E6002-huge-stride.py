from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((16,), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((4,), "uint32", layout=T.TileLayout(T.S[4:4611686018427387904]))
    A[0] = S[3]
