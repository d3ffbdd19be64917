# The else of a disjunction has the negation of each operand:
# not (row < 0 or row >= n) gives row >= 0 and row < n.
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def vcopy(A: T.Tensor((n, 4), "float32", align=16), B: T.Tensor((n, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 128), block=128))
    row = T.cuda.block_idx("x") * 128 + T.cuda.thread_idx("x")
    x = T.alloc_local((4,), "float32", layout="default")
    if row < 0 or row >= n:
        x[0] = T.float32(0.0)
    else:
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[row, :])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[row, :], x)
