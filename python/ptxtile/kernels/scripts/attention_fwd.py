# attention_fwd.py - attention forward on Hopper with tile calls (the
# FlashAttention-3 recipe): O = softmax(scale Q K^T [+ causal mask]) V for
# bf16 Q (batch, seq_q, heads, 128), K and V (batch, seq_k, kv_heads, 128)
# (FlashAttention's layout; kv_heads divides heads: GQA / MQA), bf16 O in
# Q's layout and the float32 log-sum-exp LSE (batch, heads, seq_q) of
# each row (natural log, scale included).  sm_90a.  The constants below
# give the other variants (head dim 64/256, fp16, causal, key block,
# ping-pong, variable length); docs/patterns.md section 8 walks through
# every call.
#
# One CTA (384 threads = 3 warpgroups) per 128 query rows of one head:
# grid (ceil(seq_q / 128), heads, batch), causal CTAs longest rows first.
# The key axis is walked in BLOCK_N-key blocks through a 2-stage ring of
# K and V tiles in shared memory (at the defaults Q 32 KiB + 2 x (32 +
# 32) KiB = 160 KiB of dynamic shared memory):
#   warpgroup 0  producer: setmaxnreg.dec 40; one thread loads Q once
#                (barrier "qfull") and, per key block, waits for a free
#                stage ("kempty"/"vempty", parity per ring pass), posts
#                the tile's transaction bytes and issues the TMA loads of
#                the K and V tiles (4-D maps (batch, seq, head, dim), box
#                (1, BLOCK_N, 1, 64), one issue per 64-column half of the
#                128B swizzle); rows past seq_k arrive as zeros
#   warpgroups 1, 2  consumers: setmaxnreg.inc 232; each owns 64 query
#                rows.  Iteration j issues S_j = Q K_j^T (one tile call
#                of 8 x wgmma m64n128k16, A = Q and B = K from shared
#                descriptors, K-major) and then O += P_{j-1} V_{j-1} (one
#                tile call of 8 x wgmma m64n128k16, A = P from registers,
#                B = V from shared memory, MN-major: V is (key, dim) with
#                dim contiguous); waits for S_j only (wait_group 1),
#                frees K_j, and runs the online softmax of S_j in float32
#                registers while P V runs: row max over the thread's 32
#                values of each of its two rows, then across the quad of
#                lanes that share the row (shfl.bfly 1 and 2); p = ex2(S
#                scale log2(e) - m) by fma + ex2.approx, log2(e)
#                pre-multiplied into the scale; the running sum stays per
#                thread until the end.  Then wait_group 0, the V stage is
#                freed, O is rescaled and P packed to bf16 pairs in
#                registers (the accumulator fragment of S is the
#                register-A fragment of P V: pair i = accumulators 2i,
#                2i+1).  Only the ragged last block and, causal, the
#                diagonal blocks are masked; causal blocks wholly above
#                the diagonal are never loaded.
#   epilogue     O / l (the quad's partial sums added by shuffles),
#                cvt.rn.bf16x2 pairs, masked st.global.b32 of rows <
#                seq_q; LSE by the first lane of each quad.
# Causal masking is top-left aligned (query i sees keys j <= i), as
# torch's scaled_dot_product_attention(is_causal=True).
# Sizes are runtime values: any batch, heads, seq_q, seq_k >= 1, kv_heads
# dividing heads; scale_log2 is the softmax scale times log2(e).  Q, K, V
# rows must be 16-byte aligned (TMA); O and LSE are dense.
# TIRx refuses: source and result must have equal element counts
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

# compile-time configuration (ptxtile.kernels.attention rewrites these
# lines for each variant; the defaults are the model kernel)
HEAD_DIM = 128   # 64, 128 or 256
DTYPE = "bfloat16"  # or "float16"
MMA_QK = "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"  # m64n{BLOCK_N}
MMA_PV = "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"  # m64n{HEAD_DIM}
CVT = "cvt.rn.bf16x2.f32"  # f16x2 for float16
CAUSAL = 0
BLOCK_N = 128    # keys per block (a multiple of 16; 64 at HEAD_DIM 256)
PINGPONG = 0     # 1: the two consumer warpgroups take turns issuing wgmma
STAGES = 2      # K/V ring depth (3 fits beside Q at key block 128, d <= 128)
NEG = -1.0e30    # masked scores: finite, so max/ex2 never see inf - inf
HALVES = HEAD_DIM // 64  # 64-column halves of the 128B swizzle per row
KSTAGE = HALVES * BLOCK_N * 64  # elements of one K (or V) stage
TILE_BYTES = BLOCK_N * HEAD_DIM * 2
Q_BYTES = 128 * HEAD_DIM * 2

