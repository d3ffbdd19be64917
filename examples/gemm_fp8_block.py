# gemm_fp8_block.py - a block-scaled FP8 GEMM on Hopper (sm_90a) with
# two-level accumulation (DeepSeek-V3's fine-grained scaling):
#   C[i, j] = sum_kb SA[kb, i] * SB[j / 128, kb] * sum_{k in block kb} A[i, k] B[j, k]
# for float8 A (M, K) and B (N, K) (K-contiguous; e4m3 by default, AT /
# BT pick e5m2), bf16 C (M, N) (or float32: CT / F32 / CW), kb the
# 128-wide K blocks (KB =
# ceil(K / 128)):
#   scale_a (KB, MS) float32: one scale per row of A per K block, row kb
#     holding the M rows' scales contiguously (torch._scaled_mm's 1x128
#     layout: its (M, KB) scale tensor with strides (1, M), transposed);
#     MS >= M, a multiple of 4 (the TMA row stride, 16 bytes); columns
#     past M are not read into C
#   scale_b (NB, KB) float32 row-major: one scale per 128 x 128 block of
#     B (NB = ceil(N / 128); torch's 128x128 layout of the (N, K)
#     operand)
#
# The recipe of examples/gemm_wgmma.py (persistent 2-CTA clusters, one
# producer and two consumer warpgroups, setmaxnreg 40/232, TMA ring with
# 128B swizzle and B multicast, stmatrix + TMA-store epilogue) with:
#   - tiles of 128 x BN per CTA (BN 192, 128 or 64; a cluster takes
#     256 x BN): each consumer thread keeps BN / 2 float32 promoted sums
#     and one (DB 0) or two (DB 1, BN <= 128) wgmma accumulators of
#     BN / 2 (BN 192: 2 x 96, DB 0 only); the bf16 GEMM's 128 x 256
#     tiles would need 2 x 128 registers
#   - one k-tile = one 128-wide K block = 128 bytes (one swizzled row):
#     a stage is A 128 x 128 (16 KiB) + B BN x 128 (each CTA loads BN / 2
#     rows and multicasts them) + the CTA's 128 A scales of that
#     K block (512 bytes, a TMA load of scale_a's row kb), ST stages
#   - per pair of k-tiles, per consumer warpgroup (DB 1, the default):
#     wgmma.fence, 4 x wgmma m64nBNk32 of the first K block into a fresh
#     accumulator D (scale-d 0 on the first), commit, the same for the
#     second into D2, then wait_group 1 (D done; D2's wgmmas still run),
#     the stage freed in both CTAs by every consumer warp (16 arrivals)
#     and the promotion main += D * (sa[row] * sb) in float32 FMAs, then
#     wait_group 0 and D2's promotion.  The thread's two A-row scales
#     are read from the stage before its wgmmas; sb, the B block's
#     scale, with ld.global before the wait for the stage.  With DB 0
#     each K block is issued, waited for (wait_group 0) and promoted
#     alone: the tensor cores then wait for every promotion that the
#     other warpgroup's wgmmas do not cover (H200, bench/README.md
#     session 7: DB 1 is 7-15% faster at BN 128).  The promotion
#     interval is one K block: the scales change there, and Hopper's
#     FP8 wgmma keeps fewer mantissa bits in its own sums than float32
#     (bench/fp8 measures the error with and without it)
# Sizes are runtime values, any M >= 1; K % 16 == 0 and N % 8 == 0 (TMA
# row strides; else E5015 at launch).  TMA zero fill past M, N, K (and
# past scale_a's bounds: a missing scale reads as 0).
# TIRx refuses: source and result must have equal element counts
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

AT = "float8_e4m3fn"  # A's element type: "float8_e4m3fn" or "float8_e5m2"
BT = "float8_e4m3fn"  # B's
BN = 128  # tile columns per CTA: 192, 128 or 64 (MMA's n must match)
MMA = "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3"  # .e5m2 to match AT / BT
PI = 1  # K blocks per promotion (DB 0): 1 for block scales (they change every K block); more only for scales constant along K (per-tensor data)
DB = 1  # 1: K blocks in pairs, two fresh accumulators (BN <= 128, PI 1): the second block's wgmmas run while the first's are promoted; 0: one block at a time
GM = 1  # tile order: GM cluster rows (256 rows each) per group, column by column (1: row by row)
ST = 5  # ring stages of 16.5 + BN / 8 KiB beside 32 KiB of C staging: BN 192: 4, 128: 5 (6 is 96 bytes over the 227 KiB limit with the barriers), 64: 7

