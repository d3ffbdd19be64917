from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64, 256), "float4_e2m1fn", align=32), M: T.TensorMap()):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((8, 128), "uint8", align=128)
    T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"], A, s, box=(8, 128), coords=(0, 0))
