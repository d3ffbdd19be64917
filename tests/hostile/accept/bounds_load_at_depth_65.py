# One level past the limit of tests/errors/E6030-load-at-depth-64.py: a
# load 65 expression levels deep in its statement is not checked
# (docs/language.md, "Element accesses proved out of bounds"), so this
# overrun (A[t + 1] for t = 127) is accepted.  A limitation, pinned so
# that a change of the limit shows (issue 19, mutation round 7).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((128,), "int32"), B: T.Tensor((128,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    t = T.cuda.thread_idx("x")
    # 8 levels a line, 8 lines and one: the load is at depth 65
    B[t] = (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (A[t + 1]))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