nb = T.dynamic("batch")
sq = T.dynamic("seq_q")
sk = T.dynamic("seq_k")
nh = T.dynamic("heads")
nhk = T.dynamic("kv_heads")
# varlen-only: ncu = T.dynamic("batch_plus_1")


@T.function
def attention_fwd(Q: T.Tensor((nb, sq, nh, HEAD_DIM), DTYPE, align=16),
                  K: T.Tensor((nb, sk, nhk, HEAD_DIM), DTYPE, align=16),
                  V: T.Tensor((nb, sk, nhk, HEAD_DIM), DTYPE, align=16),
                  O: T.Tensor((nb, sq, nh, HEAD_DIM), DTYPE, align=16),
                  LSE: T.Tensor((nb, nh, sq), "float32", align=16),
                  scale_log2: T.float32):  # dense-only
# varlen-only:                   scale_log2: T.float32, CUQ: T.Tensor((ncu,), "int32", align=4), CUK: T.Tensor((ncu,), "int32", align=4), max_sq: T.int32):
    # .minnctapersm 1 gives the entry register cap setmaxnreg needs
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(T.ceildiv(sq, 128), nh, nb), block=384),  # dense-only
# varlen-only:     T.device_entry(launch=T.cuda.LaunchConfig(grid=(T.ceildiv(max_sq, 128), nh, ncu - 1), block=384),
                   kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=1))
    # the query block; causal CTAs take the longest rows first (block
    # ceil(seq_q / 128) - 1 has the most key blocks), so the short ones
    # fill the last wave
    mb: T.int32 = T.cuda.block_idx("x")
    if CAUSAL != 0:
        mb = T.ceildiv(sq, 128) - 1 - mb  # dense-only
        # varlen-only:         mb = T.ceildiv(max_sq, 128) - 1 - mb
    head = T.cuda.block_idx("y")
    bat = T.cuda.block_idx("z")
    hk = head // (nh // nhk)  # the K/V head this query head reads
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    lane = T.cuda.lane_id()
    m0 = mb * 128
    # the sequence: its rows of Q/O and K/V (offsets into the seq axis),
    # its lengths, and the batch coordinate of the TMA maps
    qoff: T.int32 = 0
    koff: T.int32 = 0
    lq: T.int32 = sq
    lk: T.int32 = sk
    tb: T.int32 = bat
    # varlen-only:     qoff = CUQ[bat]
    # varlen-only:     koff = CUK[bat]
    # varlen-only:     lq = CUQ[bat + 1] - qoff
    # varlen-only:     lk = CUK[bat + 1] - koff
    # varlen-only:     tb = 0
    KB = T.ceildiv(lk, BLOCK_N)
    # key blocks this CTA needs: causal stops at the block holding its
    # last query row's diagonal
    NBLK = KB
    if CAUSAL != 0:
        NBLK = T.min(KB, T.ceildiv(T.min(m0 + 128, lq), BLOCK_N))
    if m0 >= lq:
        NBLK = 0  # varlen: this sequence is shorter than the grid's
    # Q, and each stage of K and V: HALVES 64-column halves of the rows,
    # 128B swizzle (the TMA maps' and the descriptors')
    SQ = T.alloc_shared((HALVES, 1, 128, 1, 64), DTYPE, scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(HALVES, 1, 128, 1, 64):(8192, 8192, 64, 64, 1)])), align=1024)
    SK = T.alloc_shared((STAGES, HALVES, 1, BLOCK_N, 1, 64), DTYPE, scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(STAGES, HALVES, 1, BLOCK_N, 1, 64):(KSTAGE, BLOCK_N * 64, BLOCK_N * 64, 64, 64, 1)])), align=1024)
    SV = T.alloc_shared((STAGES, HALVES, 1, BLOCK_N, 1, 64), DTYPE, scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(STAGES, HALVES, 1, BLOCK_N, 1, 64):(KSTAGE, BLOCK_N * 64, BLOCK_N * 64, 64, 64, 1)])), align=1024)
    qfull = T.alloc_shared((1,), "uint64", align=8)
    kfull = T.alloc_shared((STAGES,), "uint64", align=8)
    kempty = T.alloc_shared((STAGES,), "uint64", align=8)
    vfull = T.alloc_shared((STAGES,), "uint64", align=8)
    vempty = T.alloc_shared((STAGES,), "uint64", align=8)
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(qfull.ptr_to([0]), T.uint32(1))
        for j in T.unroll(STAGES):
            T.ptx.mbarrier.init.shared.b64(kfull.ptr_to([j]), T.uint32(1))
            T.ptx.mbarrier.init.shared.b64(vfull.ptr_to([j]), T.uint32(1))
            # one arrival per consumer warpgroup frees a stage
            T.ptx.mbarrier.init.shared.b64(kempty.ptr_to([j]), T.uint32(2))
            T.ptx.mbarrier.init.shared.b64(vempty.ptr_to([j]), T.uint32(2))
        T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cta_sync()
    if warp < 4:
        T.ptx["setmaxnreg.dec.sync.aligned.u32"](40)
        if tid == 0:
            state: T.uint64 = T.uint64(0)
            T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, qfull.ptr_to([0]), T.uint32(Q_BYTES))
            T.cuda.tile.apply(
                T.ptx["cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                SQ, Q, box=(1, 128, 1, 64), coords=(tb, qoff + m0, head, 0), coord_steps=((0, 0, 0, 64),),
                swizzle=3, l2_promotion=3, mbar=qfull.ptr_to([0]))
            for j in range(NBLK):
                sp = j % STAGES
                if j >= STAGES:
                    T.cuda.mbarrier_wait(kempty.ptr_to([sp]), (j // STAGES - 1) % 2)
                T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, kfull.ptr_to([sp]), T.uint32(TILE_BYTES))
                T.cuda.tile.apply(
                    T.ptx["cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                    SK.sub[sp, :, :, :, :, :], K, box=(1, BLOCK_N, 1, 64), coords=(tb, koff + j * BLOCK_N, hk, 0), coord_steps=((0, 0, 0, 64),),
                    swizzle=3, l2_promotion=3, mbar=kfull.ptr_to([sp]))
                if j >= STAGES:
                    T.cuda.mbarrier_wait(vempty.ptr_to([sp]), (j // STAGES - 1) % 2)
                T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, vfull.ptr_to([sp]), T.uint32(TILE_BYTES))
                T.cuda.tile.apply(
                    T.ptx["cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                    SV.sub[sp, :, :, :, :, :], V, box=(1, BLOCK_N, 1, 64), coords=(tb, koff + j * BLOCK_N, hk, 0), coord_steps=((0, 0, 0, 64),),
                    swizzle=3, l2_promotion=3, mbar=vfull.ptr_to([sp]))
    else:
        T.ptx["setmaxnreg.inc.sync.aligned.u32"](232)
        wg = warp // 8  # consumer warpgroups 1, 2 (warps 4-7, 8-11) -> 0, 1
        w = warp % 4
        g = lane // 4
        t = lane % 4
        # A = the warpgroup's 64 rows of Q as (M_rep, K_rep, 64, 16): k16
        # slice kk in half kk / 4, 32 bytes per slice into the swizzled
        # 128-byte rows
        VQ = SQ.view(2, 1, 4 * HALVES, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(2, 1, HALVES, 4, 64, 16):(4096, 0, 8192, 16, 64, 1)])))
        # B = the stage's keys of K as (N_rep, K_rep, BLOCK_N, 16), K-major
        VK = SK.view(STAGES, 1, 4 * HALVES, BLOCK_N, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(STAGES, 1, HALVES, 4, BLOCK_N, 16):(KSTAGE, 0, BLOCK_N * 64, 16, 64, 1)])))
        # B = V as (N_rep, K_rep, HEAD_DIM, 16 keys), MN-major (V is (key,
        # dim) with dim contiguous): dim n in half n / 64, key slice kk 16
        # rows of 64 elements further
        VV = SV.view(STAGES, 1, BLOCK_N // 16, HEAD_DIM, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(STAGES, 1, BLOCK_N // 16, HALVES, 64, 16):(KSTAGE, 0, 1024, BLOCK_N * 64, 1, 64)])))
        # accumulators: register r of lane l of warp w at (16w + l/4 +
        # 8((r/2)%2), 8(r/4) + 2(l%4) + r%2)
        S = T.alloc_local((4, 1, 1, 16, BLOCK_N), "float32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, BLOCK_N // 8, 4, 2):(1@wid_in_wg, BLOCK_N // 2, BLOCK_N // 2, 2, 4@laneid, 4, 1@laneid, 1)]))
        Oacc = T.alloc_local((4, 1, 1, 16, HEAD_DIM), "float32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, HEAD_DIM // 8, 4, 2):(1@wid_in_wg, HEAD_DIM // 2, HEAD_DIM // 2, 2, 4@laneid, 4, 1@laneid, 1)]))
        # P as register A (M_rep, K_rep, 16, 8 containers): container r
        # of k16 slice kk at (l/4 + 8(r%2), l%4 + 4(r/2)) is slot 4kk + r,
        # which holds accumulators 8kk + 2r, 8kk + 2r + 1 of S
        P = T.alloc_local((4, 1, BLOCK_N // 16, 16, 8), "uint32", layout=T.TileLayout(T.S[(4, 1, BLOCK_N // 16, 2, 8, 2, 4):(1@wid_in_wg, BLOCK_N // 4, 4, 1, 4@laneid, 2, 1@laneid)]))
        PS = S.view(BLOCK_N // 2)
        PO = Oacc.view(HEAD_DIM // 2)
        PP = P.view(BLOCK_N // 4)
        # the thread's two rows (h = 0, 1: row g, g + 8 of its warp's 16):
        # running max (scaled, log2 units), partial sum, rescale factor
        mrow = T.alloc_local((2,), "float32", layout="default")
        lrow = T.alloc_local((2,), "float32", layout="default")
        corr = T.alloc_local((2,), "float32", layout="default")
        red: T.float32 = T.float32(0)
        state2: T.uint64 = T.uint64(0)
        for h in T.unroll(2):
            mrow[h] = T.float32(NEG)
            lrow[h] = T.float32(0)
        for i in T.unroll(HEAD_DIM // 2):
            PO[i] = T.float32(0)
        row0 = m0 + wg * 64 + 16 * w + g  # the thread's row h = 0
        if PINGPONG != 0 and wg == 1:
            T.ptx["bar.arrive"](3, 256)  # warpgroup 0 issues first
        T.cuda.mbarrier_wait(qfull.ptr_to([0]), 0)
        # P starts as zeros: iteration 0's P V adds nothing (it reads V_0,
        # which is loaded, so no stale NaN can enter)
        for i in T.unroll(BLOCK_N // 4):
            PP[i] = T.uint32(0)
        # iteration j issues S_j = Q K_j^T, then O += P_{j-1} V_{j-1}, and
        # runs the softmax of S_j while the second GEMM is in flight.  The
        # body has no branch around a wgmma or its wait: on such a path
        # ptxas serialises every wgmma of the kernel (C7518)
        for j in range(NBLK):
            s = j % STAGES
            n0 = j * BLOCK_N
            jp = T.max(j - 1, 0)  # the block whose P V is issued
            if PINGPONG != 0:
                T.ptx["bar.sync"](3 + wg, 256)
            T.cuda.mbarrier_wait(kfull.ptr_to([s]), (j // STAGES) % 2)
            T.ptx["wgmma.fence.sync.aligned"]()
            T.cuda.tile.apply(T.ptx[MMA_QK], S, VQ.sub[wg, :, :, :, :], VK.sub[s, :, :, :, :], scope="warpgroup")
            T.ptx["wgmma.commit_group.sync.aligned"]()
            T.cuda.mbarrier_wait(vfull.ptr_to([jp % STAGES]), (jp // STAGES) % 2)
            T.ptx["wgmma.fence.sync.aligned"]()
            T.cuda.tile.apply(T.ptx[MMA_PV], Oacc, P, VV.sub[jp % STAGES, :, :, :, :], scope="warpgroup", accum=True)
            T.ptx["wgmma.commit_group.sync.aligned"]()
            if PINGPONG != 0:
                T.ptx["bar.arrive"](4 - wg, 256)  # the other warpgroup's turn
            # S_j is done (the P V group may still run): free K_j
            T.ptx["wgmma.wait_group.sync.aligned"](1)
            if tid % 128 == 0:
                T.ptx.mbarrier.arrive.shared.b64(state2, kempty.ptr_to([s]))
            # mask the ragged last block and, causal, the diagonal
            # ones (keys past the CTA's first row); a condition of the
            # CTA alone: ptxas serialises the wgmmas when their
            # accumulators are rewritten on a path it cannot prove
            # warpgroup-uniform
            if n0 + BLOCK_N > lk or (CAUSAL != 0 and n0 + BLOCK_N - 1 > m0):
                for a in T.unroll(BLOCK_N // 2):
                    col = n0 + 8 * (a // 4) + 2 * t + a % 2
                    row = row0 + 8 * ((a // 2) % 2)
                    ok = col < lk
                    if CAUSAL != 0:
                        ok = ok and col <= row
                    PS[a] = T.if_then_else(ok, PS[a], T.float32(NEG))
            # row max: the thread's values, then the quad (lanes 4g..)
            for h in T.unroll(2):
                mx: T.float32 = PS[2 * h]
                for c in T.unroll(BLOCK_N // 8):
                    mx = T.max(mx, T.max(PS[4 * c + 2 * h], PS[4 * c + 2 * h + 1]))
                T.ptx["shfl.sync.bfly.b32"](red, mx, 1, 31, T.uint32(4294967295))
                mx = T.max(mx, red)
                T.ptx["shfl.sync.bfly.b32"](red, mx, 2, 31, T.uint32(4294967295))
                mx = T.max(mx, red)
                mnew = T.max(mrow[h], mx * scale_log2)
                corr[h] = T.exp2(mrow[h] - mnew)
                mrow[h] = mnew
            # p = 2^(S scale log2(e) - m); the running sums
            for h in T.unroll(2):
                sm: T.float32 = T.float32(0)
                for c in T.unroll(BLOCK_N // 8):
                    for e in T.unroll(2):
                        PS[4 * c + 2 * h + e] = T.exp2(T.fma(PS[4 * c + 2 * h + e], scale_log2, -mrow[h]))
                        sm = sm + PS[4 * c + 2 * h + e]
                lrow[h] = lrow[h] * corr[h] + sm
            # P_{j-1} V_{j-1} is done: its V stage is free (V_0 stays
            # loaded until iteration 1 has used it), P and O may be
            # rewritten
            T.ptx["wgmma.wait_group.sync.aligned"](0)
            if j > 0 and tid % 128 == 0:
                T.ptx.mbarrier.arrive.shared.b64(state2, vempty.ptr_to([jp % STAGES]))
            for a in T.unroll(HEAD_DIM // 2):
                PO[a] = PO[a] * corr[(a // 2) % 2]
            for i in T.unroll(BLOCK_N // 4):
                T.ptx[CVT](PP[i], PS[2 * i + 1], PS[2 * i])
        # the last block's P V
        if PINGPONG != 0:
            T.ptx["bar.sync"](3 + wg, 256)
        if NBLK > 0:
            T.cuda.mbarrier_wait(vfull.ptr_to([(NBLK - 1) % STAGES]), ((NBLK - 1) // STAGES) % 2)
        T.ptx["wgmma.fence.sync.aligned"]()
        T.cuda.tile.apply(T.ptx[MMA_PV], Oacc, P, VV.sub[(NBLK + STAGES - 1) % STAGES, :, :, :, :], scope="warpgroup", accum=True)  # stage (NBLK - 1) % STAGES
        T.ptx["wgmma.commit_group.sync.aligned"]()
        if PINGPONG != 0 and wg == 0:
            T.ptx["bar.arrive"](4, 256)
        T.ptx["wgmma.wait_group.sync.aligned"](0)
        # epilogue: the quad's partial sums, O / l, 16-bit pairs, rows < lq
        for h in T.unroll(2):
            T.ptx["shfl.sync.bfly.b32"](red, lrow[h], 1, 31, T.uint32(4294967295))
            lrow[h] = lrow[h] + red
            T.ptx["shfl.sync.bfly.b32"](red, lrow[h], 2, 31, T.uint32(4294967295))
            lrow[h] = lrow[h] + red
            corr[h] = T.if_then_else(lrow[h] > T.float32(0), T.float32(1) / lrow[h], T.float32(0))
        for i in T.unroll(HEAD_DIM // 4):
            row = row0 + 8 * (i % 2)
            col = 8 * (i // 2) + 2 * t
            pair: T.uint32 = T.uint32(0)
            T.ptx[CVT](pair, PO[2 * i + 1] * corr[i % 2], PO[2 * i] * corr[i % 2])
            if row < lq:
                T.ptx["st.global.b32"](O.ptr_to([tb, qoff + row, head, col]), pair)
        for h in T.unroll(2):
            row = row0 + 8 * h
            if t == 0 and row < lq:
                LSE[tb, head, qoff + row] = (mrow[h] + T.log2(lrow[h])) * T.float32(0.6931471805599453)
