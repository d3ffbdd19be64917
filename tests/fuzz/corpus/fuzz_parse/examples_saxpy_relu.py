# saxpy_relu.py - Y[i] = max(a * X[i] + Y[i], 0) for i < n, a grid-stride
# loop with plain element loads and stores: the smallest whole kernel,
# showing symbolic sizes, a scalar parameter, while, if/else and
# assignment.  Afterwards Y[i] == relu(a * X[i] + Y_in[i]).
#
# Source: the G3 language basics ("add_one") of reference/tirx_surface.md
# section 1.2, extended with control flow; no tile call.
# Target: any (sm_80 and later).
from tvm_tirx.script import tirx as T

n = T.dynamic("n")
GRID = 132
BLOCK = 256

@T.function
def saxpy_relu(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32"), a: T.float32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=GRID, block=BLOCK))
    i = T.cuda.block_idx("x") * BLOCK + T.cuda.thread_idx("x")
    while i < n:
        v = a * X[i] + Y[i]
        if v > 0.0:
            Y[i] = v
        else:
            Y[i] = T.float32(0.0)
        i = i + GRID * BLOCK
