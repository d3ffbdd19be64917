# args: --target sm_100a
# a CTA pair needs clusters of an even size
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=3, block=128, cluster=(3, 1, 1)))
    A = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    B = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    Bv = B.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    Dv = D.view(1, 1, 64, 128, layout=T.TileLayout(T.S[(1, 1, 64, 2, 64):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 64@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::2.kind::f16"], Dv, Av, Bv, instruction_shape=(128, 128, 16))
