# args: --target sm_100a
# tcgen05.cp.4x256b of a 4-row region whose allocation (4 rows of 32
# bytes) does not back the descriptor's 8-row organization (rows 4..7 at
# bytes 64..127 plus the LDO chunk)
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    S = T.alloc_shared((4, 8), "uint32", layout=T.TileLayout(T.S[(4, 2, 4):(4, 16, 1)]), align=128)
    M = T.decl_buffer((128, 512), "uint32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Dv = M.view(4, 8, layout=T.TileLayout(T.S[(4, 8):(32@T.Axis.TLane, 1@T.Axis.TCol)]))
    T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::1.4x256b"], Dv, S)
