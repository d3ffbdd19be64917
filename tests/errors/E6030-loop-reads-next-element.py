# A loop over the whole axis that reads element i + 1 (a neighbour
# difference without the last-element stop): i = 63 reads B[64].
from tvm_tirx.script import tirx as T

@T.function
def diff(A: T.Tensor((32, 64), "float32"), B: T.Tensor((32, 64), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    r = T.cuda.thread_idx("x")
    for i in range(64):
        A[r, i] = B[r, i + 1] - B[r, i]
