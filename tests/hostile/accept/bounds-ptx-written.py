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
    # a guard against such a variable bounds nothing the prover can use
    # (x may be anything the mov wrote; mutation survivor bounds.c:536):
    # without it i reaches 64 and S[i] overruns, so the access is
    # unprovable, not E6030
    for i in range(65):
        if i < x:
            S[i] = A[i % 32]
