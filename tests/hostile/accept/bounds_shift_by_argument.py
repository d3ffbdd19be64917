# A shift by a runtime amount is opaque to the bounds prover (issue 19,
# mutation survivor env.c:611: the mutant read `x << (k + c)` as
# `x << c` for a non-constant k).  Threads 0 and 1 store A[65 + ((tid -
# 2) << s)]: with s = 0 that is A[63] and A[64], one past the end, but
# with s = 1 it is A[61] and A[63], in bounds; the access depends on
# the argument, so it is unprovable and accepted, not E6030 "for every
# value of the arguments".
from tvm_tirx.script import tirx as T

@T.function
def shift_arg(A: T.Tensor((64,), "float32"), s: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    if tid < 2:
        A[65 + ((tid - 2) << s)] = T.float32(0.0)
