# gemm_mxf8_sm100.py - a block-scaled FP8 (MX, kind::mxf8f6f4) GEMM on
# CTA pairs: C = (A * SA) @ (B * SB).T with float8_e4m3fn A (M, K) and
# B (N, K), one UE8M0 scale per 32 consecutive K of every row (SA (M,
# K/32), SB (N, K/32)), float32 C (M, N):
#     C[m, n] = sum_k A[m, k] 2^(SA[m, k/32] - 127) B[n, k] 2^(SB[n, k/32] - 127)
#
# Each cluster of two CTAs (a CTA pair) computes a 256 x 256 tile of C
# with tcgen05.mma.cta_group::2 M256 N256 K32: CTA v (its
# %cluster_ctarank) holds rows 128 v.. of the A tile and of the B tile in
# its shared memory and rows 128 v.. of the C tile (all 256 columns) in
# its TMEM (PTX Layout A).  Per 128-wide k-tile (one stage, no
# double-buffering):
#   TMA          every CTA loads its A and B halves (128 x 128 bytes,
#                128B swizzle) and its scale-factor images into its own
#                shared memory, on its own mbarrier (expect_tx 34304)
#   cluster_sync both CTAs' stages are full before the leader issues
#   tcgen05.cp   .cta_group::2.32x128b.warpx4 (leader thread): each CTA
#                copies its scale images into its own TMEM, four lane
#                replicas, so that scale row r sits at lane r % 32, byte
#                4 (r / 32) + s (s = the k-tile's 32-wide K block)
#   tcgen05.mma  .block_scale.scale_vec::1X, K_rep 4 (leader thread):
#                K block s reads its scales at byte s of the same cells
#                (scale-factor IDs 0..3 in the instruction descriptor)
#   commit       .cta_group::2 .multicast::cluster mask 0b11: the MMAs'
#                completion arrives on both CTAs' mbarriers
# Epilogue: every warp w reads TMEM lanes 32 w.. with tcgen05.ld
# 32x32b.x64 (four 64-column chunks) and stores C rows directly.
#
# Scale images (host-side arrangement of SA, SB, uint8):
#   SFA[mt, kt, l, 4 c + s] = SA[128 mt + 32 c + l, 4 kt + s]
#       (mt = 2 * pair row + v: the CTA's 128 rows)
#   SFB[nt, kt, h, l, 4 c + s] = SB[256 nt + 128 h + 32 c + l, 4 kt + s]
#       (all 256 rows of the pair's B tile in each CTA: the MMA reads
#       the full N of scale factors in both CTAs)
# One 32x128b.warpx4 copy moves a 32-row x 16-byte image: lane l gets
# cells c = 0..3 holding rows 32 c + l, bytes s = 0..3.
#
# Everything outside the tile calls is caller code: allocation, barrier
# initialisation and phases, election, fences, commit, deallocation.
# Target: sm_100a (compile and ptxas only here; an H200 cannot run it).
# M, N must be multiples of 256, K a multiple of 128.
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, R, TileLayout
from tvm_tirx.backend.cuda.axis import TLane, TCol
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

M = 1024
N = 1024
K = 2048
PM = M // 256
PN = N // 256
KT = K // 128
TX_BYTES = 2 * 128 * 128 + 32 * 16 + 2 * 32 * 16

