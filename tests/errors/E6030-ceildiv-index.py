# T.ceildiv by a constant is exact for the bounds prover: for i = 7,
# ceildiv(7, 2) * 8 = 32 is one past the end of S (issue 19, mutation
# survivor env.c:556: the mutant left ceildiv opaque and accepted).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    S = T.alloc_shared((32,), "float32", layout="default")
    for i in range(8):
        S[T.ceildiv(i, 2) * 8] = A[i]
