# args: --target sm_100a
# D has two batches, A one: every operand's batch axes are D's
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((2, 128, 64), "bfloat16", scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(2, 128, 64):(8192, 64, 1)])), align=1024)
    B = T.alloc_shared((2, 128, 64), "bfloat16", scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(2, 128, 64):(8192, 64, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 1, 4, 128, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 1, 4, 128, 16):(8192, 8192, 16, 64, 1)])))
    Bv = B.view(2, 1, 4, 128, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(2, 1, 4, 128, 16):(8192, 8192, 16, 64, 1)])))
    Dv = D.view(2, 1, 1, 128, 128, layout=T.TileLayout(T.S[(2, 1, 1, 128, 128):(128@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::f16"], Dv, Av, Bv, instruction_shape=(128, 128, 16))
