# args: --target sm_100a
# 32x128b.warpx4 writes four lane replicas, which the layout must state
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    S = T.alloc_shared((32, 4), "uint32", layout=T.TileLayout(T.S[(4, 8, 4):(32, 4, 1)]), align=1024)
    M = T.decl_buffer((128, 512), "uint32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Dv = M.view(32, 4, layout=T.TileLayout(T.S[(32, 4):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::1.32x128b.warpx4"], Dv, S)
