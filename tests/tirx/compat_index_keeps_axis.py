# X[3, :] keeps axis 0 with extent 1 (shape (1, 4)); X.sub[3, :] drops it.
# expect: ld.global.v4.b32=1, st.global.v4.b32=1
from tvm_tirx.script import tirx as T

@T.function
def compat_index_keeps_axis(A: T.Tensor((128, 4), "float32", align=16), B: T.Tensor((128, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    x = T.alloc_local((1, 4), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A[3, :])
    T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B[3, :], x)
