# args: --max-ptx-bytes 4k
from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    for i in T.unroll(64):
        for j in T.unroll(64):
            for l in T.unroll(64):
                A[0] = A[1] + T.float32(1.0)
