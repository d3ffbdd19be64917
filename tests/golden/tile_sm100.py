# target: sm_100a
# tile_sm100.py - forms that need sm_100: 256-bit ld/st.global.v8.b32 and
# .v4.b64, packed f32x2 add/fma on uint64 carriers, 3-input max.f32.
from tvm_tirx.script import tirx as T

@T.function
def tile_sm100(A: T.Tensor((32, 2, 8), "uint32", align=32), B: T.Tensor((32, 2, 4), "uint64", align=32)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    R = T.alloc_local((32, 2, 8), "uint32", layout=T.TileLayout(T.S[(32, 2, 8):(1@T.Axis.laneid, 8, 1)]))
    T.cuda.tile.apply(T.ptx["ld.global.v8.b32"], R, A, scope="warp")
    W = T.alloc_local((32, 2, 4), "uint64", layout=T.TileLayout(T.S[(32, 2, 4):(1@T.Axis.laneid, 4, 1)]))
    T.cuda.tile.apply(T.ptx["ld.global.L1::no_allocate.v4.b64"], W, B, scope="warp")
    T.cuda.tile.apply(T.ptx["add.rn.f32x2"], W.view(32, 8, 1, layout=T.TileLayout(T.S[(32, 8, 1):(1@T.Axis.laneid, 1, 1)])),
                      W.view(32, 8, 1, layout=T.TileLayout(T.S[(32, 8, 1):(1@T.Axis.laneid, 1, 1)])),
                      W.view(32, 8, 1, layout=T.TileLayout(T.S[(32, 8, 1):(1@T.Axis.laneid, 1, 1)])), scope="warp")
    T.cuda.tile.apply(T.ptx["fma.rn.f32x2"], W[:, 0, 0:1], W[:, 1, 0:1], W[:, 1, 1:2], W[:, 1, 2:3], scope="warp")
    F = T.alloc_local((4, 1), "float32", layout="default")
    for k in T.unroll(4):
        F[k, 0] = T.cast(k, "float32")
    T.cuda.tile.apply(T.ptx["max.f32"], F, F, F, T.float32(1.5))
    T.cuda.tile.apply(T.ptx["st.global.v8.b32"], A, R, scope="warp")
    T.cuda.tile.apply(T.ptx["st.global.v4.b64"], B, W, scope="warp")
