from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64, 128), "float16", align=16), M: T.TensorMap()):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((16, 64), "float16", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"], s, M, box=(16, 64), coords=(0, 0))
