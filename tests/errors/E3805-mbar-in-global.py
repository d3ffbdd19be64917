from tvm_tirx.script import tirx as T

@T.function
def k(G: T.Tensor((8, 128), "float16", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=1, cluster=2))
    src = T.alloc_shared((8, 128), "float16", layout=T.TileLayout(T.S[(8, 128):(256, 1)]), align=16)
    dst = T.alloc_shared((8, 128), "float16", layout=T.TileLayout(T.S[(8, 128):(256, 1)]), align=16)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    word = T.alloc_shared((2,), "uint32", align=8)
    T.cuda.tile.apply(T.ptx["cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"], dst, src, chunk_bytes=256, mbar=G.ptr_to([0, 0]), remote_cta_id=1)