CT = "bfloat16"  # C's element type: "bfloat16" or "float32" (F32 and CW must match)
F32 = 0  # 1 when CT is "float32"
CW = 64  # columns of one C staging row of 128 bytes: 64 bf16, 32 float32

M = T.dynamic("M")
N = T.dynamic("N")
K = T.dynamic("K")
KS = T.dynamic("KS")
MS = T.dynamic("MS")
NS = T.dynamic("NS")


@T.function
def gemm_fp8_block(A: T.Tensor((M, K), AT, align=16),
                   B: T.Tensor((N, K), BT, align=16),
                   C: T.Tensor((M, N), CT, align=16),
                   scale_a: T.Tensor((KS, MS), "float32", align=16),
                   scale_b: T.Tensor((NS, KS), "float32", align=4),
                   sms: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2 * T.min(T.max(sms // 2, 1), T.ceildiv(M, 256) * T.ceildiv(N, BN)), block=384, cluster=2),
                   kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=1))
    cid = T.cuda.block_idx("x") // 2  # the cluster: a 256 x BN block of C
    rank = T.cuda.cluster_cta_id("x")  # its upper or lower 128 rows
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    lane = T.cuda.lane_id()
    NT = T.ceildiv(N, BN)
    MT = T.ceildiv(M, 256)
    PAIRS = MT * NT
    NCL = T.max(sms // 2, 1)  # clusters in the grid (or more)
    # the tile order: groups of GM cluster rows, column by column inside
    # a group (the last group may be lower), so that one wave of
    # clusters reads a GM x (NCL / GM) block of C's tiles and shares
    # its A and B k-slices in L2
    KT = T.ceildiv(K, 128)
    # k-tiles per tile: with DB an even count (a last, zero-filled K
    # block past K adds 0), so the consumer's loop has no wgmma under a
    # branch (ptxas serializes wgmma in divergent paths, C7520)
    KTP = KT + DB * (KT % 2)
    SA = T.alloc_shared((ST, 128, 128), AT, scope="shared.dyn", layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(ST, 128, 128):(16384, 128, 1)])), align=1024)
    SB = T.alloc_shared((ST, BN, 128), BT, scope="shared.dyn", layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(ST, BN, 128):(BN * 128, 128, 1)])), align=1024)
    # C staging: per consumer warpgroup two 64 x 64 buffers, 128B swizzle
    SC = T.alloc_shared((2, 2, 64, CW), CT, scope="shared.dyn", layout=T.ComposeLayout(3 - F32, 3, 3, T.TileLayout(T.S[(2, 2, 64, CW):(128 * CW, 64 * CW, CW, 1)])), align=1024)
    # the A scales of each stage's K block, for the CTA's 128 rows
    SS = T.alloc_shared((ST, 128), "float32", scope="shared.dyn", layout="default", align=128)
    full = T.alloc_shared((ST,), "uint64", align=8)
    empty = T.alloc_shared((ST,), "uint64", align=8)
    if tid == 0:
        for j in T.unroll(ST):
            T.ptx.mbarrier.init.shared.b64(full.ptr_to([j]), T.uint32(1))
            # every consumer warp of both CTAs frees a stage (B is
            # shared, and each warp reads its own A scales from it)
            T.ptx.mbarrier.init.shared.b64(empty.ptr_to([j]), T.uint32(16))
        T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()  # the peer's barriers exist before any arrive
    if warp < 4:
        T.ptx["setmaxnreg.dec.sync.aligned.u32"](40)
        if tid == 0:
            state: T.uint64 = T.uint64(0)
            pit: T.uint32 = T.uint32(0)  # k-tiles issued so far
            # the ring slot and its pass's parity, stepped, not divided
            # out of pit: ptxas expands `pit % 5` into a reciprocal
            # sequence on every k-tile (bench/README.md, session 5); the
            # slot is read through T.min(., ST - 1), one instruction, so
            # the bounds prover sees it below ST (a stepped variable's
            # range is not inferred)
            sq: T.uint32 = T.uint32(0)
            pph: T.uint32 = T.uint32(0)
            for ptile in range(cid, PAIRS, NCL):
                pgf = ptile // (GM * NT) * GM  # the group's first cluster row
                pgh = T.max(T.min(MT - pgf, GM), 1)  # its height
                pbm = (pgf + ptile % (GM * NT) % pgh) * 2 + rank
                pbn = ptile % (GM * NT) // pgh
                for kp in range(KTP):
                    sp = T.min(sq, T.uint32(ST - 1))
                    if pit >= ST:
                        T.cuda.mbarrier_wait(empty.ptr_to([sp]), pph ^ T.uint32(1))
                    # A 16 KiB + B 2 x 8 KiB (this CTA's and the peer's
                    # multicast halves) + 512 bytes of A scales
                    T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, full.ptr_to([sp]), T.uint32(16384 + BN * 128 + 512))
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                        SA.sub[sp, :, :], A, box=(128, 128), coords=(pbm * 128, kp * 128), swizzle=3,
                        l2_promotion=3, mbar=full.ptr_to([sp]))
                    # this CTA's half of B, into both CTAs' stage sp
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"],
                        SB.sub[sp, rank * (BN // 2):rank * (BN // 2) + BN // 2, :], B, box=(BN // 2, 128), coords=(pbn * BN + rank * (BN // 2), kp * 128), swizzle=3,
                        l2_promotion=3, mbar=full.ptr_to([sp]), cta_mask=T.uint16(3))
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                        SS[sp, :], scale_a, box=(1, 128), coords=(kp, pbm * 128),
                        mbar=full.ptr_to([sp]))
                    pit += 1
                    sq += 1
                    if sq == ST:
                        sq = T.uint32(0)
                        pph = pph ^ T.uint32(1)
    else:
        T.ptx["setmaxnreg.inc.sync.aligned.u32"](232)
        # consumer warpgroups 1, 2 (warps 4-7, 8-11) -> 0, 1, broadcast
        # from lane 0 so that ptxas knows it warp-uniform and keeps the
        # descriptor arithmetic in uniform registers
        wgu: T.int32 = 0
        T.ptx["shfl.sync.idx.b32"](wgu, warp // 8, 0, 31, T.uint32(4294967295))
        wg = T.max(T.min(wgu, 1), 0)
        # scale_b flat: its row's offset is one product per tile, where
        # the 2-D index was 64-bit arithmetic per K block
        SBF = scale_b.view(NS * KS)
        # the warpgroup's 64 rows of stage s as (M_rep, K_rep, 64, 32) and
        # all BN rows of B as (N_rep, K_rep, BN, 32): k32 slice j starts
        # 32 elements (32 bytes) into each swizzled 128-byte row
        VA = SA.view(ST, 2, 1, 4, 64, 32, layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(ST, 2, 1, 4, 64, 32):(16384, 8192, 8192, 32, 128, 1)])))
        VB = SB.view(ST, 1, 4, BN, 32, layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(ST, 1, 4, BN, 32):(BN * 128, BN * 128, 32, 128, 1)])))
        # the K block's accumulators: warp w of the warpgroup, register r
        # of lane l at (16w + l/4 + 8((r/2)%2), 8(r/4) + 2(l%4) + r%2)
        D = T.alloc_local((4, 1, 1, 16, BN), "float32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, BN // 8, 4, 2):(1@wid_in_wg, BN // 2, BN // 2, 2, 4@laneid, 4, 1@laneid, 1)]))
        PD = D.view(BN // 2)
        if DB == 1:
            # DB: the odd K blocks' accumulator (BN <= 128: 3 x BN / 2
            # registers with the main sums)
            D2 = T.alloc_local((4, 1, 1, 16, BN), "float32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, BN // 8, 4, 2):(1@wid_in_wg, BN // 2, BN // 2, 2, 4@laneid, 4, 1@laneid, 1)]))
            PD2 = D2.view(BN // 2)
        # the promoted sums, register r at the same position as PD[r]
        MA = T.alloc_local((BN // 2,), "float32", layout="default")
        w = warp % 4
        g = lane // 4
        # the ring slot of the next k-tile to consume and its pass's
        # parity (stepped and read as the producer's)
        cs: T.uint32 = T.uint32(0)
        cph: T.uint32 = T.uint32(0)
        p0: T.uint32 = T.uint32(0)
        p1: T.uint32 = T.uint32(0)
        p2: T.uint32 = T.uint32(0)
        p3: T.uint32 = T.uint32(0)
        rel: T.uint32 = T.uint32(0)
        eq: T.int32 = 0  # C quarters stored so far: buffer eq % 2
        # epilogue addresses, once per thread (examples/gemm_wgmma.py)
        SCE = SC.view(256 * CW)  # SC's storage, in elements of C
        EO = T.alloc_local((4,), "int32", layout="default")
        srow = 16 * w + 8 * (lane // 8 % 2) + lane % 8
        for cb in T.unroll(4):
            if F32 == 1:
                # float32: the pair of columns 8cb + 2t, + 1 of row
                # 16w + g (its 8-byte half of 16-byte chunk 2cb + t/2,
                # at chunk ^ (row % 8) = chunk ^ g in the swizzle)
                EO[cb] = wg * 4096 + (16 * w + lane // 4) * 32 + ((2 * cb + lane % 4 // 2) ^ (lane // 4)) * 4 + 2 * (lane % 2)
            else:
                EO[cb] = wg * 8192 + srow * 64 + ((2 * cb + lane // 16) ^ (lane % 8)) * 8
        # this thread's accumulator rows within the CTA's 128
        r0 = wg * 64 + 16 * w + g
        for ctile in range(cid, PAIRS, NCL):
            cgf = ctile // (GM * NT) * GM  # the group's first cluster row
            cgh = T.max(T.min(MT - cgf, GM), 1)  # its height
            cbm = (cgf + ctile % (GM * NT) % cgh) * 2 + rank
            cbn = ctile % (GM * NT) // cgh
            for j in T.unroll(BN // 2):
                MA[j] = 0.0
            nb = T.min(cbn * BN // 128, NS - 1)  # the B scale row (clamped: in bounds)
            if BN > 128:
                # BN 192: the tile's first j0 columns (128 or 64) are in
                # B block nb, the rest in block nb + 1
                nb2 = T.min(cbn * BN // 128 + 1, NS - 1)
                j0 = 128 * (cbn * BN // 128 + 1) - cbn * BN
            if DB == 1:
                # K blocks in pairs: 2kp into D, 2kp + 1 into D2, both
                # issued; wait_group 1 (D's done), free its stage and
                # promote it while D2's wgmmas run; wait_group 0, free
                # and promote D2.  The promotion the tensor cores wait
                # for is one per pair, not one per block.  Every read of
                # an accumulator follows its wgmma's issue in the same
                # pass: reading D2 in the next pass, behind the loop's
                # back edge, made ptxas serialize every wgmma (C7514).
                # No branch holds a wgmma
                for kp in range(KTP // 2):
                    sd = T.min(cs, T.uint32(ST - 1))
                    sbk = SBF[nb * KS + T.min(2 * kp, KS - 1)]
                    T.cuda.mbarrier_wait(full.ptr_to([sd]), cph)
                    sa0 = SS[sd, r0]
                    sa1 = SS[sd, r0 + 8]
                    T.ptx["wgmma.fence.sync.aligned"]()
                    T.cuda.tile.apply(T.ptx[MMA], D, VA.sub[sd, wg, :, :, :, :], VB.sub[sd, :, :, :, :],
                                      scope="warpgroup", accum=False)
                    T.ptx["wgmma.commit_group.sync.aligned"]()
                    cs += 1
                    if cs == ST:
                        cs = T.uint32(0)
                        cph = cph ^ T.uint32(1)
                    sd2 = T.min(cs, T.uint32(ST - 1))
                    sbk2 = SBF[nb * KS + T.min(2 * kp + 1, KS - 1)]
                    T.cuda.mbarrier_wait(full.ptr_to([sd2]), cph)
                    sa2 = SS[sd2, r0]
                    sa3 = SS[sd2, r0 + 8]
                    T.ptx["wgmma.fence.sync.aligned"]()
                    T.cuda.tile.apply(T.ptx[MMA], D2, VA.sub[sd2, wg, :, :, :, :], VB.sub[sd2, :, :, :, :],
                                      scope="warpgroup", accum=False)
                    T.ptx["wgmma.commit_group.sync.aligned"]()
                    cs += 1
                    if cs == ST:
                        cs = T.uint32(0)
                        cph = cph ^ T.uint32(1)
                    T.ptx["wgmma.wait_group.sync.aligned"](1)
                    if lane < 2:
                        T.ptx["mapa.shared::cluster.u32"](rel, T.cast(empty.ptr_to([sd]), "uint32"), lane)
                        T.ptx["mbarrier.arrive.shared::cluster.b64"](rel)
                    f0 = sa0 * sbk
                    f1 = sa1 * sbk
                    for j in T.unroll(BN // 8):
                        MA[4 * j] = MA[4 * j] + PD[4 * j] * f0
                        MA[4 * j + 1] = MA[4 * j + 1] + PD[4 * j + 1] * f0
                        MA[4 * j + 2] = MA[4 * j + 2] + PD[4 * j + 2] * f1
                        MA[4 * j + 3] = MA[4 * j + 3] + PD[4 * j + 3] * f1
                    T.ptx["wgmma.wait_group.sync.aligned"](0)
                    if lane < 2:
                        T.ptx["mapa.shared::cluster.u32"](rel, T.cast(empty.ptr_to([sd2]), "uint32"), lane)
                        T.ptx["mbarrier.arrive.shared::cluster.b64"](rel)
                    f0 = sa2 * sbk2
                    f1 = sa3 * sbk2
                    for j in T.unroll(BN // 8):
                        MA[4 * j] = MA[4 * j] + PD2[4 * j] * f0
                        MA[4 * j + 1] = MA[4 * j + 1] + PD2[4 * j + 1] * f0
                        MA[4 * j + 2] = MA[4 * j + 2] + PD2[4 * j + 2] * f1
                        MA[4 * j + 3] = MA[4 * j + 3] + PD2[4 * j + 3] * f1
            else:
                for kt in range(KT):
                    s = T.min(cs, T.uint32(ST - 1))
                    # the B block's scale, loaded before the wait for the
                    # operands so its latency is hidden
                    sbk = SBF[nb * KS + T.min(kt, KS - 1)]
                    if BN > 128:
                        sbk2 = SBF[nb2 * KS + T.min(kt, KS - 1)]
                    T.cuda.mbarrier_wait(full.ptr_to([s]), cph)
                    # this thread's two A-row scales of the K block, read from
                    # the stage before the wgmma is issued
                    sa0 = SS[s, r0]
                    sa1 = SS[s, r0 + 8]
                    f0 = sa0 * sbk
                    f1 = sa1 * sbk
                    if BN > 128:
                        h0 = sa0 * sbk2
                        h1 = sa1 * sbk2
                    T.ptx["wgmma.fence.sync.aligned"]()
                    # a fresh accumulator at the start of each promotion
                    # interval (every K block when PI is 1)
                    T.cuda.tile.apply(T.ptx[MMA], D, VA.sub[s, wg, :, :, :, :], VB.sub[s, :, :, :, :],
                                      scope="warpgroup", accum=kt % PI != 0)
                    T.ptx["wgmma.commit_group.sync.aligned"]()
                    T.ptx["wgmma.wait_group.sync.aligned"](0)
                    # the stage's operands and this warp's scales are read:
                    # the warp frees it in both CTAs (lane r arrives on CTA
                    # r's barrier), as DeepGEMM does
                    if lane < 2:
                        T.ptx["mapa.shared::cluster.u32"](rel, T.cast(empty.ptr_to([s]), "uint32"), lane)
                        T.ptx["mbarrier.arrive.shared::cluster.b64"](rel)
                    # promotion: register 4j + i is in row i / 2 (g or g + 8);
                    # with PI > 1 at the interval's last K block (and K's)
                    if PI == 1 or (kt + 1) % PI == 0 or kt == KT - 1:
                        for j in T.unroll(BN // 8):
                            if BN > 128:
                                # columns 8j .. 8j + 7 lie in one B block (j0 is a
                                # multiple of 64)
                                e0 = T.if_then_else(8 * j < j0, f0, h0)
                                e1 = T.if_then_else(8 * j < j0, f1, h1)
                                MA[4 * j] = MA[4 * j] + PD[4 * j] * e0
                                MA[4 * j + 1] = MA[4 * j + 1] + PD[4 * j + 1] * e0
                                MA[4 * j + 2] = MA[4 * j + 2] + PD[4 * j + 2] * e1
                                MA[4 * j + 3] = MA[4 * j + 3] + PD[4 * j + 3] * e1
                            else:
                                MA[4 * j] = MA[4 * j] + PD[4 * j] * f0
                                MA[4 * j + 1] = MA[4 * j + 1] + PD[4 * j + 1] * f0
                                MA[4 * j + 2] = MA[4 * j + 2] + PD[4 * j + 2] * f1
                                MA[4 * j + 3] = MA[4 * j + 3] + PD[4 * j + 3] * f1
                    cs += 1
                    if cs == ST:
                        cs = T.uint32(0)
                        cph = cph ^ T.uint32(1)
            # epilogue (the producer already fills the next tile's stages)
            # through shared memory: the warpgroup's 64 x BN block of C
            # in BN / 64 quarters of 64 x 64, each converted to bf16 pairs and
            # written with stmatrix into one of its two buffers, then
            # stored by one thread with one TMA store (clipped at M, N)
            for q in T.unroll(BN // CW):
                # the store that read this buffer (in the previous tile)
                # has finished reading it
                if tid % 128 == 0:
                    T.ptx["cp.async.bulk.wait_group.read"](1)
                T.ptx["bar.sync"](1 + wg, 128)
                if F32 == 1:
                    # accumulator pairs of columns 32q + 8cb + 2t (+ 1), rows
                    # g and g + 8 (8 rows = 256 elements further)
                    for cb in T.unroll(4):
                        T.ptx["st.shared.v2.f32"](SCE.ptr_to([EO[cb] + 2048 * (eq % 2)]), (MA[16 * q + 4 * cb], MA[16 * q + 4 * cb + 1]))
                        T.ptx["st.shared.v2.f32"](SCE.ptr_to([EO[cb] + 2048 * (eq % 2) + 256]), (MA[16 * q + 4 * cb + 2], MA[16 * q + 4 * cb + 3]))
                else:
                    for cb in T.unroll(4):
                        T.ptx["cvt.rn.bf16x2.f32"](p0, MA[32 * q + 8 * cb + 1], MA[32 * q + 8 * cb])
                        T.ptx["cvt.rn.bf16x2.f32"](p1, MA[32 * q + 8 * cb + 3], MA[32 * q + 8 * cb + 2])
                        T.ptx["cvt.rn.bf16x2.f32"](p2, MA[32 * q + 8 * cb + 5], MA[32 * q + 8 * cb + 4])
                        T.ptx["cvt.rn.bf16x2.f32"](p3, MA[32 * q + 8 * cb + 7], MA[32 * q + 8 * cb + 6])
                        T.ptx["stmatrix.sync.aligned.m8n8.x4.shared.b16"](SCE.ptr_to([EO[cb] + 4096 * (eq % 2)]), p0, p1, p2, p3)
                T.ptx.fence.proxy.async_.shared__cta()
                T.ptx["bar.sync"](1 + wg, 128)
                if tid % 128 == 0:
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
                        C, SC.sub[wg, eq % 2, :, :], box=(64, CW), coords=(cbm * 128 + wg * 64, cbn * BN + CW * q), swizzle=3)
                    T.ptx.cp.async_.bulk.commit_group()
                eq += 1
        # the last stores have read their buffers before shared memory
        # goes away
        if tid % 128 == 0:
            T.ptx.cp.async_.bulk.wait_group(0)
    # no CTA leaves while its peer may still arrive on its barriers
    T.cuda.cluster_sync()
