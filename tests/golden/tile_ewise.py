# tile_ewise.py - ewise: a scale/bias function with scalar broadcasts, a
# clamp with bindings and if/else returns, a zero-stride broadcast input,
# CTA-scope calls on a (4 warps, 32 lanes, 2) distributed tile loaded and
# stored with tile ld/st.
from tvm_tirx.script import tirx as T

@T.function
def scale_bias(x: T.float32, s: T.float32, b: T.float32) -> T.float32:
    return x * s + b

@T.function
def clamp(x: T.float32, hi: T.float32) -> T.float32:
    lim = hi * 0.5
    if x > lim:
        return lim
    else:
        return T.max(x, -lim)

@T.function
def tile_ewise(X: T.Tensor((4, 32, 2), "float32", align=8), Y: T.Tensor((4, 32, 2), "float32", align=8),
               s: T.float32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    x = T.alloc_local((4, 32, 2), "float32",
                      layout=T.TileLayout(T.S[(4, 32, 2):(1@T.Axis.warpid, 1@T.Axis.laneid, 1)]))
    y = T.alloc_local((4, 32, 2), "float32",
                      layout=T.TileLayout(T.S[(4, 32, 2):(1@T.Axis.warpid, 1@T.Axis.laneid, 1)]))
    hi = T.alloc_local((1,), "float32", layout="default")
    hi[0] = s + 1.0
    T.cuda.tile.apply(T.ptx["ld.global.v2.f32"], x, X, scope="cta")
    T.cuda.tile.ewise(scale_bias, y, x, s, T.float32(0.25), scope="cta")
    T.cuda.tile.ewise(clamp, y, y, hi.view(4, 32, 2, layout=T.TileLayout(T.S[(4, 32, 2):(0, 0, 0)])), scope="cta")
    T.cuda.tile.apply(T.ptx["st.global.v2.f32"], Y, y, scope="cta")
