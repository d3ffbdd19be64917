"""A Python module holding kernels next to ordinary Python, as a user
writes one: plain imports, a helper function, module code the script
language would reject, and a __main__ block.  Imported by test_compile.py
with no GPU and no torch."""
import os

from ptxtile import tirx as T
from ptxtile.axis import laneid
from ptxtile.layout import S, TileLayout

ROWS = 128
n = T.dynamic("n")
FRAG = TileLayout(S[(32, 4):(1@laneid, 1)])
NOT_A_CONSTANT = os.getcwd()          # dropped: reads os
print_later = []                      # kept: a literal


def helper(x):                        # dropped: not a @T.function
    return x + 1


@T.function
def twice(x: T.float32) -> T.float32:
    return x * 2.0


@T.function
def scale2(A: T.Tensor((ROWS, 4), "float32", align=16),
           B: T.Tensor((ROWS, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=ROWS))
    x = T.alloc_local((4,), "float32", layout="default")
    y = T.alloc_local((4,), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[T.cuda.thread_idx("x"), :])
    T.cuda.tile.ewise(twice, y, x)
    T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[T.cuda.thread_idx("x"), :], y)


@T.function
def add_one(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32"), k: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 128), block=128))
    i = T.cuda.block_idx("x") * 128 + T.cuda.thread_idx("x")
    if i < n:
        Y[i] = X[i] + T.cast(k, "float32")


if __name__ == "__main__":
    print(helper(1))
