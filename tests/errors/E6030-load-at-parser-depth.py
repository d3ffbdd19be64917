# A load nested 99 expression levels deep in its statement, the deepest
# the parser takes (one more is E1009): A[t + 1] is past the end of A for
# t = 127.  The walk that finds a statement's loads used to stop past 64
# levels, so this overrun was accepted; it now follows them past the
# deepest tree any front end admits (hostile_cli's
# json_depth_980_load_checked: 980 levels of IR JSON) (issue 19,
# mutation round 7).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((128,), "int32"), B: T.Tensor((128,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    t = T.cuda.thread_idx("x")
    B[t] = t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (t + (A[t + 1]))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
