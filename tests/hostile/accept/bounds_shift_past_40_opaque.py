# A shift by more than 40 bits is opaque to the bounds prover (its
# coefficient would leave the range its linear forms keep exact), so
# the access is unprovable and accepted, the emulator's bounds check
# sees it at run time (issue 19, mutation survivor env.c:611: the mutant
# took shifts past 40 as products and reported E6030).
from tvm_tirx.script import tirx as T

@T.function
def sh(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cast(T.cuda.thread_idx("x"), "int64")
    A[tid << 41] = T.float32(1.0)
