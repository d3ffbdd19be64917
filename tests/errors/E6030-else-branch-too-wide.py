# The else branch of a guard runs where the condition fails, and the
# prover uses the negated condition: threads 28 to 127 skip the guard
# `tid < 28`, and threads 78 to 127 store S[tid + 50] past the 128
# elements of S (issue 19, mutation survivor bounds.c:529: the mutant
# did not recognise a negated comparison as captured, so it took the
# branch for one it could not reason about and checked nothing in it).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((128,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((128,), "float32", layout="default")
    if tid < 28:
        A[tid] = T.float32(0.0)
    else:
        S[tid + 50] = A[tid]
