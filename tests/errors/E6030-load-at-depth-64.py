# A load 64 expression levels deep in its statement is checked: A[t + 1]
# is past the end of A for t = 127.  The walk that finds a statement's
# loads once stopped past 64 levels; it now follows them past the
# deepest tree a front end admits (E6030-load-at-parser-depth.py is the
# deepest a script reaches) (issue 19, mutation survivor bounds.c:443,
# seed 14: a mutant that stopped one level early accepted this).
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
