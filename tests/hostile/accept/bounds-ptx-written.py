# A declared variable that a raw PTX call overwrites no longer has its
# declaration's value: x starts at 100 (which would overrun S) but the
# mov makes it the lane id, so S[x] is in bounds and must be accepted.
from tvm_tirx.script import tirx as T

@T.function
def ptx_written(A: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((64,), "float32", layout="default")
    x: T.int32 = 100
    T.ptx["mov.b32"](x, T.cuda.lane_id())
    S[x] = A[x]
    if x < 100:
        A[x] = S[x]
