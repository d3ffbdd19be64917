# A guard that narrows no thread id (`if n > 3:`) leaves the lane the
# symbol it was: after it, the variable `lane` (read before) and a new
# T.cuda.lane_id() are one quantity, so S[lane + lane_id()] is 2 * lane,
# past the end of S for lane 16 (issue 19, mutation survivor
# env.c:375, seed 12: the mutant made fresh lane and warp symbols at
# the end of every guard that left the lower lane bound alone; two lane
# symbols in one index are not independent, so the prover gave up and
# accepted).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32,), "float32"), n: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    S = T.alloc_shared((32,), "float32", layout="default")
    if n > 3:
        A[0] = T.float32(0.0)
    S[lane + T.cuda.lane_id()] = A[lane]
