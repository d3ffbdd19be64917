# The four words of the vector run down column 0 of a (4, n + 1) tensor:
# word a is at element (1 + a) * (n + 1), not at word 0 + a (PTX
# ld.global.v4 reads four consecutive 32-bit words).
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def k(A: T.Tensor((5, n + 1), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    R = T.alloc_local((4,), "uint32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], R, A.sub[1:5, 0])
