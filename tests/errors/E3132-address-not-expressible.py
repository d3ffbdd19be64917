from tvm_tirx.script import tirx as T

@T.function
def k(G: T.Tensor((32,), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    R = T.alloc_local((32, 1), "uint32", layout=T.TileLayout(T.S[(32, 1):(1@T.Axis.laneid, 1)]))
    T.cuda.tile.apply(T.ptx["ld.global.b32"], R, G.view(32, 1, layout=T.TileLayout(T.S[(4, 8, 1):(1, 4, 1)])), scope="warp")
