# A[3, :] keeps axis 0 (shape (1, 4)), as in TIRx: it does not match a
# (4,) register tile; A.sub[3, :] (shape (4,)) would.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((128, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    x = T.alloc_local((4,), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A[3, :])
