# row starts at the thread's row and moves down by one per iteration: it
# is no longer a variable that only grows, so row >= 0 does not follow
# from its start (thread 0 of block 0 reads row -1 on its second pass).
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def vcopy(A: T.Tensor((n, 4), "float32", align=16), B: T.Tensor((n, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=4, block=128))
    row = T.cuda.block_idx("x") * 128 + T.cuda.thread_idx("x")
    x = T.alloc_local((4,), "float32", layout="default")
    while row < n:
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[row, :])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[row, :], x)
        row = row - 1
