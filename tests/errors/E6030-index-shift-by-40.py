# A shift by a constant of at most 40 bits is a product the bounds prover
# keeps linear: tid << 40 is past A's end for every thread but 0
# (issue 19; tests/hostile/accept/bounds_shift_past_40_opaque.py is the
# other side of the limit).
from tvm_tirx.script import tirx as T

@T.function
def sh(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cast(T.cuda.thread_idx("x"), "int64")
    A[tid << 40] = T.float32(1.0)
