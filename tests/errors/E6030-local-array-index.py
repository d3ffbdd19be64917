# A register array of 4 indexed by lane % 8: lanes 4..7 overrun it.
from tvm_tirx.script import tirx as T

@T.function
def regs(A: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    x = T.alloc_local((4,), "float32", layout="default")
    lane = T.cuda.lane_id()
    x[lane % 8] = A[lane]
    A[lane] = x[0]
