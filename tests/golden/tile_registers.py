# tile_registers.py - every register family at thread scope on (4, 1)
# register tiles (4 issues per call): add/sub/mul (a scalar on the left of
# sub, packed f16x2/bf16x2 carriers, integer lo/hi/wide), div/rcp/sqrt,
# 2-input min/max, fma, cvt (scalar, packed cvt.rn.f16x2.f32 with the high
# source first, uint16 containers), ex2/lg2, abs/neg, mov (scalar
# broadcast, pack and unpack of a b64), and a warp-scope call on a
# lane-distributed tile.
from tvm_tirx.script import tirx as T

@T.function
def tile_registers(X: T.Tensor((128, 4), "float32"), O: T.Tensor((128, 24), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    t = T.cuda.thread_idx("x")
    x = T.alloc_local((4, 1), "float32", layout="default")
    f = T.alloc_local((4, 12), "float32", layout="default")
    h = T.alloc_local((4, 1), "uint32", layout="default")
    g = T.alloc_local((4, 1), "uint32", layout="default")
    hs = T.alloc_local((4, 1), "uint16", layout="default")
    i = T.alloc_local((4, 1), "int32", layout="default")
    wd = T.alloc_local((4, 1), "int64", layout="default")
    w = T.alloc_local((4, 1), "uint64", layout="default")
    pr = T.alloc_local((4, 2), "uint32", layout="default")
    for k in T.unroll(4):
        x[k, 0] = X[t, k]
        i[k, 0] = T.cast(X[t, k], "int32")
    T.cuda.tile.apply(T.ptx["add.rn.f32"], f[:, 0:1], x, x)
    T.cuda.tile.apply(T.ptx["sub.f32"], f[:, 1:2], T.float32(1.0), x)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], f[:, 2:3], x, T.float32(3.0))
    T.cuda.tile.apply(T.ptx["div.rn.f32"], f[:, 3:4], T.float32(1.0), x)
    T.cuda.tile.apply(T.ptx["rcp.approx.ftz.f32"], f[:, 4:5], x)
    T.cuda.tile.apply(T.ptx["abs.f32"], f[:, 5:6], x)
    T.cuda.tile.apply(T.ptx["sqrt.rn.f32"], f[:, 6:7], f[:, 5:6])
    T.cuda.tile.apply(T.ptx["neg.f32"], f[:, 7:8], x)
    T.cuda.tile.apply(T.ptx["min.f32"], f[:, 8:9], x, f[:, 7:8])
    T.cuda.tile.apply(T.ptx["max.NaN.f32"], f[:, 9:10], x, f[:, 7:8])
    T.cuda.tile.apply(T.ptx["fma.rn.f32"], f[:, 10:11], x, x, f[:, 0:1])
    T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], f[:, 11:12], x)
    T.cuda.tile.apply(T.ptx["lg2.approx.ftz.f32"], f[:, 11:12], f[:, 11:12])
    T.cuda.tile.apply(T.ptx["cvt.rn.f16x2.f32"], h, x, f[:, 7:8])
    T.cuda.tile.apply(T.ptx["add.rn.f16x2"], g, h, h)
    T.cuda.tile.apply(T.ptx["mul.rn.bf16x2"], g, g, h)
    T.cuda.tile.apply(T.ptx["cvt.rn.f16.f32"], hs, x)
    T.cuda.tile.apply(T.ptx["cvt.f32.f16"], f[:, 0:1], hs)
    T.cuda.tile.apply(T.ptx["cvt.f32.f16"], f[:, 1:2], h.view("uint16")[:, 1:2])
    T.cuda.tile.apply(T.ptx["mul.hi.s32"], i, i, i)
    T.cuda.tile.apply(T.ptx["mul.wide.s32"], wd, i, i)
    T.cuda.tile.apply(T.ptx["mov.b32"], g, T.uint32(7))
    T.cuda.tile.apply(T.ptx["mul.lo.u32"], g, g, h)
    T.cuda.tile.apply(T.ptx["mov.b64"], w, pr)
    T.cuda.tile.apply(T.ptx["mov.b64"], pr, w)
    lanes = T.alloc_local((32, 2, 1), "uint64",
                          layout=T.TileLayout(T.S[(32, 2, 1):(1@T.Axis.laneid, 1, 1)]))
    T.cuda.tile.apply(T.ptx["mov.b64"], lanes, T.uint64(5), scope="warp")
    for k in T.unroll(4):
        for j in T.unroll(12):
            O[t, j] = T.reinterpret("uint32", f[k, j])
        O[t, 12 + k] = g[k, 0] + pr[k, 1] + T.cast(wd[k, 0], "uint32")
    O[t, 16] = T.cast(lanes[0, 1, 0], "uint32")
