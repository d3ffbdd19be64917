# register_ops_sm100.py - the Blackwell-only register forms: three-input
# min/max (max.f32 d, a, b, c selects the registered three-input form;
# d, a, b would be the binary one) and packed f32x2 arithmetic on uint64
# carriers.  Each thread owns four (x, y, z) float32 triples and writes
#     F[.., 0] = max(x, y, z)    F[.., 1] = min(x, y, z)
#     F[.., 2] = low  float of add.rn.f32x2({x, y}, {z, z}) = y + z
#     F[.., 3] = high float of the same                      = x + z
#
# Source: cuda_tile_instruction_reference.rst, "Minimum and maximum" and
# "Addition, subtraction, and multiplication" -> "Native packed
# arithmetic" (add.rn.f32x2 uses a uint64 carrier).
# Target: sm_100a (PTX three-input min/max and f32x2 need sm_100);
# compile-only on an H200.
from tvm_tirx.script import tirx as T

N = 512
BLOCK = 128
V = 4

@T.function
def register_ops_sm100(
    X: T.Tensor((N,), "float32"),
    Y: T.Tensor((N,), "float32"),
    Z: T.Tensor((N,), "float32"),
    F: T.Tensor((N, 4), "float32"),
):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=N // (BLOCK * V), block=BLOCK))
    t = T.cuda.block_idx("x") * BLOCK + T.cuda.thread_idx("x")
    x = T.alloc_local((V, 1), "float32", layout="default")
    y = T.alloc_local((V, 1), "float32", layout="default")
    z = T.alloc_local((V, 1), "float32", layout="default")
    r = T.alloc_local((V, 4), "float32", layout="default")
    # Two float32 per b64 carrier: word 0 is the low half.
    xy = T.alloc_local((V, 2), "float32", layout="default")
    zz = T.alloc_local((V, 2), "float32", layout="default")
    sum2 = T.alloc_local((V, 2), "float32", layout="default")
    for i in T.unroll(V):
        x[i, 0] = X[t * V + i]
        y[i, 0] = Y[t * V + i]
        z[i, 0] = Z[t * V + i]
        xy[i, 0] = y[i, 0]
        xy[i, 1] = x[i, 0]
        zz[i, 0] = z[i, 0]
        zz[i, 1] = z[i, 0]
    T.cuda.tile.apply(T.ptx["max.f32"], r[:, 0:1], x, y, z)
    T.cuda.tile.apply(T.ptx["min.f32"], r[:, 1:2], x, y, z)
    T.cuda.tile.apply(T.ptx["add.rn.f32x2"], sum2.view("uint64"),
                      xy.view("uint64"), zz.view("uint64"))
    for i in T.unroll(V):
        r[i, 2] = sum2[i, 0]
        r[i, 3] = sum2[i, 1]
        for j in T.unroll(4):
            F[t * V + i, j] = r[i, j]
