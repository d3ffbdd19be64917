# args: --target sm_100a
# tcgen05.cp.128x256b copies 128 rows of 8 words: a source of 64 rows
# is refused, as a source of the wrong word count is (issue 19,
# mutation survivor tcgen05_cp.c:72: the mutant checked the row count
# only for an operand of rank below 2, and accepted this copy).
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    S = T.alloc_shared((64, 8), "uint32", layout=T.TileLayout(T.S[(8, 8, 2, 4):(64, 4, 32, 1)]), align=1024)
    M = T.decl_buffer((128, 512), "uint32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::1.128x256b"], M.view(128, 8, layout=T.TileLayout(T.S[(128, 8):(1@T.Axis.TLane, 1@T.Axis.TCol)])), S)
