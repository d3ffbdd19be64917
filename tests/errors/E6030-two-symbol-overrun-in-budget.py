# The other side of tests/hostile/accept/bounds_enum_budget.py: 32 lanes
# x 16 warps x 512 iterations are 2^18 valuations, within the exhaustive
# search's budget, so a counterexample that needs the thread and the
# iteration to move together is found: tid == 3 * i + 5 with tid >= 500
# (S has 500 elements) holds for i = 165..168 (tid = 500, 503, 506,
# 509).  The prover's local search alone misses it (checked with the
# budget set to 1: accepted).
from tvm_tirx.script import tirx as T

@T.function
def in_budget(A: T.Tensor((512,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=512))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((500,), "float32", layout="default")
    for i in range(512):
        if tid == 3 * i + 5:
            S[tid] = A[i]
