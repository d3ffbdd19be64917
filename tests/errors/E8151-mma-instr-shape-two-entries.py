# args: --target sm_100a
# instruction_shape has three entries (M, N, K)
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((128, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=1024)
    B = T.alloc_shared((256, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(256, 64):(64, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 4, 128, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 128, 16):(8192, 16, 64, 1)])))
    Bv = B.view(1, 4, 256, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 256, 16):(16384, 16, 64, 1)])))
    Dv = D.view(1, 1, 128, 256, layout=T.TileLayout(T.S[(1, 1, 128, 256):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::f16"], Dv, Av, Bv, instruction_shape=(128, 256))
