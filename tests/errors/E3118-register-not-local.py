from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((4, 1), "float32", align=16)
    T.cuda.tile.apply(T.ptx["add.f32"], S, T.float32(1.0), T.float32(2.0))
