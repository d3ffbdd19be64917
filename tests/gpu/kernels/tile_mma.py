# tile_mma.py - mma.sync.m16n8k16 bf16 -> f32 with M/N/K repeats
# (2, 2, 2) and a register tensor C.  One warp.  Fragments are filled from
# global memory with plain per-thread loads at the reference's lane maps
# (lane l, register r):
#   A (m, k) word (16*m + l/4 + 8*(r%2), 8*k + l%4 + 4*(r/2)), slot 4*(2m+k) + r
#   B (n, k) word (8*n + l/4, 8*k + l%4 + 4*r),                slot 2*(2n+k) + r
#   C/D (m, n) element (16*m + l/4 + 8*(r/2), 8*n + 2*(l%4) + r%2), slot 4*(2m+n) + r
# A is 32x32 bf16 (32x16 words, row-major, low half = lower k), B is
# 16x32 bf16 (N x K, K contiguous); D = C + A @ B.T, 32x16 float32.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def tile_mma(A: T.Tensor((32, 16), "uint32"), B: T.Tensor((16, 16), "uint32"),
             C: T.Tensor((32, 16), "float32"), D: T.Tensor((32, 16), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    g = lane // 4
    t = lane % 4
    FA = T.alloc_local((2, 2, 16, 8), "uint32", layout=T.TileLayout(T.S[(2, 2, 2, 8, 2, 4):(8, 4, 1, 4@laneid, 2, 1@laneid)]))
    FB = T.alloc_local((2, 2, 8, 8), "uint32", layout=T.TileLayout(T.S[(2, 2, 8, 2, 4):(4, 2, 4@laneid, 1, 1@laneid)]))
    FC = T.alloc_local((2, 2, 16, 8), "float32", layout=T.TileLayout(T.S[(2, 2, 2, 8, 4, 2):(8, 4, 2, 4@laneid, 1@laneid, 1)]))
    FD = T.alloc_local((2, 2, 16, 8), "float32", layout=T.TileLayout(T.S[(2, 2, 2, 8, 4, 2):(8, 4, 2, 4@laneid, 1@laneid, 1)]))
    PA = FA.view(16)
    PB = FB.view(8)
    PC = FC.view(16)
    PD = FD.view(16)
    for m in T.unroll(2):
        for k in T.unroll(2):
            for r in T.unroll(4):
                PA[(m * 2 + k) * 4 + r] = A[16 * m + g + 8 * (r % 2), 8 * k + t + 4 * (r // 2)]
    for n in T.unroll(2):
        for k in T.unroll(2):
            for r in T.unroll(2):
                PB[(n * 2 + k) * 2 + r] = B[8 * n + g, 8 * k + t + 4 * r]
    for m in T.unroll(2):
        for n in T.unroll(2):
            for r in T.unroll(4):
                PC[(m * 2 + n) * 4 + r] = C[16 * m + g + 8 * (r // 2), 8 * n + 2 * t + r % 2]
    T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], FD, FA, FB, FC, scope="warp")
    for m in T.unroll(2):
        for n in T.unroll(2):
            for r in T.unroll(4):
                D[16 * m + g + 8 * (r // 2), 8 * n + 2 * t + r % 2] = PD[(m * 2 + n) * 4 + r]
