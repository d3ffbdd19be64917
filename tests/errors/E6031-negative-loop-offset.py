# A loop from 0 that stores S[i - 2]: i = 0 and 1 store before S.  (No
# thread id involved: only the loop range.)
from tvm_tirx.script import tirx as T

@T.function
def back(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((64,), "float32", layout="default")
    for i in range(64):
        S[i - 2] = A[i]
