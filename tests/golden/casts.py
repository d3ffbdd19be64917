# target: sm_90a
# Casts and reinterprets between dtype families: integer widening
# (sign/zero extension by the source), narrowing, float <-> int
# (round to nearest / truncate), float widths, bool, T.reinterpret.
from tvm_tirx.script import tirx as T


@T.function
def casts(I: T.Tensor((8,), "int64"), F: T.Tensor((8,), "float32"), n: T.int32, u: T.uint32, x: T.float32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    I[0] = T.cast(n, "int64")
    I[1] = T.cast(u, "int64")
    I[2] = T.cast(T.cast(n, "uint8"), "int64")
    I[3] = T.cast(T.cast(u, "int16"), "int64")
    I[4] = T.cast(x, "int64")
    I[5] = T.cast(T.cast(x, "uint32"), "int64")
    I[6] = T.cast(n > 0, "int64")
    I[7] = T.cast(T.reinterpret("int32", x), "int64")
    h: T.float16 = T.cast(x, "float16")
    b: T.bfloat16 = T.cast(x, "bfloat16")
    d: T.float64 = T.cast(x, "float64")
    F[0] = T.cast(h, "float32")
    F[1] = T.cast(b, "float32")
    F[2] = T.cast(d * T.float64(2.0), "float32")
    F[3] = T.cast(n, "float32")
    F[4] = T.cast(u, "float32")
    F[5] = T.reinterpret("float32", u)
    F[6] = T.cast(T.cast(h, "int32"), "float32")
    F[7] = T.cast(x != T.float32(0.0), "float32")