# A/B stage: 128 rows of 128 e4m3 (one 128-byte swizzled row each), seen
# as (M_rep, K_rep, rows, K) = (1, 4, 128, 32) K slices of 32 bytes
SW128 = T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(128, 128):(128, 1)]))
KSLICES = T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(1, 4, 128, 32):(16384, 32, 128, 1)]))
# accumulator: 128 lanes x 256 float32 cells (columns 0..255)
D_VIEW = TileLayout(S[(1, 1, 128, 256):(1@TCol, 1@TCol, 1@TLane, 1@TCol)])
# scale factors as the MMA reads them (bytes; TCol counts bytes): K slice
# s at byte s, row r at lane r % 32 and cell r / 32, four replicas
SFA_MMA = TileLayout(S[(1, 4, 4, 32, 1):(1@TCol, 1@TCol, 4@TCol, 1@TLane, 1@TCol)] + R[4:32@TLane])
SFB_MMA = TileLayout(S[(1, 4, 8, 32, 1):(1@TCol, 1@TCol, 4@TCol, 1@TLane, 1@TCol)] + R[4:32@TLane])
# the same cells as tcgen05.cp writes them: (repeat, lane, word)
SFA_CP = TileLayout(S[(1, 32, 4):(4@TCol, 1@TLane, 1@TCol)] + R[4:32@TLane])
SFB_CP = TileLayout(S[(2, 32, 4):(4@TCol, 1@TLane, 1@TCol)] + R[4:32@TLane])
# epilogue: warp w, lane l, chunk column j -> lane 32 w + l
D_LD = TileLayout(S[(4, 32, 64):(32@TLane, 1@TLane, 1@TCol)])
REGS = TileLayout(S[(4, 32, 64):(1@wid_in_wg, 1@laneid, 1)])


