# register_ops.py - the register instruction families at thread scope.
# Each thread owns four float32 pairs (x, y) = (X[4t + i], Y[4t + i]) in
# (4, 1) register tiles (repeat 4, one register per atom) and writes
# sixteen results per element to F (float32) and U (uint32 bits):
#     F[.., 0..11] = x+y, 1-x, x*y, fma(x,y,x+y), x/y, rcp(y), sqrt(|x|),
#                    |x|, -x, ex2(x), lg2(|y|), min(x,y)
#     F[.., 12..15] = max(x,y), f32(low f16 of h2), f32(high f16 of h2),
#                     x (moved)
#     U[.., 0..3]  = h = cvt.rn.f16x2.f32(x, y)  (x in the high half),
#                    h2 = add.rn.f16x2(h, h), 0 (broadcast mov),
#                    low word of mov.b64 {h, h2}
# Host references follow the PTX definitions (approximate forms within
# their documented error).
#
# Source: cuda_tile_instruction_reference.rst, "Register instructions"
# (register moves; add/sub/mul incl. packed f16x2 carriers; div/rcp/sqrt;
# min/max; fma; cvt incl. packed cvt.rn.f16x2.f32 and cvt.f32.f16 through a
# uint16 view; ex2/lg2; abs/neg).  The three-input min/max and f32x2 forms
# need sm_100 and live in register_ops_sm100.py.
# Target: sm_90a (sm_80 and later).
from tvm_tirx.script import tirx as T

N = 1024
BLOCK = 128
V = 4

@T.function
def register_ops(
    X: T.Tensor((N,), "float32"),
    Y: T.Tensor((N,), "float32"),
    F: T.Tensor((N, 16), "float32"),
    U: T.Tensor((N, 4), "uint32"),
):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=N // (BLOCK * V), block=BLOCK))
    t = T.cuda.block_idx("x") * BLOCK + T.cuda.thread_idx("x")
    x = T.alloc_local((V, 1), "float32", layout="default")
    y = T.alloc_local((V, 1), "float32", layout="default")
    s = T.alloc_local((V, 1), "float32", layout="default")
    r = T.alloc_local((V, 16), "float32", layout="default")
    h = T.alloc_local((V, 1), "uint32", layout="default")
    h2 = T.alloc_local((V, 1), "uint32", layout="default")
    z = T.alloc_local((V, 1), "uint32", layout="default")
    w = T.alloc_local((V, 1), "uint64", layout="default")
    hh = T.alloc_local((V, 2), "uint32", layout="default")
    for i in T.unroll(V):
        x[i, 0] = X[t * V + i]
        y[i, 0] = Y[t * V + i]

    # add / sub (scalar on the left) / mul / fma
    T.cuda.tile.apply(T.ptx["add.rn.f32"], s, x, y)
    T.cuda.tile.apply(T.ptx["add.rn.f32"], r[:, 0:1], x, y)
    T.cuda.tile.apply(T.ptx["sub.rn.f32"], r[:, 1:2], T.float32(1.0), x)
    T.cuda.tile.apply(T.ptx["mul.rn.f32"], r[:, 2:3], x, y)
    T.cuda.tile.apply(T.ptx["fma.rn.f32"], r[:, 3:4], x, y, s)
    # division, reciprocal, square root
    T.cuda.tile.apply(T.ptx["div.rn.f32"], r[:, 4:5], x, y)
    T.cuda.tile.apply(T.ptx["rcp.approx.ftz.f32"], r[:, 5:6], y)
    T.cuda.tile.apply(T.ptx["abs.f32"], r[:, 7:8], x)
    T.cuda.tile.apply(T.ptx["sqrt.rn.f32"], r[:, 6:7], r[:, 7:8])
    T.cuda.tile.apply(T.ptx["neg.f32"], r[:, 8:9], x)
    # base-two exponential and logarithm
    T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], r[:, 9:10], x)
    T.cuda.tile.apply(T.ptx["abs.f32"], r[:, 10:11], y)
    T.cuda.tile.apply(T.ptx["lg2.approx.ftz.f32"], r[:, 10:11], r[:, 10:11])
    # two-input min / max
    T.cuda.tile.apply(T.ptx["min.f32"], r[:, 11:12], x, y)
    T.cuda.tile.apply(T.ptx["max.f32"], r[:, 12:13], x, y)
    # packed conversion: x to the high half, y to the low half
    T.cuda.tile.apply(T.ptx["cvt.rn.f16x2.f32"], h, x, y)
    # packed f16x2 arithmetic on b32 carriers
    T.cuda.tile.apply(T.ptx["add.rn.f16x2"], h2, h, h)
    # back to float32, one halfword at a time through a uint16 view
    T.cuda.tile.apply(T.ptx["cvt.f32.f16"], r[:, 13:14], h2.view("uint16")[:, 0:1])
    T.cuda.tile.apply(T.ptx["cvt.f32.f16"], r[:, 14:15], h2.view("uint16")[:, 1:2])
    # moves: register copy, scalar broadcast, packing a b64 from two b32
    T.cuda.tile.apply(T.ptx["mov.b32"], r[:, 15:16], x)
    T.cuda.tile.apply(T.ptx["mov.b32"], z, T.uint32(0))
    for i in T.unroll(V):
        hh[i, 0] = h[i, 0]
        hh[i, 1] = h2[i, 0]
    T.cuda.tile.apply(T.ptx["mov.b64"], w, hh)

    for i in T.unroll(V):
        for j in T.unroll(16):
            F[t * V + i, j] = r[i, j]
        U[t * V + i, 0] = h[i, 0]
        U[t * V + i, 1] = h2[i, 0]
        U[t * V + i, 2] = z[i, 0]
        U[t * V + i, 3] = T.cast(w[i, 0], "uint32")
