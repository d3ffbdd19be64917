# a zero-stride view repeats one shared row 8 times: as a bulk-copy
# destination every repeat would land on the same 256 bytes
from tvm_tirx.script import tirx as T

@T.function
def k(G: T.Tensor((8, 128), "float16", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=1, cluster=2))
    src = T.alloc_shared((8, 128), "float16", align=16)
    dst = T.alloc_shared((8, 128), "float16", align=16)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    bc = dst.view(8, 128, layout=T.TileLayout(T.S[(8, 128):(0, 1)]))
    T.cuda.tile.apply(T.ptx["cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"], bc, src, chunk_bytes=256, mbar=mbar.ptr_to([0]), remote_cta_id=1)
