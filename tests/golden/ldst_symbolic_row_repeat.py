# target: sm_90a
# Two rows of a tensor with a runtime row stride n, one ld/st.global.v4
# per row: the rows differ by n elements, a symbolic distance, so each
# repeat's address is computed from its own row (r for the first, r + 1
# for the second: `add.s32 %r14, %r3, 1` before the second load,
# `add.s32 %r15, %r3, 1` before the second store, each times n plus c,
# times 4 bytes), never repeat 0's address plus a constant.  Checked by
# hand in the blessed PTX.
from tvm_tirx.script import tirx as T

m = T.dynamic("m")
n = T.dynamic("n")

@T.function
def copy2d(A: T.Tensor((m, n), "float32", align=16), B: T.Tensor((m, n), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(T.ceildiv(n, 128), m // 2), block=32))
    r = T.cuda.block_idx("y") * 2
    c = (T.cuda.block_idx("x") * 32 + T.cuda.thread_idx("x")) * 4
    x = T.alloc_local((2, 4), "float32", layout="default")
    if c + 4 <= n and r + 2 <= m:
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[r:r + 2, c:c + 4])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[r:r + 2, c:c + 4], x)
