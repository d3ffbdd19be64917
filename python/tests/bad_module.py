"""A module whose second kernel has two errors (lines 15 and 16)."""
from ptxtile import tirx as T


@T.function
def fine(A: T.Tensor((4,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    A[0] = T.float32(1.0)


@T.function
def broken(A: T.Tensor((4,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    x = T.cuda.thread_idx("x")
    A[0] = foo
    A[1] = x + T.uint32(1)
