# gemm_bf16.py - a worked GEMM with tile calls: C = A @ B.T for bf16
# A (M, K) and B (N, K) (both K-contiguous, row-major), float32
# accumulation, bf16 C (M, N).
#
# One CTA (256 threads, 8 warps as 2 x 4) computes a 128 x 128 tile of C,
# walking K in 32-wide steps through four shared-memory stages (80 KiB of
# dynamic shared memory, two CTAs per SM):
#   cp.async.cg 16-byte chunks  global -> shared (2 per thread per
#                               operand per stage), three k-tiles in
#                               flight: commit_group / wait_group 2 and
#                               one barrier per k-tile; the k loop is
#                               unrolled by the stage count so every
#                               stage index is a constant
#   shared layout               rows padded from 32 to 40 bf16 (80-byte
#                               pitch), so the 8 rows of every ldmatrix
#                               phase land in distinct banks
#   ldmatrix.x4                 A: 16x16 per call (four 8x8 matrices in
#                               mma's a0..a3 order), B: two n8 x k16
#                               fragments per call
#   mma.sync m16n8k16 bf16      each warp: a 64 x 32 tile = 4 x 4 MMAs
#                               per k16 step, 64 float32 accumulators
#   epilogue                    cvt.rn.bf16x2.f32 of adjacent columns,
#                               st.global.b32
# Everything is a tile call or raw synchronisation PTX; the tile layer
# checks each fragment's lane ownership and each shared row's alignment.
# M, N must be multiples of 128, K a multiple of 128 and at least 256.
# TIRx refuses: has no attribute 'mma_sync_layout'
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

M = 4096
N = 4096
K = 4096
MT = M // 128
NT = N // 128
KT = K // 32


