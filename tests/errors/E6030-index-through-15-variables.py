# An index named through 15 variables (a15 = a14 + 0, ..., a0 = tid) is
# still tid: S[a15] is past the end of S for tid >= 32.  The check for
# variables a raw PTX call writes follows declarations 32 levels deep
# (two per `a_i = a_(i-1) + 0`), and this chain is exactly within it;
# tests/hostile/accept/bounds_index_through_16_variables.py is one past
# (issue 19, mutation survivor bounds.c:694, seed 12: the mutant stopped
# one level early, took the index as PTX-written and accepted).
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
    S[a15] = A[a0]
