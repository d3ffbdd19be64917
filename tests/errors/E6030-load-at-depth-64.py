# A load 64 expression levels deep in its statement is still checked:
# A[tid + 1] is past the end of A for tid = 127.  The walk that finds
# the loads of a statement stops past 64 levels (a load deeper than that
# is not checked, see docs/language.md), and this one is exactly at the
# limit; tests/hostile/accept/bounds_load_at_depth_65.py is one past
# (issue 19, mutation survivor bounds.c:443, seed 14: the mutant stopped
# one level early and accepted).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((128,), "int32"), B: T.Tensor((128,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    t = T.cuda.thread_idx("x")
    # 8 levels a line, 8 lines: the load is at depth 64
    B[t] = (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        t + (t + (t + (t + (t + (t + (t + (t + (
        A[t + 1])))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
