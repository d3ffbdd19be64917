# TIRx surface (issue 22): an f-string building a T.ptx spelling, folded
# at compile time; T.constexpr; a conditional expression; @T.function(
# private=True).  B[i] = A[i] + 2 + 1 (tests/suites/tirx_surface.sh).
# expect: add.s32=2
from tvm_tirx.script import tirx as T

OP = "add"
TY = "s32"
SHIFT = 2


@T.function(private=True)
def surface_fstring(A: T.Tensor((32,), "int32"), B: T.Tensor((32,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tx = T.cuda.thread_idx("x")
    x = A[tx]
    T.ptx[f"{OP}.{TY}"](B[tx], x, SHIFT if T.constexpr(SHIFT > 0) else 0)
    if T.constexpr(TY == "s32"):
        B[tx] = B[tx] + 1
    else:
        B[tx] = B[tx] - 1
