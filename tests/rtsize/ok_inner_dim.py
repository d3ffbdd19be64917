# Symbolic sizes on both axes: the row stride is n, so the 16-byte
# vectors are aligned when n % 4 == 0 - assumed and recorded in the
# metadata ("assume"), checked at launch.
from tvm_tirx.script import tirx as T

m = T.dynamic("m")
n = T.dynamic("n")

@T.function
def copy2d(A: T.Tensor((m, n), "float32", align=16), B: T.Tensor((m, n), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(T.ceildiv(n, 128), m), block=32))
    r = T.cuda.block_idx("y")
    c = (T.cuda.block_idx("x") * 32 + T.cuda.thread_idx("x")) * 4
    x = T.alloc_local((4,), "float32", layout="default")
    if c + 4 <= n:
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[r, c:c + 4])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[r, c:c + 4], x)
