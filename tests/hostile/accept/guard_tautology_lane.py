from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, TileLayout

@T.function
def k(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    if lane < 32:
        A[lane] = T.float32(1.0)
