# A float32 .min TMA reduction: floating-point min/max reductions take
# float16 or bfloat16 only (the H200 stopped this one with an illegal
# instruction in the emulator differential).
from tvm_tirx.script import tirx as T

@T.function
def red(A: T.Tensor((10, 24), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.alloc_shared((2, 16), "float32", align=128)
    if T.cuda.lane_id() == 0:
        T.cuda.tile.apply(T.ptx["cp.reduce.async.bulk.tensor.2d.global.shared::cta.min.tile.bulk_group"], A, t, box=(2, 16), coords=(8, 0))
