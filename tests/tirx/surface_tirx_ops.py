# TIRx surface (issue 22): TIRx's operator functions T.bitwise_and,
# bitwise_or, bitwise_xor, shift_left, shift_right, T.Cast(dtype, x) and
# T.isnan (float32 and float16).
# Values (tests/suites/tirx_surface.sh, U = iota): B[l] = ((l << 4) | 3) ^ 1
# & 0xff, then >> 1: ((16 l + 3) ^ 1) = 16 l + 2, & 0xff, >> 1 = (8 l + 1)
# & 0x7f; N[l] = 3 where l == 5 (NaN as float32 and as float16: 1 + 2),
# else 0; W[0] = 1 << 32 | 7 = 4294967303.
# expect: setp.nan.f32=2, shl.b32=1, shr.u32=1, xor.b32=1
from tvm_tirx.script import tirx as T


@T.function
def surface_tirx_ops(U: T.Tensor((32,), "uint32"), B: T.Tensor((32,), "uint32"),
                     N: T.Tensor((32,), "int32"), W: T.Tensor((1,), "uint64")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.thread_idx("x")
    x = U[lane]
    y = T.bitwise_xor(T.bitwise_or(T.shift_left(x, T.uint32(4)), T.uint32(3)), T.uint32(1))
    B[lane] = T.shift_right(T.bitwise_and(y, T.uint32(0xFF)), T.uint32(1))
    f = T.if_then_else(lane == 5, T.float32("nan"), T.Cast("float32", x))
    N[lane] = T.if_then_else(T.isnan(f), 1, 0) + T.if_then_else(T.isnan(T.Cast("float16", f)), 2, 0)
    if lane == 0:
        W[0] = T.bitwise_or(T.shift_left(T.uint64(1), T.uint64(32)), T.Cast("uint64", lane + 7))
