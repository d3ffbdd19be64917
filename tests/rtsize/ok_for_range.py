# A loop whose range ends at a runtime size: i < n inside.
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def vcopy(A: T.Tensor((n, 4), "float32", align=16), B: T.Tensor((n, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    x = T.alloc_local((4,), "float32", layout="default")
    for i in range(n):
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[i, :])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[i, :], x)
