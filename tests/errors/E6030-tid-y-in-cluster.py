# In a cluster launch, threadIdx.y of a (32, 4) block is still a thread
# id, 0..3, not the CTA's rank in the cluster (0..1 along y here): S[tid.y
# + 2] is past the end of S for tid.y = 2 and 3 (issue 19, mutation
# survivor env.c:568, seed 12: the mutant gave every builtin with one
# axis argument the cluster rank's symbol and accepted).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((4,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(2, 2), block=(32, 4), cluster=(2, 2)))
    S = T.alloc_shared((4,), "float32", layout="default")
    S[T.cuda.thread_idx("y") + 2] = A[0]
