# tile_stmatrix.py - stmatrix .x4 and .x4.trans (and .x2) from register
# tensors with permuted slots into shared rows with gaps.  One warp.
# G[case, lane, slot] gives each lane's raw register storage; S starts as
# the sentinel 0x5A5A5A5A, receives the store, and is copied to O[case].
# The shared view V (4, 8, 4) puts row j of matrix i at word
# 128*i + 64*(j // 4) + 12*(j % 4); words outside the rows keep the
# sentinel.
#   case 0  x4        matrix m at slot m
#   case 1  x4.trans  matrix m at slot 2*(m%2) + m//2
#   case 2  x2 of V's matrices 1, 2 from slots 3, 1 (matrix m at 3 - 2m)
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def tile_stmatrix(G: T.Tensor((3, 32, 4), "uint32", align=16),
                  O: T.Tensor((3, 512), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    S = T.alloc_shared((512,), "uint32", align=16)
    V = S.view(4, 8, 4, layout=T.TileLayout(T.S[(4, 2, 4, 4):(128, 64, 12, 1)]))
    R = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)]))
    Q = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(2, 2, 8, 4):(1, 2, 4@laneid, 1@laneid)]))
    W = T.alloc_local((2, 8, 4), "uint32", layout=T.TileLayout(T.S[(2, 8, 4):(-2, 4@laneid, 1@laneid)] + 3))
    PR = R.view(4)
    PQ = Q.view(4)
    PW = W.view(4)
    for j in T.unroll(4):
        PR[j] = G[0, lane, j]
        PQ[j] = G[1, lane, j]
        PW[j] = G[2, lane, j]
    for c in T.unroll(3):
        for i in T.unroll(16):
            S[i * 32 + lane] = T.uint32(0x5A5A5A5A)
        T.cuda.cta_sync()
        if c == 0:
            T.cuda.tile.apply(T.ptx["stmatrix.sync.aligned.m8n8.x4.shared.b16"], V, R, scope="warp")
        elif c == 1:
            T.cuda.tile.apply(T.ptx["stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"], V, Q, scope="warp")
        else:
            T.cuda.tile.apply(T.ptx["stmatrix.sync.aligned.m8n8.x2.shared.b16"], V[1:3, :, :], W, scope="warp")
        T.cuda.cta_sync()
        for i in T.unroll(16):
            O[c, i * 32 + lane] = S[i * 32 + lane]
        T.cuda.cta_sync()
