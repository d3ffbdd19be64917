# a guard relating two variables (tid + k < 64) proves the row in bounds;
# neither variable's own range does
from tvm_tirx.script import tirx as T

@T.function
def shifted(A: T.Tensor((64, 4), "float32", align=16), B: T.Tensor((64, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    tid = T.cuda.thread_idx("x")
    x = T.alloc_local((4,), "float32", layout="default")
    for k in range(8):
        if tid + k < 64:
            T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[tid + k, :])
            T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[tid + k, :], x)
