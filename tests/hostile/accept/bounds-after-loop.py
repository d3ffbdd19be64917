# After a loop its variable, and a name declared from it in the body,
# hold the last value only (q = 63 here), not every value of the range:
# A[q - 1] is in bounds and must be accepted, although q - 1 is negative
# on the first iteration (i = 0).
from tvm_tirx.script import tirx as T

@T.function
def after_loop(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((64,), "float32", layout="default")
    for i in range(64):
        q = i
        S[i] = A[i]
    A[q - 1] = S[0]
    A[i] = S[1]
