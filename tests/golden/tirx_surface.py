# TIRx loop and binding spellings (docs/language.md "Statements"): x: T.let,
# T.serial(..., step=, unroll=), T.vectorized.  tests/suites/emu.sh checks
# A against an awk computation of the same loops.
from tvm_tirx.script import tirx as T

@T.function
def surf(A: T.Tensor((64,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=4))
    tid = T.cuda.thread_idx("x")
    base: T.let = tid * 16
    for i in T.serial(0, 8, step=2, unroll=True):
        A[base + i] = i
    for i in T.vectorized(4):
        A[base + 8 + i] = 100 + i
    for i in T.serial(12, 16, unroll=2):
        A[base + i] = -i
    for i in T.serial(1, 8, step=2):
        A[base + i] = base + i
