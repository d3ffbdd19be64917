from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64, 64), "float32", align=16, layout=T.TileLayout(T.S[(64, 64):(1, 64)])), M: T.TensorMap()):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((16, 32), "float32", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"], A, s, box=(16, 32), coords=(0, 0))
