# A guard on the variable of a loop that is not exact (a runtime start
# with step 2: its values are b, b + 2, ..., not every value of its
# interval) says only that some iterations run the store, not which, so
# the variable is a dependent symbol and the prover gives up: the store
# below overruns S for tid >= 32 whenever b <= -2, but b is an argument
# and no iteration certainly has i < 0, so it is accepted, like a guard
# on a loaded value (issue 19, mutation survivor bounds.c:92: the mutant
# took the loop variable for an argument, kept `i < 0` only as "the code
# runs" and reported E6030).
from tvm_tirx.script import tirx as T

@T.function
def step_guard(A: T.Tensor((64,), "float32"), b: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((32,), "float32", layout="default")
    for i in range(b, 64, 2):
        if i < 0:
            S[tid] = A[tid]
