# target: sm_100a
# TMA forms that need sm_100a: gather4 (box (1, width), image (4, width),
# PTX coordinates {col, row0..row3}), scatter4, and .cta_group::2.
from tvm_tirx.script import tirx as T

@T.function
def gather_scatter(A: T.Tensor((64, 32), "uint32", align=16), B: T.Tensor((64, 32), "uint32", align=16), row: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    shared = T.alloc_shared((4, 32), "uint32", layout="default", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes"],
        shared, A, box=(1,32), coords=(0,0),
        gather4=(row,row+3,row+7,row+11), mbar=mbar.ptr_to([0]),
    )
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group"],
        B, shared, box=(1,32), coords=(0,0), gather4=(1,2,5,9))

@T.function
def pair_load(A: T.Tensor((128, 64), "float16", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32, cluster=2))
    s = T.alloc_shared((32, 64), "float16", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2"],
        s, A, box=(32, 64), coords=(32, 0), mbar=mbar.ptr_to([0]))
