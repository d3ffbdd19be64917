# A guard keeps a quotient index in bounds (issue 19, mutation survivor
# bounds.c:259, seed 15): i runs to 63 and S has 128 elements, so
# S[i // 2 + 100] overruns for i >= 56, which `i < 40` excludes.  No
# fact mentions the quotient, so the prover cannot show it and the
# counterexample search runs; every valuation it may report must keep
# the guard, so it finds none and accepts.  The mutant dropped a fact
# that evaluates below 0 and reported i = 56 as E6030.
from tvm_tirx.script import tirx as T

@T.function
def guard_quotient(A: T.Tensor((128,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((128,), "float32", layout="default")
    for i in range(64):
        if i < 40:
            S[i // 2 + 100] = A[i]
