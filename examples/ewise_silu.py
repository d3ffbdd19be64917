# ewise_silu.py - y = silu(alpha * x) over n float32 values, 8 per thread:
# a register tile is loaded, scaled with one ewise call (a scalar input
# broadcast to every element), passed through SiLU with a second ewise
# call, and stored.  silu(v) = v * sigmoid(v), flushed to 0 below -30.
# Afterwards Y[i] == silu(alpha * X[i]) for i < n (float32 rounding).
#
# Source: cuda_tile_instruction_reference.rst, "Scalar function
# application" (T.cuda.tile.ewise(function, dst, *inputs, scope=...) with a
# typed scalar function, conditional returns and a broadcast scalar).
# Target: sm_80 and later.
# TIRx refuses: 'If' object has no attribute 'cond'
from tvm_tirx.script import tirx as T

n = T.dynamic("n")
BLOCK = 128
VEC = 8

@T.function
def scale(x: T.float32, a: T.float32) -> T.float32:
    return x * a

@T.function
def silu(x: T.float32) -> T.float32:
    if x < -30.0:
        return T.float32(0.0)
    else:
        return x * T.sigmoid(x)

@T.function
def ewise_silu(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32"), alpha: T.float32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, BLOCK * VEC), block=BLOCK))
    base = (T.cuda.block_idx("x") * BLOCK + T.cuda.thread_idx("x")) * VEC
    x = T.alloc_local((VEC,), "float32", layout="default")
    t = T.alloc_local((VEC,), "float32", layout="default")
    y = T.alloc_local((VEC,), "float32", layout="default")
    for k in T.unroll(VEC):
        if base + k < n:
            x[k] = X[base + k]
        else:
            x[k] = T.float32(0.0)
    T.cuda.tile.ewise(scale, t, x, alpha)
    T.cuda.tile.ewise(silu, y, t, scope="thread")
    for k in T.unroll(VEC):
        if base + k < n:
            Y[base + k] = y[k]
