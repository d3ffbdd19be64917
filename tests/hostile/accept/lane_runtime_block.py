# The lane id in a block of a runtime size (issue 19, mutation survivor
# env.c:107: with no static thread count the lane range stays 0..31;
# the mutant took the unknown count 0 as "fewer than 32 threads", gave
# the lane the empty range 0..-1 and stopped on an internal error).
from tvm_tirx.script import tirx as T

nt = T.dynamic("nt")

@T.function
def rb(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=nt))
    S = T.alloc_shared((32,), "float32", layout="default")
    lane = T.cuda.lane_id()
    S[lane] = A[lane]
    T.cuda.cta_sync()
    A[lane + 32] = S[31 - lane]
