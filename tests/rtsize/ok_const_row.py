# Row 1 of (4, n) tensors, at a constant coordinate: the row starts n
# elements in, so the 16-byte vectors are aligned when n % 4 == 0 -
# assumed and recorded in the metadata like a varying row (issue 19,
# mutation survivor symshape.c:259: only a coordinate that is always 0
# needs no stride assumption).
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def row1(A: T.Tensor((4, n), "float32", align=16), B: T.Tensor((4, n), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 128), block=32))
    c = (T.cuda.block_idx("x") * 32 + T.cuda.thread_idx("x")) * 4
    x = T.alloc_local((4,), "float32", layout="default")
    if c + 4 <= n:
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[1, c:c + 4])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[1, c:c + 4], x)
