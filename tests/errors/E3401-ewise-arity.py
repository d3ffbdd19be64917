from tvm_tirx.script import tirx as T

@T.function
def twice(x: T.float32) -> T.float32:
    return x + x

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    D = T.alloc_local((4, 1), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["mov.f32"], D, T.float32(1.0))
    T.cuda.tile.ewise(twice, D, D, D)
