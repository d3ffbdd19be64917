from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    R = T.alloc_local((32,), "float32", layout=T.TileLayout(T.S[32:1@T.Axis.laneid]))
    T.cuda.tile.apply(T.ptx["mov.f32"], R, T.float32(0.0), scope="warp")
