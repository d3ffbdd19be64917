# args: -D BLOCK='wide'
# An override must have the type of the value it replaces: BLOCK is an
# int, the override a string.
from tvm_tirx.script import tirx as T

BLOCK = 128


@T.function
def k(A: T.Tensor((1024,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=8, block=BLOCK))
    A[T.cuda.thread_idx("x")] = T.float32(0.0)
