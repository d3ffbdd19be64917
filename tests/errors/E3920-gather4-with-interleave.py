# args: --target sm_100a
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64, 64), "float32", align=16), M: T.TensorMap()):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((4, 32), "float32", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes"], s, M, box=(1, 32), coords=(0, 0), gather4=(0, 1, 2, 3), interleave=1, mbar=mbar.ptr_to([0]))
