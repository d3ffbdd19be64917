from tvm_tirx.script import tirx as T

@T.function
def twice(x: T.float32) -> T.float32:
    return x + x

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    H = T.alloc_local((4,), "float16", layout="default")
    D = T.alloc_local((4,), "float32", layout="default")
    T.cuda.tile.ewise(twice, D, H)
