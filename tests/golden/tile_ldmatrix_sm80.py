# target: sm_80
# ldmatrix on sm_80 (stmatrix needs sm_90): x2 .trans at warpgroup scope
# over warps' own regions, x4 with two repeats.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid, wid_in_wg


@T.function
def ldm80(out: T.Tensor((128, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    S = T.alloc_shared((4, 2, 2, 8, 4), "uint32", align=16)
    R = T.alloc_local((4, 2, 2, 8, 4), "uint32", layout=T.TileLayout(T.S[(4, 2, 2, 8, 4):(1@wid_in_wg, 2, 1, 4@laneid, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"], R, S, scope="warpgroup")
    Q = T.alloc_local((2, 4, 8, 4), "uint32", layout=T.TileLayout(T.S[(2, 4, 8, 4):(4, 1, 4@laneid, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], Q, S.view(2, 4, 8, 4, layout=T.TileLayout(T.S[(2, 4, 8, 4):(256, 32, 4, 1)])), scope="warp")
