# args: --target sm_100a
# A packed FP4 TMA load (format float4_e2m1fn, 16U4_ALIGN16B) lands 4-bit
# elements: a shared image of 6-bit float6_e3m2fn elements cannot hold it.
from tvm_tirx.script import tirx as T

@T.function
def fp4_load(A: T.Tensor((64, 128), "float4_e2m1fn", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((8, 256), "float6_e3m2fn", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
        s, A, box=(8, 128), coords=(0, 0), mbar=mbar.ptr_to([0]), format="float4_e2m1fn")
