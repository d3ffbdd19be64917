# tile_mma_k8.py - mma.sync.m16n8k8 f16 -> f32 with N/K repeats (2, 2)
# and a scalar C (0.5) broadcast to every accumulator.  One warp.
# Fragments at the reference's lane maps (lane l, register r):
#   A (k) word (l/4 + 8*r, 4*k + l%4),           slot 2*k + r
#   B (n, k) word (8*n + l/4, 4*k + l%4),        slot 2*n + k
#   D (n) element (l/4 + 8*(r/2), 8*n + 2*(l%4) + r%2), slot 4*n + r
# A is 16x16 f16 (16x8 words), B is 16x16 f16 (N x K); D = 0.5 + A @ B.T.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def tile_mma_k8(A: T.Tensor((16, 8), "uint32"), B: T.Tensor((16, 8), "uint32"),
                D: T.Tensor((16, 16), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    g = lane // 4
    t = lane % 4
    FA = T.alloc_local((1, 2, 16, 4), "uint32", layout=T.TileLayout(T.S[(1, 2, 2, 8, 4):(4, 2, 1, 4@laneid, 1@laneid)]))
    FB = T.alloc_local((2, 2, 8, 4), "uint32", layout=T.TileLayout(T.S[(2, 2, 8, 4):(2, 1, 4@laneid, 1@laneid)]))
    FD = T.alloc_local((1, 2, 16, 8), "float32", layout=T.TileLayout(T.S[(1, 2, 2, 8, 4, 2):(8, 4, 2, 4@laneid, 1@laneid, 1)]))
    PA = FA.view(4)
    PB = FB.view(4)
    PD = FD.view(8)
    for k in T.unroll(2):
        for r in T.unroll(2):
            PA[2 * k + r] = A[g + 8 * r, 4 * k + t]
    for n in T.unroll(2):
        for k in T.unroll(2):
            PB[2 * n + k] = B[8 * n + g, 4 * k + t]
    T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"], FD, FA, FB, 0.5, scope="warp")
    for n in T.unroll(2):
        for r in T.unroll(4):
            D[g + 8 * (r // 2), 8 * n + 2 * t + r % 2] = PD[4 * n + r]
