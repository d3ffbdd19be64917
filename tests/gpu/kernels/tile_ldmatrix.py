# tile_ldmatrix.py - ldmatrix .x1/.x2/.x4 and .x4.trans from shared rows
# with gaps and a non-constant row stride, into register tensors with
# permuted slots.  One warp.  G holds 512 random words copied to S; the
# shared view V (matrix, row, word) = (4, 8, 4) puts row j of matrix i at
# word 128*i + 64*(j // 4) + 12*(j % 4).  Outputs O[case, lane, slot]
# (the raw per-thread register storage, 4 slots):
#   case 0  x1 of matrix 2                 slot 0
#   case 1  x2 of matrices 1, 2            matrix m (0, 1) at slot 2 - m
#   case 2  x4                             matrix m at slot m
#   case 3  x4.trans                       matrix m at slot 2*(m%2) + m//2
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def tile_ldmatrix(G: T.Tensor((512,), "uint32", align=16),
                  O: T.Tensor((4, 32, 4), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    S = T.alloc_shared((512,), "uint32", align=16)
    for i in T.unroll(16):
        S[i * 32 + lane] = G[i * 32 + lane]
    T.cuda.cta_sync()
    V = S.view(4, 8, 4, layout=T.TileLayout(T.S[(4, 2, 4, 4):(128, 64, 12, 1)]))
    R1 = T.alloc_local((1, 8, 4), "uint32", layout=T.TileLayout(T.S[(1, 8, 4):(1, 4@laneid, 1@laneid)]))
    R2 = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(2, 2, 8, 4):(1, 2, 4@laneid, 1@laneid)]))
    R4 = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)]))
    Q4 = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(2, 2, 8, 4):(1, 2, 4@laneid, 1@laneid)]))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x1.shared.b16"], R1, V[2:3, :, :], scope="warp")
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x2.shared.b16"], R2[1:3, :, :], V[1:3, :, :], scope="warp")
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R4, V, scope="warp")
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"], Q4, V, scope="warp")
    P1 = R1.view(1)
    P2 = R2.view(4)
    P4 = R4.view(4)
    PQ = Q4.view(4)
    O[0, lane, 0] = P1[0]
    for j in T.unroll(4):
        O[1, lane, j] = P2[j]
        O[2, lane, j] = P4[j]
        O[3, lane, j] = PQ[j]
