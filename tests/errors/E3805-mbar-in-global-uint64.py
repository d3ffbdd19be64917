# The mbarrier of cp.async.bulk.shared::cluster is a .shared::cluster
# operand (PTX ISA): a uint64 word of a global tensor is no barrier, even
# though it has the barrier's width.
from tvm_tirx.script import tirx as T

@T.function
def k(G: T.Tensor((8, 128), "float16", align=16), M: T.Tensor((1,), "uint64", align=8)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=1, cluster=2))
    src = T.alloc_shared((8, 128), "float16", layout=T.TileLayout(T.S[(8, 128):(256, 1)]), align=16)
    dst = T.alloc_shared((8, 128), "float16", layout=T.TileLayout(T.S[(8, 128):(256, 1)]), align=16)
    T.cuda.tile.apply(T.ptx["cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"], dst, src, chunk_bytes=256, mbar=M.ptr_to([0]), remote_cta_id=1)
