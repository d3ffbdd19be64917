# TVM rejects a float literal beyond the dtype's largest finite value
# (FloatImm); -1e39 must not silently become -inf in float32.
from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    x = T.float32(-1e39)
    y = T.float16(70000)
    A[0] = 1e39
    A[1] = x + y
