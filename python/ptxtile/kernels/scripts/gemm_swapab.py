# gemm_swapab.py - a Hopper GEMM for few rows of X (decode, small M):
# C = epilogue(X @ W^T) for bf16 X (M, K) row-major and weights W stored
# (N, K) row-major (W_KMAJOR = 1, torch's F.linear weight) or (K, N)
# row-major (W_KMAJOR = 0: C = X @ W, torch.matmul(x, w)); float32
# accumulation, C (M, N) of dtype OUT.  sm_90a.
#
# Swap-AB: the kernel computes the tile C^T = W . X^T, so the weight rows
# are wgmma's M side (64 per consumer warpgroup) and the few tokens are
# wgmma's N (BT = 8..128, a multiple of 8): a 16-token GEMM issues
# m64n16k16 instead of padding 16 rows to 64 or 128.  Not persistent: the
# grid is (ceil(N / BW), SPLIT, ceil(M / BT)); CTA (nb, s, mt) streams
# the BW = 64 WG weight rows nb BW .. through k-tiles s KS .. of 64 (KS =
# ceil(ceil(K/64) / SPLIT)), so that with SPLIT > 1 every SM streams
# weight bytes even when N / BW is smaller than the SM count.
#   warps 0 .. 4 WG - 1  WG consumer warpgroups: per k-tile wait "full",
#                wgmma.fence, one m64nBTk16 tile call (K_rep 4: 32 B per
#                k16 slice inside the 128-byte swizzled rows), commit,
#                wait_group 1, then one thread frees the previous stage
#                ("empty" counts WG arrivals)
#   warpgroup WG producer (whole warpgroups are wgmma's rule; its first
#                warp's lane 0 does the work): one thread waits for a free stage, posts the
#                stage's bytes on "full" and issues two TMA loads (128B
#                swizzle, 256B L2 promotion): W rows (BW x 64) and the
#                token rows (BT x 64); rows past N, M and columns past K
#                are zero-filled by the tensor maps
# Split-K (SPLIT > 1) in one launch: every CTA stores its float32 partial
# tile to WS[s] (masked to M, N), fences (fence.acq_rel.gpu), and one
# thread counts the CTA in CNT[mt BT, nb BW] with atom.add; the CTA that
# counts SPLIT - 1 (the last) resets the counter to 0 for the next launch
# and sums the SPLIT partials in the fixed order s = 0 .. SPLIT - 1 (its
# own read back too), so the result does not depend on which CTA is
# last.  CNT must be all zero before the first launch; WS and CNT are
# unused when SPLIT == 1 or CRED == 1 (any arrays of their shapes).
# CRED = 1 (SPLIT 2..8) sums in shared memory instead: the SPLIT CTAs of
# a tile are one cluster (1, SPLIT, 1); after a cluster barrier CTAs
# 1 .. SPLIT - 1 store their partials into CTA 0's RED (mapa +
# st.shared::cluster), after a second one (release / acquire at
# cluster scope) CTA 0 adds them to its own in split order and runs the
# epilogue.  The ring shrinks by RED's (SPLIT - 1) BT / 2 x 128 WG
# floats; no global round trip, fence or counter (H200, 64 x 4096 x
# 4096, split 2: 13.0 us against 16.4 through WS).
# Epilogue on the float32 sums v, before the one cast to OUT:
#   y = act(alpha v + bias[n])      (bias when BIAS == 1)
#   y = y + beta R[m, n]            (when RESID == 1: beta C or a residual)
# act by ACT: 0 none, 1 relu, 2 gelu (tanh form), 3 silu.  Stores are
# direct and masked to m < M, n < N (any M, N >= 1); TMA needs the row
# stride K * 2 bytes to be a multiple of 16: K % 8 == 0 (E5015 at launch
# otherwise).
# W (K, N) reaches wgmma as an MN-major A operand (the descriptor's
# transpose bit, legal for 16-bit inputs): per warpgroup one TMA box of
# 64 k rows x 64 weight columns (128 bytes, the 128B swizzle's width)
# into that warpgroup's 64 rows of the stage; its row stride N * 2 must
# be a multiple of 16 then (N % 8 == 0).  W's dimensions (WR, WC) are
# only read by its tensor map: rows and columns past them are zeros, so a
# W smaller than (N, K) or (K, N) cannot be read out of bounds (the
# caller, kernels.matmul, checks the shapes).
# WGMMA must name the m64nBTk16 form for BT (a mismatch is a wgmma shape
# error at compile time).
# Float8 X and W (XT, WT float8_e4m3fn / float8_e5m2, EB = 1, W_KMAJOR =
# 1: wgmma reads float8 operands K-major only): the byte geometry is
# the same - a k-tile is one 128-byte swizzled row, now of 128 elements,
# and a tile call is 4 x m64nBTk32 (WGMMA must name the k32 form with
# the types) - and the scales of torch._scaled_mm apply to the float32
# sums before alpha: SCALE = 1 multiplies by SX[0] SW[0] (tensor-wise),
# SCALE = 2 by SX[m] SW[n] (row-wise); TMA then needs K % 16 == 0.
# SCALE = 3 is block-wise (two-level accumulation, as gemm_fp8_block.py):
# one k-tile is one 128-wide K block kb; its 4 wgmmas sum into a fresh
# accumulator (scale-d 0), wait_group 0, and the consumer promotes it
# into float32 registers, MA[r] += D[r] SW[kb of W row block] SX[kb,
# token].  SX is scale_a transposed and flattened, (KT, SXN / KT) with
# the tokens of K block kb contiguous in row kb (at least M of them), SW
# is scale_b (ceil(N / 128), KT) flattened: a warpgroup's 64 weight rows
# lie in one 128-row block (BW is a multiple of 64), so W's scale is one
# value per k-tile and warpgroup; each thread's BT / 4 tokens have one
# scale each, read from global memory (L1) before the stage's wait.
# The promoted sums replace the accumulators before the split-K sum and
# the epilogue, so both apply unchanged (alpha only).
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

