# target: sm_90a
# TMA coordinates are .s32 operands: an int64 (or uint32) coordinate
# expression is converted to int32 first, so ptxas 13.0 accepts the
# issue (a 64-bit register there would be refused).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((256, 128), "float16", align=16), bx: T.int64, by: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((64, 64), "float16", align=1024)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
        s, A, box=(64, 64), coords=(bx, by),
        mbar=mbar.ptr_to([0]))
