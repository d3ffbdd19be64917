# gemm_sm90.py - examples/gemm_wgmma.py as a family of configurations
# (module constants): C = epilogue(A @ B^T) for A (M, K) row-major and B
# stored (N, K) row-major (B_KMAJOR = 1) or (K, N) row-major (B_KMAJOR =
# 0: C = A @ B, torch.matmul(a, b)), both of dtype DT (bfloat16 or
# float16), float32 accumulation, C (M, N) of dtype OUT (bfloat16 or
# float16: the stmatrix + TMA-store epilogue).  sm_90a.
#
# The schedule is examples/gemm_wgmma.py's (read its header): persistent
# 2-CTA clusters, CTA rank r the 128 rows 128 r .. of a 256 x BN block of
# C, a STAGES-deep TMA ring, one producer warpgroup and two consumer
# warpgroups (64 rows each, m64nBNk16), B multicast (each CTA loads half
# of the block's B), the epilogue through swizzled shared memory in
# BN / 64 quarters of 64 x 64 per consumer warpgroup.  What the constants
# change:
#   BN        256, 128 or 64: C block 256 x BN per cluster (smaller
#             blocks: more clusters for mid sizes; 64 only with B_KMAJOR
#             = 1, each CTA's half of B is then 32 rows); WGMMA must name
#             m64nBNk16 for DT
#   STAGES    ring depth (shared memory: STAGES (128 + BN) 128 bytes +
#             32 KiB of C staging, within the 227 KiB of sm_90)
#   B_KMAJOR  0: B (K, N) reaches wgmma as an MN-major B operand (the
#             descriptor's transpose bit, 16-bit inputs only): each CTA
#             loads BN / 128 boxes of 64 k rows x 64 columns (128 bytes,
#             the 128B swizzle's width), stacked per 64 columns; its row
#             stride N * 2 must be a multiple of 16 (N % 8 == 0)
#   CVT       the pair conversion for OUT (cvt.rn.bf16x2.f32 or
#             cvt.rn.f16x2.f32)
#   fused epilogue on the float32 accumulators, per quarter, before the
#   conversion:  y = act(alpha v + bias) + beta R[m, n]
#             BIAS 0 none, 1 bias[n] per column (bias has N values), 2
#             bias[m] per row (M values; the bias tensor is (NB,), NB
#             = N or M, bounds-checked per element); ACT 0 none, 1 relu,
#             2 gelu (tanh form), 3 silu; RESID 1 adds beta R[m, n]
#             (beta C, or a residual), R of dtype OUT, masked to M, N
# B's dimensions (BR, BC) are only read by its tensor map (zero fill past
# them), so a B smaller than the product needs is never read out of
# bounds; kernels.matmul checks the shapes.  Sizes are runtime values,
# any M >= 1, N >= 8 with K % 8 == 0 and N % 8 == 0 (TMA row strides),
# else E5015 at launch.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

BN = 256                # C block 256 x BN per 2-CTA cluster: 256, 128, 64
WGMMA = "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"
GM = 1  # tile order: GM cluster rows (256 rows each) per group, column by column (1: row by row)
STAGES = 4
DT = "bfloat16"         # A and B: bfloat16 or float16
OUT = "bfloat16"        # C: bfloat16 or float16
CVT = "cvt.rn.bf16x2.f32"
B_KMAJOR = 1            # 1: B (N, K); 0: B (K, N)
BIAS = 0                # 0 none, 1 per column n, 2 per row m
ACT = 0                 # 0 none, 1 relu, 2 gelu-tanh, 3 silu
RESID = 0               # 1: + beta R[m, n]