@T.function
def gemm_bf16(A: T.Tensor((M, K), "bfloat16", align=16),
              B: T.Tensor((N, K), "bfloat16", align=16),
              C: T.Tensor((M, N), "bfloat16", align=16)):
    # two CTAs per SM, as the twin's __launch_bounds__(256, 2): ptxas keeps
    # the kernel within 128 registers
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(NT, MT), block=256),
                   kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=2))
    bn = T.cuda.block_idx("x")
    bm = T.cuda.block_idx("y")
    warp = T.cuda.warp_id()
    wm = warp // 4
    wn = warp % 4
    SA = T.alloc_shared((4, 128, 40), "bfloat16", scope="shared.dyn", align=128)
    SB = T.alloc_shared((4, 128, 40), "bfloat16", scope="shared.dyn", align=128)
    # cp.async views, (repeat, 8 elements) per thread: thread t copies
    # rows 64*i + t//4 (i = 0, 1), columns 8*(t%4)..+8 of a k-tile
    tid = T.cuda.thread_idx("x")
    cr = tid // 4
    cq = tid % 4
    GA = A.view(MT, 2, 64, KT, 4, 8, layout=T.TileLayout(T.S[(MT, 2, 64, KT, 4, 8):(128 * K, 64 * K, K, 32, 8, 1)]))
    GB = B.view(NT, 2, 64, KT, 4, 8, layout=T.TileLayout(T.S[(NT, 2, 64, KT, 4, 8):(128 * K, 64 * K, K, 32, 8, 1)]))
    CA = SA.view(4, 2, 64, 4, 8, layout=T.TileLayout(T.S[(4, 2, 64, 4, 8):(5120, 2560, 40, 8, 1)]))
    CB = SB.view(4, 2, 64, 4, 8, layout=T.TileLayout(T.S[(4, 2, 64, 4, 8):(5120, 2560, 40, 8, 1)]))
    # ldmatrix views in b32 words (stage, warp row/col, k16 step,
    # fragment, matrix, row, word):
    #   A matrix i = (k half i//2, row half i%2) of a 16x16 block
    #   B matrix i = (n8 block i//2, k half i%2) of a 16n x 16k block
    LA = SA.view("uint32").view(4, 2, 2, 4, 4, 8, 4, layout=T.TileLayout(T.S[(4, 2, 2, 4, 2, 2, 8, 4):(2560, 1280, 8, 320, 4, 160, 20, 1)]))
    LB = SB.view("uint32").view(4, 4, 2, 2, 4, 8, 4, layout=T.TileLayout(T.S[(4, 4, 2, 2, 2, 2, 8, 4):(2560, 640, 8, 320, 160, 4, 20, 1)]))
    # fragments in mma.sync's shapes, by name (docs/patterns.md "Writing
    # an MMA kernel"): A (4 m16 blocks, 2 k16 steps, 16, 8 words), B (4 n8
    # blocks, 2 k16 steps, 8, 8 words), D (4 m16, 4 n8, 16, 8); register r
    # of lane l holds A (l/4 + 8(r%2), l%4 + 4(r/2)), B (l/4, l%4 + 4r),
    # D (l/4 + 8(r/2), 2(l%4) + r%2) as the PTX ISA's fragment figures say
    FA = T.alloc_local((4, 2, 16, 8), "uint32", layout=T.cuda.mma_sync_layout("A", "m16n8k16", "bfloat16", repeat=(4, 2)))
    FB = T.alloc_local((4, 2, 8, 8), "uint32", layout=T.cuda.mma_sync_layout("B", "m16n8k16", "bfloat16", repeat=(4, 2)))
    FD = T.alloc_local((4, 4, 16, 8), "float32", layout=T.cuda.mma_sync_layout("D", "m16n8k16", "bfloat16", repeat=(4, 4)))
    # the same registers as ldmatrix.x4 sees them: (k16 step, block,
    # matrix, row, word).  A's four matrices are one block's registers in
    # a0..a3 order, so RA is the named x4 layout with the k16 step stored
    # inside the block (order=(1, 0)).  B's x4 spans two n8 blocks (matrix
    # i = block i//2, k half i%2), whose registers are 4 apart, so its
    # matrix axis is not the named layout's contiguous one: RB is written
    # out
    RA = FA.view(2, 4, 4, 8, 4, layout=T.cuda.ldmatrix_layout(4, repeat=(2, 4), order=(1, 0)))
    RB = FB.view(2, 2, 4, 8, 4, layout=T.TileLayout(T.S[(2, 2, 2, 2, 8, 4):(2, 8, 4, 1, 4@laneid, 1@laneid)]))
    for i in T.unroll(64):
        FD.view(64)[i] = T.float32(0)

    # prologue: k-tiles 0, 1, 2 into stages 0, 1, 2
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CA.sub[0, :, cr, cq, :], GA.sub[bm, :, cr, 0, cq, :], chunk_bytes=16)
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CB.sub[0, :, cr, cq, :], GB.sub[bn, :, cr, 0, cq, :], chunk_bytes=16)
    T.ptx.cp.async_.commit_group()
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CA.sub[1, :, cr, cq, :], GA.sub[bm, :, cr, 1, cq, :], chunk_bytes=16)
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CB.sub[1, :, cr, cq, :], GB.sub[bn, :, cr, 1, cq, :], chunk_bytes=16)
    T.ptx.cp.async_.commit_group()
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CA.sub[2, :, cr, cq, :], GA.sub[bm, :, cr, 2, cq, :], chunk_bytes=16)
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CB.sub[2, :, cr, cq, :], GB.sub[bn, :, cr, 2, cq, :], chunk_bytes=16)
    T.ptx.cp.async_.commit_group()
    # k-tile kt = 4*it + j lives in stage j; once every thread has
    # passed the barrier, stage (j + 3) % 4 (k-tile kt - 1) is free for
    # k-tile kt + 3
    for it in range(KT // 4 - 1):
        T.ptx.cp.async_.wait_group(2)
        T.cuda.cta_sync()
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CA.sub[3, :, cr, cq, :], GA.sub[bm, :, cr, 4 * it + 3, cq, :], chunk_bytes=16)
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CB.sub[3, :, cr, cq, :], GB.sub[bn, :, cr, 4 * it + 3, cq, :], chunk_bytes=16)
        T.ptx.cp.async_.commit_group()
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RA, LA.sub[0, wm, :, :, :, :, :], scope="warp")
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RB, LB.sub[0, wn, :, :, :, :, :], scope="warp")
        T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], FD, FA, FB, FD, scope="warp")
        T.ptx.cp.async_.wait_group(2)
        T.cuda.cta_sync()
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CA.sub[0, :, cr, cq, :], GA.sub[bm, :, cr, 4 * it + 4, cq, :], chunk_bytes=16)
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CB.sub[0, :, cr, cq, :], GB.sub[bn, :, cr, 4 * it + 4, cq, :], chunk_bytes=16)
        T.ptx.cp.async_.commit_group()
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RA, LA.sub[1, wm, :, :, :, :, :], scope="warp")
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RB, LB.sub[1, wn, :, :, :, :, :], scope="warp")
        T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], FD, FA, FB, FD, scope="warp")
        T.ptx.cp.async_.wait_group(2)
        T.cuda.cta_sync()
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CA.sub[1, :, cr, cq, :], GA.sub[bm, :, cr, 4 * it + 5, cq, :], chunk_bytes=16)
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CB.sub[1, :, cr, cq, :], GB.sub[bn, :, cr, 4 * it + 5, cq, :], chunk_bytes=16)
        T.ptx.cp.async_.commit_group()
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RA, LA.sub[2, wm, :, :, :, :, :], scope="warp")
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RB, LB.sub[2, wn, :, :, :, :, :], scope="warp")
        T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], FD, FA, FB, FD, scope="warp")
        T.ptx.cp.async_.wait_group(2)
        T.cuda.cta_sync()
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CA.sub[2, :, cr, cq, :], GA.sub[bm, :, cr, 4 * it + 6, cq, :], chunk_bytes=16)
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CB.sub[2, :, cr, cq, :], GB.sub[bn, :, cr, 4 * it + 6, cq, :], chunk_bytes=16)
        T.ptx.cp.async_.commit_group()
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RA, LA.sub[3, wm, :, :, :, :, :], scope="warp")
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RB, LB.sub[3, wn, :, :, :, :, :], scope="warp")
        T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], FD, FA, FB, FD, scope="warp")
    # the last four k-tiles: only KT - 1 remains to be fetched
    T.ptx.cp.async_.wait_group(2)
    T.cuda.cta_sync()
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CA.sub[3, :, cr, cq, :], GA.sub[bm, :, cr, KT - 1, cq, :], chunk_bytes=16)
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], CB.sub[3, :, cr, cq, :], GB.sub[bn, :, cr, KT - 1, cq, :], chunk_bytes=16)
    T.ptx.cp.async_.commit_group()
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RA, LA.sub[0, wm, :, :, :, :, :], scope="warp")
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RB, LB.sub[0, wn, :, :, :, :, :], scope="warp")
    T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], FD, FA, FB, FD, scope="warp")
    T.ptx.cp.async_.wait_group(2)
    T.cuda.cta_sync()
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RA, LA.sub[1, wm, :, :, :, :, :], scope="warp")
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RB, LB.sub[1, wn, :, :, :, :, :], scope="warp")
    T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], FD, FA, FB, FD, scope="warp")
    T.ptx.cp.async_.wait_group(1)
    T.cuda.cta_sync()
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RA, LA.sub[2, wm, :, :, :, :, :], scope="warp")
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RB, LB.sub[2, wn, :, :, :, :, :], scope="warp")
    T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], FD, FA, FB, FD, scope="warp")
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RA, LA.sub[3, wm, :, :, :, :, :], scope="warp")
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], RB, LB.sub[3, wn, :, :, :, :, :], scope="warp")
    T.cuda.tile.apply(T.ptx["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"], FD, FA, FB, FD, scope="warp")

    # epilogue: pack columns (2c, 2c+1) of each accumulator row pair into
    # one bf16x2 word (cvt puts its first source in the high half) and
    # store it at C[row, 2c] as a b32 word
    P = T.alloc_local((32, 4, 4, 2, 1), "uint32", layout=T.TileLayout(T.S[(32, 4, 4, 2, 1):(1@laneid, 8, 2, 1, 1)]))
    FP = FD.view(32, 2, 1, layout=T.TileLayout(T.S[(32, 2, 1):(2, 1, 1)]))
    T.cuda.tile.apply(T.ptx["cvt.rn.bf16x2.f32"], P.view(32, 1, layout=T.TileLayout(T.S[(32, 1):(1, 1)])), FP.sub[:, 1, :], FP.sub[:, 0, :])
    CW = C.view("uint32").view(MT, NT, 2, 4, 32, 4, 4, 2, 1, layout=T.TileLayout(T.S[(MT, NT, 2, 4, 8, 4, 4, 4, 2, 1):(64 * N, 64, 32 * N, 16, N // 2, 1, 8 * N, 4, 4 * N, 1)]))
    T.cuda.tile.apply(T.ptx["st.global.b32"], CW.sub[bm, bn, wm, wn, :, :, :, :, :], P, scope="warp")
