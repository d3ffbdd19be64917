# A float16 .xor TMA reduction: the bitwise and inc/dec reductions take
# integer formats (and/or/xor are .b32/.b64 operations).
from tvm_tirx.script import tirx as T

@T.function
def red(A: T.Tensor((64,), "float16", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.alloc_shared((64,), "float16", align=128)
    if T.cuda.lane_id() == 0:
        T.cuda.tile.apply(T.ptx["cp.reduce.async.bulk.tensor.1d.global.shared::cta.xor.tile.bulk_group"], A, t, box=(64,), coords=(0,))