HB = BN // 2            # B rows (columns of C) each CTA loads
# the MN-major loads' CTA offset: HB, or 0 for BN = 64 (which B_KMAJOR =
# 0 does not take; the branch is still checked, so its regions must be
# in bounds): (HB // 64 + 1) // 2 is 0 for HB = 32, else 1
MN_HB = HB * ((HB // 64 + 1) // 2)
STAGE_BYTES = (128 + BN) * 128
QUARTERS = BN // 64
KM = B_KMAJOR
# element strides of the B view (64-column chunk, k16 slice, column in
# the chunk, k) of one stage: K-major rows are columns of C (a chunk is
# 64 rows further), MN-major rows are k (a chunk is one 64 x 64 box)
B_CHUNK = 4096
B_SLICE = 16 * KM + 1024 * (1 - KM)
B_COL = 64 * KM + (1 - KM)
B_K = KM + 64 * (1 - KM)

M = T.dynamic("M")
N = T.dynamic("N")
K = T.dynamic("K")
BR = T.dynamic("BR")
BC = T.dynamic("BC")
NB = T.dynamic("NB")


@T.function
def relu(x: T.float32) -> T.float32:
    return T.max(x, T.float32(0.0))


@T.function
def gelu(x: T.float32) -> T.float32:
    # 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    return 0.5 * x * (1.0 + T.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


@T.function
def silu(x: T.float32) -> T.float32:
    if x < -30.0:
        return T.float32(0.0)
    else:
        return x * T.sigmoid(x)


@T.function
def gemm_sm90(A: T.Tensor((M, K), DT, align=16),
              B: T.Tensor((BR, BC), DT, align=16),
              C: T.Tensor((M, N), OUT, align=16),
              bias: T.Tensor((NB,), "float32"),
              R: T.Tensor((M, N), OUT),
              alpha: T.float32, beta: T.float32,
              sms: T.int32):
    # .minnctapersm 1 gives the entry register cap setmaxnreg needs
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
    KT = T.ceildiv(K, 64)
    SA = T.alloc_shared((STAGES, 128, 64), DT, scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(STAGES, 128, 64):(8192, 64, 1)])), align=1024)
    SB = T.alloc_shared((STAGES, BN, 64), DT, scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(STAGES, BN, 64):(BN * 64, 64, 1)])), align=1024)
    # C staging: per consumer warpgroup two 64 x 64 buffers, 128B swizzle
    SC = T.alloc_shared((2, 2, 64, 64), OUT, scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(2, 2, 64, 64):(8192, 4096, 64, 1)])), align=1024)
    full = T.alloc_shared((STAGES,), "uint64", align=8)
    empty = T.alloc_shared((STAGES,), "uint64", align=8)
    if tid == 0:
        for j in T.unroll(STAGES):
            T.ptx.mbarrier.init.shared.b64(full.ptr_to([j]), T.uint32(1))
            # both CTAs' consumer warpgroups free a stage: B is shared
            T.ptx.mbarrier.init.shared.b64(empty.ptr_to([j]), T.uint32(4))
        T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()  # the peer's barriers exist before any arrive
    if warp < 4:
        T.ptx["setmaxnreg.dec.sync.aligned.u32"](40)
        if tid == 0:
            state: T.uint64 = T.uint64(0)
            pit: T.uint32 = T.uint32(0)  # k-tiles issued so far: ring slot and pass (unsigned: see gemm_swapab.py)
            for ptile in range(cid, PAIRS, NCL):
                pgf = ptile // (GM * NT) * GM  # the group's first cluster row
                pgh = T.max(T.min(MT - pgf, GM), 1)  # its height
                pbm = (pgf + ptile % (GM * NT) % pgh) * 2 + rank
                pbn = ptile % (GM * NT) // pgh
                for kp in range(KT):
                    sp = pit % STAGES
                    if pit >= STAGES:
                        T.cuda.mbarrier_wait(empty.ptr_to([sp]), (pit // STAGES + 1) % 2)
                    T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, full.ptr_to([sp]), T.uint32(STAGE_BYTES))
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                        SA.sub[sp, :, :], A, box=(128, 64), coords=(pbm * 128, kp * 64), swizzle=3,
                        l2_promotion=3, mbar=full.ptr_to([sp]))
                    # this CTA's half of B, into both CTAs' stage sp
                    if B_KMAJOR == 1:
                        T.cuda.tile.apply(
                            T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"],
                            SB.sub[sp, rank * HB:rank * HB + HB, :], B, box=(HB, 64), coords=(pbn * BN + rank * HB, kp * 64), swizzle=3,
                            l2_promotion=3, mbar=full.ptr_to([sp]), cta_mask=T.uint16(3))
                    else:
                        # 64-column chunks rank HB / 64 ..: 64 k rows each
                        for h in T.unroll(HB // 64):
                            T.cuda.tile.apply(
                                T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"],
                                SB.sub[sp, rank * MN_HB + 64 * h:rank * MN_HB + 64 * h + 64, :], B, box=(64, 64), coords=(kp * 64, pbn * BN + rank * MN_HB + 64 * h), swizzle=3,
                                l2_promotion=3, mbar=full.ptr_to([sp]), cta_mask=T.uint16(3))
                    pit += 1
    else:
        T.ptx["setmaxnreg.inc.sync.aligned.u32"](232)
        # consumer warpgroups 1, 2 (warps 4-7, 8-11) -> 0, 1, broadcast
        # from lane 0 so that ptxas knows it warp-uniform and keeps the
        # descriptor arithmetic in uniform registers
        wgu: T.int32 = 0
        T.ptx["shfl.sync.idx.b32"](wgu, warp // 8, 0, 31, T.uint32(4294967295))
        wg = T.max(T.min(wgu, 1), 0)
        # the warpgroup's 64 rows of stage s as (M_rep, K_rep, 64, 16) and
        # all BN columns of B as (N_rep, K_rep, BN, 16), the BN axis in
        # 64-column chunks: K-major, k16 slice j starts 16 elements (32
        # bytes) into each swizzled 128-byte row; MN-major, 16 k rows
        # (1024 elements) further, columns adjacent
        VA = SA.view(STAGES, 2, 1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(STAGES, 2, 1, 4, 64, 16):(8192, 4096, 4096, 16, 64, 1)])))
        VB = SB.view(STAGES, 1, 4, BN, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(STAGES, 1, 4, BN // 64, 64, 16):(BN * 64, BN * 64, B_SLICE, B_CHUNK, B_COL, B_K)])))
        # accumulators: warp w of the warpgroup, register r of lane l at
        # (16w + l/4 + 8((r/2)%2), 8(r/4) + 2(l%4) + r%2)
        D = T.alloc_local((4, 1, 1, 16, BN), "float32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, BN // 8, 4, 2):(1@wid_in_wg, BN // 2, BN // 2, 2, 4@laneid, 4, 1@laneid, 1)]))
        PD = D.view(BN // 2)
        # one quarter's 32 accumulators through the fused epilogue
        E = T.alloc_local((32,), "float32", layout="default")
        w = warp % 4
        g = lane // 4
        t = lane % 4
        cit: T.uint32 = T.uint32(0)  # k-tiles consumed so far
        p0: T.uint32 = T.uint32(0)
        p1: T.uint32 = T.uint32(0)
        p2: T.uint32 = T.uint32(0)
        p3: T.uint32 = T.uint32(0)
        # a stage is freed in both CTAs (B came to both): thread r of
        # the warpgroup arrives on CTA r's "empty" through its cluster
        # address (mapa)
        rel: T.uint32 = T.uint32(0)
        # epilogue addresses, once per thread: stmatrix x4 of 8-column
        # block pair cb, lane l gives row l%8 of matrix l/8 = row
        # 16w + 8(l/8%2) + l%8, 16-byte chunk 2cb + l/16 of the
        # 128-byte row, at chunk ^ (row % 8) in the 128B swizzle of SC
        # (the TMA store map's); the quarter's buffer adds 4096 elements
        SCE = SC.view(16384)  # SC's storage, in bf16 elements
        EO = T.alloc_local((4,), "int32", layout="default")
        srow = 16 * w + 8 * (lane // 8 % 2) + lane % 8
        for cb in T.unroll(4):
            EO[cb] = wg * 8192 + srow * 64 + ((2 * cb + lane // 16) ^ (lane % 8)) * 8
        for ctile in range(cid, PAIRS, NCL):
            cgf = ctile // (GM * NT) * GM  # the group's first cluster row
            cgh = T.max(T.min(MT - cgf, GM), 1)  # its height
            cbm = (cgf + ctile % (GM * NT) % cgh) * 2 + rank
            cbn = ctile % (GM * NT) // cgh
            for kt in range(KT):
                s = cit % STAGES
                T.cuda.mbarrier_wait(full.ptr_to([s]), (cit // STAGES) % 2)
                T.ptx["wgmma.fence.sync.aligned"]()
                T.cuda.tile.apply(T.ptx[WGMMA],
                                  D, VA.sub[s, wg, :, :, :, :], VB.sub[s, :, :, :, :], scope="warpgroup", accum=kt > 0)
                T.ptx["wgmma.commit_group.sync.aligned"]()
                # the previous k-tile's wgmmas are done: free its stage
                T.ptx["wgmma.wait_group.sync.aligned"](1)
                if kt > 0 and tid % 128 < 2:
                    T.ptx["mapa.shared::cluster.u32"](rel, T.cast(empty.ptr_to([(cit + STAGES - 1) % STAGES]), "uint32"), tid % 128)
                    T.ptx["mbarrier.arrive.shared::cluster.b64"](rel)
                cit += 1
            T.ptx["wgmma.wait_group.sync.aligned"](0)
            if tid % 128 < 2:
                T.ptx["mapa.shared::cluster.u32"](rel, T.cast(empty.ptr_to([(cit + STAGES - 1) % STAGES]), "uint32"), tid % 128)
                T.ptx["mbarrier.arrive.shared::cluster.b64"](rel)
            # epilogue (the producer already fills the next tile's stages)
            # through shared memory: the warpgroup's 64 x 256 block of C
            # in four 64 x 64 quarters, each converted to bf16 pairs and
            # written with stmatrix into one of its two buffers, then
            # stored by one thread with one TMA store (clipped at M, N)
            erow = cbm * 128 + wg * 64 + 16 * w + g
            for q in T.unroll(QUARTERS):
                # fused epilogue: accumulator 32 q + j of this thread is
                # at row erow + 8((j/2)%2), column ecol + 8(j/4) + j%2
                ecol = cbn * BN + 64 * q + 2 * t
                for j in T.unroll(32):
                    y: T.float32 = alpha * PD[32 * q + j]
                    # bias and residual at indices clamped into their
                    # tensors rather than behind a branch per element
                    # (loads behind branches wait for one another);
                    # rows and columns past M, N are clipped by the
                    # TMA store
                    if BIAS == 1:
                        y = y + bias[T.min(ecol + 8 * (j // 4) + j % 2, NB - 1)]
                    if BIAS == 2:
                        y = y + bias[T.min(erow + 8 * (j // 2 % 2), NB - 1)]
                    E[j] = y
                if ACT == 1:
                    T.cuda.tile.ewise(relu, E, E, scope="thread")
                if ACT == 2:
                    T.cuda.tile.ewise(gelu, E, E, scope="thread")
                if ACT == 3:
                    T.cuda.tile.ewise(silu, E, E, scope="thread")
                if RESID == 1:
                    for j in T.unroll(32):
                        E[j] = E[j] + beta * T.cast(R[T.min(erow + 8 * (j // 2 % 2), M - 1), T.min(ecol + 8 * (j // 4) + j % 2, N - 1)], "float32")
                # the store that read this buffer two quarters ago (or in
                # the previous tile) has finished reading it
                if tid % 128 == 0:
                    T.ptx["cp.async.bulk.wait_group.read"](1)
                T.ptx["bar.sync"](1 + wg, 128)
                for cb in T.unroll(4):
                    # matrix j of the x4: 8-column block 8q + 2cb + j/2,
                    # rows 8(j%2) .. of the warp's 16 = accumulator pair
                    # 2(8q + 2cb) + j
                    T.ptx[CVT](p0, E[8 * cb + 1], E[8 * cb])
                    T.ptx[CVT](p1, E[8 * cb + 3], E[8 * cb + 2])
                    T.ptx[CVT](p2, E[8 * cb + 5], E[8 * cb + 4])
                    T.ptx[CVT](p3, E[8 * cb + 7], E[8 * cb + 6])
                    T.ptx["stmatrix.sync.aligned.m8n8.x4.shared.b16"](SCE.ptr_to([EO[cb] + 4096 * (q % 2)]), p0, p1, p2, p3)
                T.ptx.fence.proxy.async_.shared__cta()
                T.ptx["bar.sync"](1 + wg, 128)
                if tid % 128 == 0:
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
                        C, SC.sub[wg, q % 2, :, :], box=(64, 64), coords=(cbm * 128 + wg * 64, cbn * BN + 64 * q), swizzle=3)
                    T.ptx.cp.async_.bulk.commit_group()
        # the last stores have read their buffers before shared memory
        # goes away
        if tid % 128 == 0:
            T.ptx.cp.async_.bulk.wait_group(0)
    # no CTA leaves while its peer may still arrive on its barriers
    T.cuda.cluster_sync()
