# In a 1-D block of 64 threads tx is warp * 32 + lane: a cta-scope call over a layout on tx (32@tx for the warp axis, 1@tx for the lane) compiles.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    R = T.alloc_local((2, 32, 1), "float32", layout=T.TileLayout(T.S[(2, 32, 1):(32@T.Axis.tx, 1@T.Axis.tx, 1)]))
    T.cuda.tile.apply(T.ptx["mov.f32"], R, T.float32(0.0), scope="cta")
