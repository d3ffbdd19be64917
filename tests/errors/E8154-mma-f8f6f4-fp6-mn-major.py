# args: --target sm_100a
# kind::f8f6f4 transposes 8-bit formats only: a 6-bit A (float6_e2m3fn) must be K-major
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((128, 128), "uint8", layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(128, 128):(128, 1)])), align=1024)
    B = T.alloc_shared((256, 128), "uint8", layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(256, 128):(128, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 4, 128, 32, layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(1, 4, 128, 32):(16384, 32, 128, 1)])))
    Bv = B.view(1, 4, 256, 32, layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(1, 4, 256, 32):(32768, 32, 128, 1)])))
    Dv = D.view(1, 1, 128, 256, layout=T.TileLayout(T.S[(1, 1, 128, 256):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::f8f6f4"], Dv, Av, Bv, instruction_shape=(128, 256, 32), a_format="float6_e2m3fn", b_format="float6_e2m3fn", a_major="mn")
