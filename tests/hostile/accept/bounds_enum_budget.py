# The exhaustive counterexample search has a budget of 2^18 valuations
# (compile time); past it only the prover's local search runs, which
# moves one symbol at a time and misses counterexamples that need
# several to move together.  Here the store does overrun (tid == 3 * i
# + 5 with tid >= 1000: i = 332..339, e.g. lane 9 of warp 31 at i = 332
# writes S[1001]), but 32 lanes x 32 warps x 512 iterations are 2^19
# valuations and the local search stalls, so the access is accepted
# (docs/language.md, what is not proved).  This pins the budget: issue
# 19, mutation survivor bounds.c:283, whose mutant bounded each symbol's
# count but not their product, searched all 2^19 and reported E6030.
# If the search gets stronger, this becomes an E6030 test.
from tvm_tirx.script import tirx as T

@T.function
def budget(A: T.Tensor((1024,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1024))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((1000,), "float32", layout="default")
    for i in range(512):
        if tid == 3 * i + 5:
            S[tid] = A[i]
