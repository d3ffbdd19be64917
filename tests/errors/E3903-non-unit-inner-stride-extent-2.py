# An innermost axis of extent 2 is still an axis: a layout that gives it
# stride 64 is no dense innermost axis, so TMA refuses it as for wider
# extents (only an extent-1 axis has no stride to judge).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64, 2), "float64", align=16, layout=T.TileLayout(T.S[(64, 2):(1, 64)])), M: T.TensorMap()):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((16, 2), "float64", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"], s, A, box=(16, 2), coords=(0, 0), mbar=mbar.ptr_to([0]))
