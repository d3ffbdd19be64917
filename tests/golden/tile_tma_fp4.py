# target: sm_100a
# packed FP4 TMA load (format float4_e2m1fn = 16U4_ALIGN16B) into a
# float4_e2m1fn shared image: box (8, 128), each 128-element row lands in
# 128 bytes (16 nibbles + 8 bytes padding per 16-byte block); two repeats
# along rows put the second image 1024 bytes further
from tvm_tirx.script import tirx as T

@T.function
def fp4_load(A: T.Tensor((64, 128), "float4_e2m1fn", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((2, 8, 256), "float4_e2m1fn", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
        s, A, box=(8, 128), coords=(0, 0), mbar=mbar.ptr_to([0]), format="float4_e2m1fn", coord_steps=((8, 0),))
