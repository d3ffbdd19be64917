# One warp, one mma.sync.m16n8k16 (f16 in, f32 accumulate), written with
# the named fragment layouts only (docs/patterns.md "Writing an MMA
# kernel"): A (16 x 16) and B (8 n x 16 k) are copied to shared memory,
# ldmatrix.x4 / .x2 fill the A and B fragments, mma.sync multiplies, and
# each lane stores its four accumulators.  D = A @ B.T; mma16816_kn takes
# B as (16 k, 8 n) and loads it with ldmatrix.x2.trans;
# python/tests/test_fragments_emu.py checks it in the emulator against
# numpy.
from tvm_tirx.script import tirx as T


@T.function
def mma16816(A: T.Tensor((16, 16), "float16"), B: T.Tensor((8, 16), "float16"),
             D: T.Tensor((16, 8), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    SA = T.alloc_shared((16, 16), "float16", align=16)
    SB = T.alloc_shared((8, 16), "float16", align=16)
    for j in range(8):
        SA[lane // 2, (lane % 2) * 8 + j] = A[lane // 2, (lane % 2) * 8 + j]
    for j in range(4):
        SB[lane // 4, (lane % 4) * 4 + j] = B[lane // 4, (lane % 4) * 4 + j]
    T.cuda.warp_sync()
    # the fragments mma.sync reads and writes, with their (M_repeat,
    # K_repeat), (N_repeat, K_repeat) and (M_repeat, N_repeat) axes of 1
    FA = T.alloc_local((1, 1, 16, 8), "uint32", layout=T.cuda.mma_sync_layout("A", "m16n8k16", "float16"))
    FB = T.alloc_local((1, 1, 8, 8), "uint32", layout=T.cuda.mma_sync_layout("B", "m16n8k16", "float16"))
    FD = T.alloc_local((1, 1, 16, 8), "float32", layout=T.cuda.mma_sync_layout("D", "m16n8k16", "float16"))
    # ldmatrix sources: matrix i of A is (row half i % 2, k half i // 2),
    # the a0..a3 order; matrix i of B is k half i (words of 16-bit pairs)
    LA = SA.view("uint32").view(4, 8, 4, layout=T.TileLayout(T.S[(2, 2, 8, 4):(4, 64, 8, 1)]))
    LB = SB.view("uint32").view(2, 8, 4, layout=T.TileLayout(T.S[(2, 8, 4):(4, 8, 1)]))
    # the same registers as ldmatrix writes them: register i = matrix i
    RA = FA.view(4, 8, 4, layout=T.cuda.ldmatrix_layout(4))
    RB = FB.view(2, 8, 4, layout=T.cuda.ldmatrix_layout(2))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RA, LA, scope="warp")
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x2.shared.b16"], RB, LB, scope="warp")
    PD = FD.view(4)
    for r in T.unroll(4):
        PD[r] = T.float32(0)
    T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"], FD, FA, FB, FD, scope="warp")
    # register r of lane l holds D (l/4 + 8(r/2), 2(l%4) + r%2)
    for r in T.unroll(4):
        D[lane // 4 + 8 * (r // 2), 2 * (lane % 4) + r % 2] = PD[r]


# B stored k-major (16 k x 8 n): ldmatrix .trans hands lane l column
# l/4, rows 2(l%4), +1 of each 8 x 8 block, which is the B fragment; the
# words each lane owns are the same as without .trans
@T.function
def mma16816_kn(A: T.Tensor((16, 16), "float16"), B: T.Tensor((16, 8), "float16"),
             D: T.Tensor((16, 8), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    SA = T.alloc_shared((16, 16), "float16", align=16)
    SB = T.alloc_shared((16, 8), "float16", align=16)
    for j in range(8):
        SA[lane // 2, (lane % 2) * 8 + j] = A[lane // 2, (lane % 2) * 8 + j]
    for j in range(4):
        SB[lane // 2, (lane % 2) * 4 + j] = B[lane // 2, (lane % 2) * 4 + j]
    T.cuda.warp_sync()
    # the fragments mma.sync reads and writes, with their (M_repeat,
    # K_repeat), (N_repeat, K_repeat) and (M_repeat, N_repeat) axes of 1
    FA = T.alloc_local((1, 1, 16, 8), "uint32", layout=T.cuda.mma_sync_layout("A", "m16n8k16", "float16"))
    FB = T.alloc_local((1, 1, 8, 8), "uint32", layout=T.cuda.mma_sync_layout("B", "m16n8k16", "float16"))
    FD = T.alloc_local((1, 1, 16, 8), "float32", layout=T.cuda.mma_sync_layout("D", "m16n8k16", "float16"))
    # ldmatrix sources: matrix i of A is (row half i % 2, k half i // 2),
    # the a0..a3 order; matrix i of B is k half i (words of 16-bit pairs)
    LA = SA.view("uint32").view(4, 8, 4, layout=T.TileLayout(T.S[(2, 2, 8, 4):(4, 64, 8, 1)]))
    LB = SB.view("uint32").view(2, 8, 4, layout=T.TileLayout(T.S[(2, 8, 4):(32, 4, 1)]))
    # the same registers as ldmatrix writes them: register i = matrix i
    RA = FA.view(4, 8, 4, layout=T.cuda.ldmatrix_layout(4))
    RB = FB.view(2, 8, 4, layout=T.cuda.ldmatrix_layout(2, trans=True))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RA, LA, scope="warp")
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"], RB, LB, scope="warp")
    PD = FD.view(4)
    for r in T.unroll(4):
        PD[r] = T.float32(0)
    T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"], FD, FA, FB, FD, scope="warp")
    # register r of lane l holds D (l/4 + 8(r/2), 2(l%4) + r%2)
    for r in T.unroll(4):
        D[lane // 4 + 8 * (r // 2), 2 * (lane % 4) + r % 2] = PD[r]
