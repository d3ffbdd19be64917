from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    One = T.alloc_local((1, 1), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["add.f32"], One.view(4, 1, layout=T.TileLayout(T.S[(4, 1):(0, 1)])), T.float32(1.0), T.float32(2.0))
