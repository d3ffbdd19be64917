# One variable past tests/errors/E6030-index-through-15-variables.py:
# the check for variables a raw PTX call writes gives up 32 levels into
# the declarations and takes the index as possibly written, so the
# overrun (S[a16] is tid, past S's 32 elements for tid >= 32) is
# accepted, like any index a raw PTX call may write (docs/language.md).
from tvm_tirx.script import tirx as T

@T.function
def chain(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    S = T.alloc_shared((32,), "float32", layout="default")
    a0 = T.cuda.thread_idx("x")
    a1 = a0 + 0
    a2 = a1 + 0
    a3 = a2 + 0
    a4 = a3 + 0
    a5 = a4 + 0
    a6 = a5 + 0
    a7 = a6 + 0
    a8 = a7 + 0
    a9 = a8 + 0
    a10 = a9 + 0
    a11 = a10 + 0
    a12 = a11 + 0
    a13 = a12 + 0
    a14 = a13 + 0
    a15 = a14 + 0
    a16 = a15 + 0
    S[a16] = A[a0]
