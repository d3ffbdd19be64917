from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64, 128), "float16", align=16), M: T.TensorMap()):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((16, 64), "float16", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(T.ptx["cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"], A, s, box=(16, 64), coords=(0, 0), mbar=mbar.ptr_to([0]))
