# A thread id and the lane together in one index (issue 19, mutation
# survivor bounds.c:232, seed 16): in a 32 x 2 block the lane is
# (32 tid.y + tid.x) % 32 = tid.x, so tid.x - lane is 0 and
# S[tid - lane] reads S[0] of one element.  Its interval (-31..31) does
# not show that, and the refutation table would treat tid.x and lane as
# independent, so it gives up when tid.x meets the lane or the warp: no
# E6031.  The mutant gave up only when tid.x met both, and reported
# lane=1, tid.x=0 (index -1).  (A 1-D block writes tid.x as 32 warp +
# lane, so the two never meet there.)
from tvm_tirx.script import tirx as T

@T.function
def tid_minus_lane(A: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=(32, 2)))
    tid = T.cuda.thread_idx("x")
    lane = T.cuda.lane_id()
    S = T.alloc_shared((1,), "float32", layout="default")
    A[tid] = S[tid - lane]
