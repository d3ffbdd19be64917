# args: --target sm_100a
# 32x128b.warpx4 replicates to lanes 32 apart (one per warp), not 16
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    S = T.alloc_shared((128, 8), "uint32", layout=T.TileLayout(T.S[(16, 8, 2, 4):(64, 4, 32, 1)]), align=1024)
    M = T.decl_buffer((128, 512), "uint32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Dv = M.view(128, 8, layout=T.TileLayout(T.S[(128, 8):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    W = T.alloc_shared((32, 4), "uint32", layout=T.TileLayout(T.S[(4, 8, 4):(32, 4, 1)]), align=1024)
    T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::1.32x128b.warpx4"], M.view(32, 4, layout=T.TileLayout(T.S[(32, 4):(1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:16@T.Axis.TLane])), W)
