from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((2, 64, 8), "uint16", align=16), M: T.TensorMap()):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((1, 1, 8, 8), "uint16", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes"], s, A, box=(1, 1, 8), coords=(0, 0, 0), interleave=1, mbar=mbar.ptr_to([0]))
