# args: -D BLOK=64
# A constant override (-D, ptxtile.compile(constants=)) must name a
# module-level constant of the script; BLOK is a typo of BLOCK.
from tvm_tirx.script import tirx as T

BLOCK = 128


@T.function
def k(A: T.Tensor((1024,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=8, block=BLOCK))
    A[T.cuda.thread_idx("x")] = T.float32(0.0)
