# tile_regs.py - register families on random inputs, 4 elements per
# thread (repeat 4) at thread scope, N = 1024 elements.  Per element i with
# x = X[i], y = Y[i], z = Z[i] (float32) the kernel writes F[i, :] and
# U[i, :]:
#   F[i, 0] = fma.rn.f32(x, y, z)
#   F[i, 1] = ex2.approx.ftz.f32(x)
#   F[i, 2] = lg2.approx.ftz.f32(y)        (y > 0)
#   F[i, 3] = cvt.f32.f16(low half of U[i, 1])
#   U[i, 0] = cvt.rn.f16x2.f32(x, y)       (x in the high half)
#   U[i, 1] = add.rn.f16x2(U[i, 0], U[i, 0] with halves from z, x)
#   U[i, 2] = mul.rn.bf16x2(P[i], Q[i])    (P, Q: raw bf16x2 words)
#   U[i, 3], U[i, 4] = low and high word of mov.b64 {U[i, 0], U[i, 1]}
from tvm_tirx.script import tirx as T

N = 1024
BLOCK = 64
V = 4

@T.function
def tile_regs(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32"),
              Z: T.Tensor((N,), "float32"), P: T.Tensor((N,), "uint32"),
              Q: T.Tensor((N,), "uint32"), F: T.Tensor((N, 4), "float32"),
              U: T.Tensor((N, 5), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=N // (BLOCK * V), block=BLOCK))
    t = T.cuda.block_idx("x") * BLOCK + T.cuda.thread_idx("x")
    x = T.alloc_local((V, 1), "float32", layout="default")
    y = T.alloc_local((V, 1), "float32", layout="default")
    z = T.alloc_local((V, 1), "float32", layout="default")
    p = T.alloc_local((V, 1), "uint32", layout="default")
    q = T.alloc_local((V, 1), "uint32", layout="default")
    f = T.alloc_local((V, 4), "float32", layout="default")
    h = T.alloc_local((V, 1), "uint32", layout="default")
    k = T.alloc_local((V, 1), "uint32", layout="default")
    u = T.alloc_local((V, 4), "uint32", layout="default")
    w = T.alloc_local((V, 1), "uint64", layout="default")
    for i in T.unroll(V):
        x[i, 0] = X[t * V + i]
        y[i, 0] = Y[t * V + i]
        z[i, 0] = Z[t * V + i]
        p[i, 0] = P[t * V + i]
        q[i, 0] = Q[t * V + i]
    T.cuda.tile.apply(T.ptx["fma.rn.f32"], f[:, 0:1], x, y, z)
    T.cuda.tile.apply(T.ptx["ex2.approx.ftz.f32"], f[:, 1:2], x)
    T.cuda.tile.apply(T.ptx["lg2.approx.ftz.f32"], f[:, 2:3], y)
    T.cuda.tile.apply(T.ptx["cvt.rn.f16x2.f32"], u[:, 0:1], x, y)
    T.cuda.tile.apply(T.ptx["cvt.rn.f16x2.f32"], k, z, x)
    T.cuda.tile.apply(T.ptx["add.rn.f16x2"], u[:, 1:2], u[:, 0:1], k)
    T.cuda.tile.apply(T.ptx["cvt.f32.f16"], f[:, 3:4], u[:, 1:2].view("uint16")[:, 0:1])
    T.cuda.tile.apply(T.ptx["mul.rn.bf16x2"], u[:, 2:3], p, q)
    T.cuda.tile.apply(T.ptx["mov.b64"], w, u[:, 0:2])
    for i in T.unroll(V):
        for j in T.unroll(4):
            F[t * V + i, j] = f[i, j]
        U[t * V + i, 0] = u[i, 0]
        U[t * V + i, 1] = u[i, 1]
        U[t * V + i, 2] = u[i, 2]
        U[t * V + i, 3] = T.cast(w[i, 0], "uint32")
        U[t * V + i, 4] = T.cast(w[i, 0] >> T.uint64(32), "uint32")
