# A whole tensor whose inner extent n is a runtime size has no static operand
# shape: E3131 (use a region with static extents, A.sub[...]).
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def k(A: T.Tensor((4, n), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    x = T.alloc_local((4,), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A)
