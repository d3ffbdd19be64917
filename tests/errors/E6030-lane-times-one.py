# A product by the constant 1 is the other factor itself: lane * 1 keeps
# the lane's symbol, an exact one (every lane 0..31 runs), so S[lane * 1]
# is past the end of S for lane 16 (issue 19, mutation survivor
# env.c:503: the mutant sent `lane * 1` to the product table, which
# recorded the product as the lane symbol's expression; the prover then
# took the lane for a dependent value and accepted).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    S = T.alloc_shared((16,), "float32", layout="default")
    S[lane * 1] = A[lane]
