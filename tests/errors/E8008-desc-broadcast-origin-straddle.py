# args: --target sm_100a
# A tcgen05.cp source whose loop-dependent origin row i + 7 (i in 0..1)
# lies in a stride-0 shard of a broadcast view: the rows' offset is
# 64 * ((i + 7) // 8), symbolic at the origin (0 or 64) and constant at
# row 1 (64), so element (1, 0) is 64 - 64 * ((i + 7) // 8) elements
# from the origin, not a constant; the descriptor walk refuses it there.
# tests/suites/dx.sh checks that the message names element (1, 0)
# (issue 19, mutation survivor descriptors.c:354, seed 14: the mutant
# took the constant form of row 1, with no term, as sharing the
# origin's terms, read its offset as 64 and only refused row 8).
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    S = T.alloc_shared((136, 8), "uint32", layout=T.TileLayout(T.S[(17, 8, 2, 4):(64, 4, 32, 1)]), align=1024)
    M = T.decl_buffer((128, 512), "uint32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Dv = M.view(128, 8, layout=T.TileLayout(T.S[(128, 8):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Sv = S.view(136, 8, layout=T.TileLayout(T.S[(17, 8, 2, 4):(64, 0, 32, 1)]))
    for i in range(2):
        T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::1.128x256b"], Dv, Sv[i + 7:i + 135, :])
