# A region of a named view of a tensor parameter: the view V reads A
# transposed, so V[0:32, 0:32] is no rectangular region of A in A's
# order, and the tensor map (which describes A) cannot be encoded from
# it (issue 19, mutation site tma.c:259:63 beside seed 13's survivor
# :27: the mutant took the region's base buffer V for A itself and
# encoded the map as A[0:32, 0:32], the wrong elements).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64, 64), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    V = A.view(64, 64, layout=T.TileLayout(T.S[(64, 64):(1, 64)]))
    s = T.alloc_shared((16, 32), "float32", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"], s, V[0:32, 0:32], box=(16, 32), coords=(0, 0), mbar=mbar.ptr_to([0]))