@T.function
def gemm_mxf8_sm100(A: T.Tensor((M, K), "float8_e4m3fn", align=128),
                    B: T.Tensor((N, K), "float8_e4m3fn", align=128),
                    SFA: T.Tensor((2 * PM, KT, 32, 16), "uint8", align=128),
                    SFB: T.Tensor((PN, KT, 2, 32, 16), "uint8", align=128),
                    C: T.Tensor((M, N), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2 * PM * PN, block=128, cluster=2))
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    lane = T.cuda.lane_id()
    v = T.cuda.cluster_cta_id("x")
    pair = T.cuda.block_idx("x") // 2
    pm = pair // PN
    pn = pair % PN
    As = T.alloc_shared((128, 128), "float8_e4m3fn", layout=SW128, align=1024)
    Bs = T.alloc_shared((128, 128), "float8_e4m3fn", layout=SW128, align=1024)
    SAs = T.alloc_shared((1, 1, 32, 16), "uint8", layout="default", align=128)
    SBs = T.alloc_shared((1, 1, 2, 32, 16), "uint8", layout="default", align=128)
    tma_bar = T.alloc_shared((1,), "uint64", align=8)
    mma_bar = T.alloc_shared((1,), "uint64", align=8)
    slot = T.alloc_shared((1,), "uint32", align=4)
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(tma_bar.ptr_to([0]), T.uint32(1))
        T.ptx.mbarrier.init.shared.b64(mma_bar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
    if warp == 0:
        # one warp of each CTA of the pair: 512 columns in both CTAs
        T.ptx.tcgen05.alloc.cta_group__2.sync.aligned.shared__cta.b32(slot.ptr_to([0]), T.uint32(512))
        T.ptx.tcgen05.relinquish_alloc_permit.cta_group__2.sync.aligned()
    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cluster_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    taddr = slot[0]
    D = T.tmem((128, 512), "float32", scope="tmem", allocated_addr=taddr,
                      layout=TileLayout(S[(128, 512):(1@TLane, 1@TCol)]))
    # scale cells: SFA at columns 256..259, SFB at 260..267
    SA_T = T.tmem((128, 16), "float8_e8m0fnu", scope="tmem", allocated_addr=taddr + T.uint32(256),
                         layout=TileLayout(S[(128, 16):(1@TLane, 1@TCol)]))
    SB_T = T.tmem((128, 32), "float8_e8m0fnu", scope="tmem", allocated_addr=taddr + T.uint32(260),
                         layout=TileLayout(S[(128, 32):(1@TLane, 1@TCol)]))
    SA_W = T.tmem((128, 4), "uint32", scope="tmem", allocated_addr=taddr + T.uint32(256),
                         layout=TileLayout(S[(128, 4):(1@TLane, 1@TCol)]))
    SB_W = T.tmem((128, 8), "uint32", scope="tmem", allocated_addr=taddr + T.uint32(260),
                         layout=TileLayout(S[(128, 8):(1@TLane, 1@TCol)]))
    Dv = D.view(1, 1, 128, 256, layout=D_VIEW)
    Av = As.view(1, 4, 128, 32, layout=KSLICES)
    Bv = Bs.view(1, 4, 128, 32, layout=KSLICES)
    SAv = SA_T.view(1, 4, 128, 1, layout=SFA_MMA)
    SBv = SB_T.view(1, 4, 256, 1, layout=SFB_MMA)
    SAc = SA_W.view(1, 32, 4, layout=SFA_CP)
    SBc = SB_W.view(2, 32, 4, layout=SFB_CP)
    SAw = SAs.view("uint32").view(1, 32, 4)
    SBw = SBs.view("uint32").view(2, 32, 4)

    for kt in range(KT):
        if tid == 0:
            state: T.uint64 = T.uint64(0)
            T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, tma_bar.ptr_to([0]), T.uint32(TX_BYTES))
            T.cuda.tile.apply(
                T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                As, A, box=(128, 128), coords=(256 * pm + 128 * v, 128 * kt), swizzle=3,
                mbar=tma_bar.ptr_to([0]))
            T.cuda.tile.apply(
                T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                Bs, B, box=(128, 128), coords=(256 * pn + 128 * v, 128 * kt), swizzle=3,
                mbar=tma_bar.ptr_to([0]))
            T.cuda.tile.apply(
                T.ptx["cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                SAs, SFA, box=(1, 1, 32, 16), coords=(2 * pm + v, kt, 0, 0),
                mbar=tma_bar.ptr_to([0]))
            T.cuda.tile.apply(
                T.ptx["cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
                SBs, SFB, box=(1, 1, 2, 32, 16), coords=(pn, kt, 0, 0, 0),
                mbar=tma_bar.ptr_to([0]))
        T.cuda.mbarrier_wait(tma_bar.ptr_to([0]), kt % 2)
        # both CTAs' stages are full before the leader reads them
        T.cuda.cluster_sync()
        if v == 0 and tid == 0:
            T.ptx.tcgen05.fence__after_thread_sync()
            T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::2.32x128b.warpx4"], SAc, SAw)
            T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::2.32x128b.warpx4"], SBc, SBw)
            T.cuda.tile.apply(
                T.ptx["tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X"],
                Dv, Av, Bv, SAv, SBv, instruction_shape=(256, 256, 32), accum=kt > 0)
            both: T.uint16 = T.uint16(3)
            T.ptx.tcgen05.commit.cta_group__2.mbarrier__arrive__one.shared__cluster.multicast__cluster.b64(
                mma_bar.ptr_to([0]), both)
        T.cuda.mbarrier_wait(mma_bar.ptr_to([0]), kt % 2)

    T.ptx.tcgen05.fence__after_thread_sync()
    row = 256 * pm + 128 * v + 32 * warp + lane
    acc = T.alloc_local((64,), "float32", layout="default")
    Dl = D.view(4, 32, 256, layout=TileLayout(S[(4, 32, 256):(32@TLane, 1@TLane, 1@TCol)]))
    for ch in range(4):
        T.cuda.tile.apply(T.ptx["tcgen05.ld.sync.aligned.32x32b.x64.b32"],
                          acc.view(4, 32, 64, layout=REGS), Dl[:, :, 64 * ch:64 * ch + 64],
                          scope="warpgroup")
        T.ptx.tcgen05.wait__ld.sync.aligned()
        for j in T.unroll(64):
            C[row, 256 * pn + 64 * ch + j] = acc[j]

    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cluster_sync()
    if warp == 0:
        T.ptx.tcgen05.dealloc.cta_group__2.sync.aligned.b32(taddr, T.uint32(512))
