# T.max(k, 0) bounds k from below only: a stepped k may be any int32 above
# 0, so the region is not provably in A.
from tvm_tirx.script import tirx as T


@T.function
def ring(A: T.Tensor((5, 4), "float32", align=16), n: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    x = T.alloc_local((4,), "float32", layout="default")
    k: T.int32 = 0
    for i in range(n):
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[T.max(k, 0), :])
        k = k + 1
