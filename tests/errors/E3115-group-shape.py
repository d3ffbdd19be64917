from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    R = T.alloc_local((16, 1), "float32", layout=T.TileLayout(T.S[(16, 1):(1@T.Axis.laneid, 1)]))
    T.cuda.tile.apply(T.ptx["mov.f32"], R, T.float32(0.0), scope="warp")
