# target: sm_80
# Scalar arithmetic per dtype family: signed/unsigned ints, int8 wrap,
# float16/bfloat16 via float32, float64, bool logic, math builtins.
from tvm_tirx.script import tirx as T


@T.function
def scalars(A: T.Tensor((16,), "float32"), I: T.Tensor((16,), "int32"), n: T.int32, u: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    I[0] = n // 3
    I[1] = n % 3
    I[2] = n / 3
    I[3] = T.reinterpret("int32", u // T.uint32(3) + u % T.uint32(7))
    I[4] = (n << 2) ^ (n >> 1) | (n & 5)
    c: T.int8 = T.cast(n, "int8") + T.int8(100)
    I[5] = T.cast(c, "int32")
    h: T.float16 = T.cast(n, "float16") * T.float16(1.5)
    bf: T.bfloat16 = T.cast(h, "bfloat16") + T.bfloat16(2.0)
    A[0] = T.cast(bf, "float32")
    d: T.float64 = T.cast(n, "float64") / T.float64(3.0)
    A[1] = T.cast(d, "float32")
    x: T.float32 = T.cast(n, "float32")
    A[2] = T.exp(x) + T.log(x) + T.tanh(x) + T.sigmoid(x)
    A[3] = T.fma(x, x, T.rsqrt(x)) + T.max(x, T.float32(1.0))
    p: T.bool = n > 3 and u != T.uint32(0)
    A[4] = T.if_then_else(p, x, T.abs(x))
