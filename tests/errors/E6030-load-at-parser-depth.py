# A load nested 99 expression levels deep in its statement, the deepest
# the parser takes (one more is E1009): A[t + 1] is past the end of A for
# t = 127.  The walk that finds a statement's loads used to stop past 64
# levels, so this overrun was accepted; it now follows them to the IR's
# depth budget (IR_MAX_DEPTH, 512; tests/errors/E9019-json-load-past-
# depth-budget.json is past it) (issue 19, mutation round 7).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((128,), "int32"), B: T.Tensor((128,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    t = T.cuda.thread_idx("x")
    B[t] = t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (A[t + 1]))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
