from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    D = T.alloc_local((4, 1), "float32", layout="default")
    x: T.float32 = 0.0
    T.cuda.tile.apply(T.ptx["mov.f32"], x, D)