WG = 1                  # consumer warpgroups; BW = 64 WG weight rows per CTA
BT = 16                 # tokens per CTA: wgmma N
WGMMA = "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16"
STAGES = 8              # TMA ring depth
SPLIT = 1               # K splits (grid.y)
BIAS = 0                # 1: add bias[n] (float32)
ACT = 0                 # 0 none, 1 relu, 2 gelu-tanh, 3 silu
RESID = 0               # 1: add beta R[m, n]
OUT = "bfloat16"        # C's dtype: bfloat16, float16 or float32
W_KMAJOR = 1            # 1: W (N, K); 0: W (K, N)
MINB = 1                # .minnctapersm: registers for MINB CTAs per SM
XT = "bfloat16"         # X's element type: bfloat16, float8_e4m3fn, float8_e5m2
WT = "bfloat16"         # W's
EB = 2                  # bytes per element of X and W: 2, or 1 for float8
SCALE = 0               # 0 none, 1 SX[0] SW[0] (tensor-wise), 2 SX[m] SW[n] (row-wise), 3 block-wise (float8, two-level)
CRED = 0                # 1 (SPLIT 2..8): the SPLIT CTAs of a tile are one cluster, summed in CTA 0's shared memory

BW = 64 * WG
# CRED 1: the partials of CTAs 1 .. SPLIT - 1, one float32 per register
# and consumer thread ((1, 1, 1) otherwise: no partials)
RED_SHAPE = (CRED * (SPLIT - 1) + 1 - CRED, CRED * (BT // 2) + 1 - CRED, CRED * 128 * WG + 1 - CRED)
STAGE_BYTES = (BW + BT) * 128
KB = 128 // EB          # k elements per 128-byte row: one k-tile
KW = 32 // EB           # k of one wgmma (k16, float8 k32): 32 bytes
SWE = 5 - EB            # the swizzle's 16-byte unit in elements, log2
# element strides of the A view (wgmma k slice, weight row, k) of one
# stage: K-major rows are weight rows, MN-major rows are k
KM = W_KMAJOR
A_SLICE = KW * KM + 1024 * (1 - KM)
A_ROW = KB * KM + (1 - KM)
A_K = KM + 64 * (1 - KM)

M = T.dynamic("M")
N = T.dynamic("N")
K = T.dynamic("K")
WR = T.dynamic("WR")
WC = T.dynamic("WC")
SXN = T.dynamic("SXN")
SWN = T.dynamic("SWN")


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
def gemm_swapab(X: T.Tensor((M, K), XT, align=16),
                W: T.Tensor((WR, WC), WT, align=16),
                C: T.Tensor((M, N), OUT),
                bias: T.Tensor((N,), "float32"),
                R: T.Tensor((M, N), OUT),
                WS: T.Tensor((SPLIT, M, N), "float32"),
                CNT: T.Tensor((M, N), "uint32"),
                SX: T.Tensor((SXN,), "float32"),
                SW: T.Tensor((SWN,), "float32"),
                alpha: T.float32, beta: T.float32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(T.ceildiv(N, BW), SPLIT, T.ceildiv(M, BT)), block=128 * WG + 128, cluster=(1, CRED * SPLIT + 1 - CRED, 1)),
                   kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=MINB))
    nb = T.cuda.block_idx("x")
    sk = T.cuda.block_idx("y")
    mt = T.cuda.block_idx("z")
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    lane = T.cuda.lane_id()
    KT = T.ceildiv(K, KB)
    KS = T.ceildiv(KT, SPLIT)
    k0 = T.min(sk * KS, KT)
    k1 = T.min(k0 + KS, KT)
    SA = T.alloc_shared((STAGES, BW, KB), WT, scope="shared.dyn", layout=T.ComposeLayout(SWE, 3, 3, T.TileLayout(T.S[(STAGES, BW, KB):(BW * KB, KB, 1)])), align=1024)
    SB = T.alloc_shared((STAGES, BT, KB), XT, scope="shared.dyn", layout=T.ComposeLayout(SWE, 3, 3, T.TileLayout(T.S[(STAGES, BT, KB):(BT * KB, KB, 1)])), align=1024)
    full = T.alloc_shared((STAGES,), "uint64", align=8)
    empty = T.alloc_shared((STAGES,), "uint64", align=8)
    last = T.alloc_shared((1,), "uint32", align=4)
    RED = T.alloc_shared(RED_SHAPE, "float32", scope="shared.dyn", align=16)
    wg = warp // 4 % WG  # the consumer warpgroup (warp < 4 WG); the % proves it in range
    # accumulators: warp w, register r of lane l at weight row
    # 16w + l/4 + 8((r/2)%2), token 8(r/4) + 2(l%4) + r%2
    D = T.alloc_local((4, 1, 1, 16, BT), "float32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, BT // 8, 4, 2):(1@wid_in_wg, BT // 2, BT // 2, 2, 4@laneid, 4, 1@laneid, 1)]))
    PD = D.view(BT // 2)
    if tid == 0:
        for j in T.unroll(STAGES):
            T.ptx.mbarrier.init.shared.b64(full.ptr_to([j]), T.uint32(1))
            T.ptx.mbarrier.init.shared.b64(empty.ptr_to([j]), T.uint32(WG))
        T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cta_sync()
    if warp == 4 * WG:
        if lane == 0:
            state: T.uint64 = T.uint64(0)
            # the ring slot and its pass's parity, stepped rather than
            # divided out of the k-tile count: a signed // or % by a
            # STAGES that is not a power of two cost more than the loop's
            # other work (H200, 64 x 4096 x 4096: STAGES 6 26.0 us, 8
            # 14.0 us), and even unsigned ptxas expands it into a
            # reciprocal sequence per k-tile (gemm_fp8_block.py); read as
            # T.min(., STAGES - 1), which the region checker bounds
            pq: T.uint32 = T.uint32(0)
            pph: T.uint32 = T.uint32(0)
            for it in range(k1 - k0):
                kp = k0 + it
                sp = T.min(pq, T.uint32(STAGES - 1))
                if it >= STAGES:
                    T.cuda.mbarrier_wait(empty.ptr_to([sp]), pph ^ T.uint32(1))
                T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, full.ptr_to([sp]), T.uint32(STAGE_BYTES))
                if W_KMAJOR == 1:
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                        SA.sub[sp, :, :], W, box=(BW, KB), coords=(nb * BW, kp * KB), swizzle=3,
                        l2_promotion=3, mbar=full.ptr_to([sp]))
                else:
                    for g in T.unroll(WG):
                        T.cuda.tile.apply(
                            T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                            SA.sub[sp, 64 * g:64 * g + 64, :], W, box=(64, KB), coords=(kp * KB, nb * BW + 64 * g), swizzle=3,
                            l2_promotion=3, mbar=full.ptr_to([sp]))
                T.cuda.tile.apply(
                    T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                    SB.sub[sp, :, :], X, box=(BT, KB), coords=(mt * BT, kp * KB), swizzle=3,
                    l2_promotion=3, mbar=full.ptr_to([sp]))
                pq += 1
                if pq == STAGES:
                    pq = T.uint32(0)
                    pph = pph ^ T.uint32(1)
    elif warp < 4 * WG:
        # stage s as (M_rep, K_rep, 64, 16) per warpgroup and (N_rep,
        # K_rep, BT, 16): K-major, k16 slice j starts 16 elements into
        # each swizzled 128-byte row; MN-major (W_KMAJOR = 0), it is 16
        # rows of k further (1024 elements), weight rows adjacent
        VA = SA.view(STAGES, WG, 1, 4, 64, KW, layout=T.ComposeLayout(SWE, 3, 3, T.TileLayout(T.S[(STAGES, WG, 1, 4, 64, KW):(BW * KB, 64 * KB, 64 * KB, A_SLICE, A_ROW, A_K)])))
        VB = SB.view(STAGES, 1, 4, BT, KW, layout=T.ComposeLayout(SWE, 3, 3, T.TileLayout(T.S[(STAGES, 1, 4, BT, KW):(BT * KB, BT * KB, KW, KB, 1)])))
        st2: T.uint64 = T.uint64(0)
        for r in T.unroll(BT // 2):
            PD[r] = T.float32(0.0)
        if SCALE == 3:
            # the promoted sums (register r as PD[r]), this thread's BT / 4
            # tokens (clamped into SX's rows) and their scales of one K
            # block: token 8(q / 2) + 2(l % 4) + q % 2 for q < BT / 4
            MA = T.alloc_local((BT // 2,), "float32", layout="default")
            TI = T.alloc_local((BT // 4,), "int32", layout="default")
            XS = T.alloc_local((BT // 4,), "float32", layout="default")
            sxm = SXN // T.max(KT, 1)  # SX's row length (tokens)
            # W's scale row: the 128-row block of this warpgroup's rows
            swr = T.min((nb * BW + 64 * wg) // 128, SWN // T.max(KT, 1) - 1) * KT
            for r in T.unroll(BT // 2):
                MA[r] = T.float32(0.0)
            for q in T.unroll(BT // 4):
                TI[q] = T.min(mt * BT + 8 * (q // 2) + 2 * (lane % 4) + q % 2, M - 1)
        cq: T.uint32 = T.uint32(0)  # stepped, as the producer's
        cph: T.uint32 = T.uint32(0)
        prv: T.uint32 = T.uint32(0)  # the previous k-tile's slot
        for it in range(k1 - k0):
            s = T.min(cq, T.uint32(STAGES - 1))
            if SCALE == 3:
                kq = k0 + it
                swk = SW[swr + kq]
                for q in T.unroll(BT // 4):
                    XS[q] = SX[kq * sxm + TI[q]]
            T.cuda.mbarrier_wait(full.ptr_to([s]), cph)
            T.ptx["wgmma.fence.sync.aligned"]()
            # block-wise: a fresh accumulator per K block (scale-d 0)
            T.cuda.tile.apply(T.ptx[WGMMA], D, VA.sub[s, wg, :, :, :, :], VB.sub[s, :, :, :, :], scope="warpgroup", accum=SCALE != 3)
            T.ptx["wgmma.commit_group.sync.aligned"]()
            if SCALE == 3:
                T.ptx["wgmma.wait_group.sync.aligned"](0)
                # this k-tile's operands are read: free its stage
                if tid % 128 == 0:
                    T.ptx.mbarrier.arrive.shared.b64(st2, empty.ptr_to([s]))
                for r in T.unroll(BT // 2):
                    MA[r] = MA[r] + PD[r] * (swk * XS[2 * (r // 4) + r % 2])
            else:
                # the previous k-tile's wgmmas are done: free its stage
                T.ptx["wgmma.wait_group.sync.aligned"](1)
                if it > 0 and tid % 128 == 0:
                    T.ptx.mbarrier.arrive.shared.b64(st2, empty.ptr_to([T.min(prv, T.uint32(STAGES - 1))]))
            prv = s
            cq += 1
            if cq == STAGES:
                cq = T.uint32(0)
                cph = cph ^ T.uint32(1)
        T.ptx["wgmma.wait_group.sync.aligned"](0)
        if SCALE == 3:
            for r in T.unroll(BT // 2):
                PD[r] = MA[r]
    if CRED == 1:
        # every thread of the cluster: after the first barrier no CTA
        # reads its ring any more, after the second (release / acquire
        # at cluster scope) CTA 0 sees the partials CTAs 1 .. SPLIT - 1
        # stored into its shared memory
        T.cuda.cluster_sync()
        if warp < 4 * WG and sk > 0:
            rb: T.uint32 = T.uint32(0)
            T.ptx["mapa.shared::cluster.u32"](rb, T.cast(RED.ptr_to([sk - 1, 0, tid]), "uint32"), 0)
            for r in T.unroll(BT // 2):
                T.ptx["st.shared::cluster.f32"](rb + T.uint32(r * 512 * WG), PD[r])
        T.cuda.cluster_sync()
    if warp < 4 * WG:
        E = T.alloc_local((BT // 2,), "float32", layout="default")
        w = warp % 4
        n0 = nb * BW + 64 * wg + 16 * w + lane // 4
        m0 = mt * BT + 2 * (lane % 4)
        done: T.uint32 = T.uint32(0)
        if SPLIT > 1 and CRED == 1:
            if sk > 0:
                done = T.uint32(1)
            else:
                # s = 0 .. SPLIT - 1 in order, as in the global sum below
                for r in T.unroll(BT // 2):
                    acc: T.float32 = PD[r]
                    for j in T.unroll(SPLIT - 1):
                        acc = acc + RED[j, r, tid]
                    PD[r] = acc
        if SPLIT > 1 and CRED == 0:
            for r in T.unroll(BT // 2):
                n = n0 + 8 * (r // 2 % 2)
                m = m0 + 8 * (r // 4) + r % 2
                if m < M and n < N:
                    WS[sk, m, n] = PD[r]
            # the partial is visible at gpu scope before it is counted
            T.ptx["fence.acq_rel.gpu"]()
            T.ptx["bar.sync"](1, 128 * WG)
            if tid == 0 and mt * BT < M and nb * BW < N:
                old: T.uint32 = T.uint32(0)
                T.ptx["atom.global.add.u32"](old, CNT.ptr_to([mt * BT, nb * BW]), T.uint32(1))
                # acquire: what the counted CTAs stored is visible here
                T.ptx["fence.acq_rel.gpu"]()
                if old == T.uint32(SPLIT - 1):
                    CNT[mt * BT, nb * BW] = T.uint32(0)
                last[0] = old
            T.ptx["bar.sync"](1, 128 * WG)
            if last[0] != T.uint32(SPLIT - 1):
                done = T.uint32(1)
            else:
                # the other CTAs' partials, after their counts: every
                # partial, this CTA's own too (stored above, so equal to
                # its registers), is read back in the fixed order s = 0
                # .. SPLIT - 1 at indices clamped into the tensor (rows
                # and columns past M, N are never stored to C), without
                # a branch: loads behind a branch each wait for the one
                # before (bench/README.md, session 4: split 2 at 1024^3
                # went from 33.7 to 18.1 us, at 128 x 4096 x 14336 from
                # 58.4 to 43.6 us)
                T.ptx["fence.acq_rel.gpu"]()
                for r in T.unroll(BT // 2):
                    n = T.min(n0 + 8 * (r // 2 % 2), N - 1)
                    m = T.min(m0 + 8 * (r // 4) + r % 2, M - 1)
                    v: T.float32 = T.float32(0.0)
                    for j in T.unroll(SPLIT):
                        v = v + WS[j, m, n]
                    PD[r] = v
        if done == T.uint32(0):
            al: T.float32 = alpha
            if SCALE == 1:
                al = al * SX[0] * SW[0]
            for r in T.unroll(BT // 2):
                n = n0 + 8 * (r // 2 % 2)
                y: T.float32 = al * PD[r]
                if SCALE == 2:
                    m = m0 + 8 * (r // 4) + r % 2
                    if m < M and n < N:
                        y = y * SX[m] * SW[n]
                if BIAS == 1:
                    # clamped, not guarded: see the split-K sum above
                    y = y + bias[T.min(n, N - 1)]
                E[r] = y
            if ACT == 1:
                T.cuda.tile.ewise(relu, E, E, scope="thread")
            if ACT == 2:
                T.cuda.tile.ewise(gelu, E, E, scope="thread")
            if ACT == 3:
                T.cuda.tile.ewise(silu, E, E, scope="thread")
            for r in T.unroll(BT // 2):
                n = n0 + 8 * (r // 2 % 2)
                m = m0 + 8 * (r // 4) + r % 2
                if m < M and n < N:
                    if RESID == 1:
                        C[m, n] = T.cast(E[r] + beta * T.cast(R[m, n], "float32"), OUT)
                    else:
                        C[m, n] = T.cast(E[r], OUT)
