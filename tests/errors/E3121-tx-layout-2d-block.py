# In a (32, 2) block threadIdx.x is the lane alone (warp 1 is y = 1), so warp * 32 + lane is no tx: a layout over tx is not determined by the cta scope's warp and lane ids.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=(32, 2)))
    R = T.alloc_local((2, 32, 1), "float32", layout=T.TileLayout(T.S[(2, 32, 1):(32@T.Axis.tx, 1@T.Axis.tx, 1)]))
    T.cuda.tile.apply(T.ptx["mov.f32"], R, T.float32(0.0), scope="cta")
