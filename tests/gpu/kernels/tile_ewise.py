# tile_ewise.py - ewise on random inputs: scale/bias then SiLU, 8 float32
# elements per thread at thread scope, then a CTA-scope scale/bias on a
# (2 warps, 32 lanes, 2) distributed tile loaded and stored with tile
# ld/st.v2.  Expected, per element:
#   Y[i]  = silu(x * s + b)  with silu(v) = v * sigmoid(v), 0 below -30
#   Z[w, l, k] = W[w, l, k] * s + b
from tvm_tirx.script import tirx as T

N = 1024
BLOCK = 64
V = 8

@T.function
def scale_bias(x: T.float32, s: T.float32, b: T.float32) -> T.float32:
    return x * s + b

@T.function
def silu(x: T.float32) -> T.float32:
    if x < -30.0:
        return T.float32(0.0)
    else:
        return x * T.sigmoid(x)

@T.function
def tile_ewise(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32"),
               W: T.Tensor((2, 32, 2), "float32", align=8),
               Z: T.Tensor((2, 32, 2), "float32", align=8),
               s: T.float32, b: T.float32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=N // (BLOCK * V), block=BLOCK))
    t = T.cuda.block_idx("x") * BLOCK + T.cuda.thread_idx("x")
    x = T.alloc_local((V,), "float32", layout="default")
    y = T.alloc_local((V,), "float32", layout="default")
    for k in T.unroll(V):
        x[k] = X[t * V + k]
    T.cuda.tile.ewise(scale_bias, y, x, s, b)
    T.cuda.tile.ewise(silu, y, y)
    for k in T.unroll(V):
        Y[t * V + k] = y[k]
    if T.cuda.block_idx("x") == 0:
        r = T.alloc_local((2, 32, 2), "float32",
                          layout=T.TileLayout(T.S[(2, 32, 2):(1@T.Axis.warpid, 1@T.Axis.laneid, 1)]))
        T.cuda.tile.apply(T.ptx["ld.global.v2.f32"], r, W, scope="cta")
        T.cuda.tile.ewise(scale_bias, r, r, s, b, scope="cta")
        T.cuda.tile.apply(T.ptx["st.global.v2.f32"], Z, r, scope="cta")
