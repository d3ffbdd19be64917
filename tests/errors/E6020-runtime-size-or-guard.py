# `row < n or tid < 1` does not bound row: thread 0 passes the guard
# through its second half whatever row is, so A.sub[row, :] may leave A.
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def vcopy(A: T.Tensor((n, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=4, block=128))
    tid = T.cuda.thread_idx("x")
    row = T.cuda.block_idx("x") * 128 + tid
    x = T.alloc_local((4,), "float32", layout="default")
    if row < n or tid < 1:
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[row, :])
