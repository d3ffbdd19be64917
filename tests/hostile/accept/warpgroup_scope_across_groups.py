# Warps 3 and 4 of a 256-thread block are warp 3 of warpgroup 0 and
# warp 0 of warpgroup 1: their warp-in-group ids are 3 and 0, not the
# range 3..4, so the warpgroup-scope ldmatrix (each warp loads its own
# two matrices) takes R's warp axis of 4 whole (issue 19, mutation
# survivor common.c:240: the mutant kept the range 3..4, an id the
# hardware never has, and refused R's shape, E3115).
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg


@T.function
def k():
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=256))
    warp = T.cuda.warp_id()
    S = T.alloc_shared((4, 2, 2, 8, 4), "uint32", align=16)
    R = T.alloc_local((4, 2, 2, 8, 4), "uint32", layout=T.TileLayout(T.S[(4, 2, 2, 8, 4):(1@wid_in_wg, 2, 1, 4@laneid, 1@laneid)]))
    if warp >= 3 and warp < 5:
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"], R, S, scope="warpgroup")
