# A conjunction gives each of its facts: only "row < n" (the second
# operand of the and) bounds the access.
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def vcopy(A: T.Tensor((n, 4), "float32", align=16), B: T.Tensor((n, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 128), block=128))
    row = T.cuda.block_idx("x") * 128 + T.cuda.thread_idx("x")
    x = T.alloc_local((4,), "float32", layout="default")
    if row >= 0 and row < n:
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[row, :])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[row, :], x)
