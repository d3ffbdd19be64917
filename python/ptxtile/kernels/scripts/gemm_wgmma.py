# gemm_wgmma.py - a Hopper GEMM with wgmma tile calls: C = A @ B.T for
# bf16 A (M, K) and B (N, K) (both K-contiguous, row-major), float32
# accumulation, bf16 C (M, N).  sm_90a.
#
# Persistent, in clusters of 2 CTAs (384 threads = 3 warpgroups, one CTA
# per SM): the grid is 2 min(max(sms / 2, 1), pairs) CTAs (sms = the
# device's SM count, passed by the caller); cluster c takes the
# ceil(M/256) x ceil(N/256) blocks of C of 256 x 256 in turn (block = c,
# + sms/2, ...), CTA rank r its 128 x 256 tile of rows 128 r .., walking
# K in ceil(K/64) 64-wide k-tiles through one 4-stage ring of
# shared-memory buffers (4 x 48 KiB dynamic shared memory) whose slot and
# parity continue across tiles:
#   warpgroup 0  producer: setmaxnreg.dec 40; one thread waits for a
#                free stage (mbarrier "empty", parity per ring pass),
#                posts 48 KiB of transaction bytes on "full" and issues
#                two TMA loads (128B swizzle, 256B L2 promotion) that
#                complete on it: its A box (128 x 64), and its half of
#                the tile's B box (128 of the 256 x 64 rows) multicast to
#                both CTAs of the cluster (the peer sends the other half)
#   warpgroups 1, 2  consumers: setmaxnreg.inc 232; each owns 64 rows of
#                the tile and 128 float32 accumulators per thread; per
#                k-tile: wait "full", wgmma.fence, one tile call = 4 x
#                wgmma m64n256k16 (K_rep 4, descriptors +32 B per k16
#                slice inside the 128-byte swizzled rows), commit_group,
#                wait_group 1 (the previous k-tile's wgmmas are done), and
#                frees that k-tile's stage in both CTAs ("empty" counts 4
#                arrivals: thread r of each consumer warpgroup arrives on
#                CTA r's barrier, mapa + mbarrier.arrive.shared::cluster;
#                the .release.cluster form of that arrive measured 25%
#                slower on the H200, the default .release.cta is what
#                CUTLASS uses)
#   epilogue     through shared memory (the stages are freed first, so
#                the producer is already loading the next tile's
#                k-tiles): per consumer warpgroup, its 64 x 256 block in
#                four 64 x 64 quarters; each is converted to bf16 pairs
#                (cvt.rn.bf16x2.f32) and written with 4 stmatrix.x4 per
#                thread into one of the warpgroup's two 8 KiB buffers
#                (128B swizzle, 32 KiB beside the 192 KiB ring; the four
#                swizzled store offsets are computed once per thread,
#                the odd quarter adds a constant), then
#                fence.proxy.async, a named barrier of the warpgroup, and
#                one thread issues the quarter's TMA store (bulk group);
#                before a buffer is rewritten that thread waits with
#                cp.async.bulk.wait_group.read 1 for the store that read
#                it, so the consumers go on to the next tile while the
#                last stores drain.  Measured 1.11-1.22x the direct
#                masked st.global epilogue (examples/gemm_wgmma_direct.py)
#                on the H200 (bench/README.md)
# Sizes are runtime values, any M >= 1, N >= 8 (and sms >= 1); the edges
# are ragged (with an odd number of 128-row tiles the last rank-1 CTA
# loads zeros and stores nothing): the tensor maps are encoded at launch
# from the real shapes, so the TMA boxes are zero-filled past M, N and K
# (the zeros add nothing) and the TMA stores are clipped at M and N.  TMA
# needs the row strides K * 2 and N * 2 bytes to be multiples of 16:
# K % 8 == 0 and N % 8 == 0, else the launch fails with E5015
# (PT_E_RT_ARG_STRIDE) before the driver is called; for other N use
# examples/gemm_wgmma_direct.py (direct stores, any N).
# TIRx refuses: source and result must have equal element counts
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

M = T.dynamic("M")
N = T.dynamic("N")
K = T.dynamic("K")


@T.function
def gemm_wgmma(A: T.Tensor((M, K), "bfloat16", align=16),
               B: T.Tensor((N, K), "bfloat16", align=16),
               C: T.Tensor((M, N), "bfloat16", align=16),
               sms: T.int32):
    # .minnctapersm 1 gives the entry register cap setmaxnreg needs
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2 * T.min(T.max(sms // 2, 1), T.ceildiv(M, 256) * T.ceildiv(N, 256)), block=384, cluster=2),
                   kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=1))
    cid = T.cuda.block_idx("x") // 2  # the cluster: a 256 x 256 block of C
    rank = T.cuda.cluster_cta_id("x")  # its upper or lower 128 rows
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    lane = T.cuda.lane_id()
    NT = T.ceildiv(N, 256)
    PAIRS = T.ceildiv(M, 256) * NT
    NCL = T.max(sms // 2, 1)  # clusters in the grid (or more)
    KT = T.ceildiv(K, 64)
    SA = T.alloc_shared((4, 128, 64), "bfloat16", scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(4, 128, 64):(8192, 64, 1)])), align=1024)
    SB = T.alloc_shared((4, 256, 64), "bfloat16", scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(4, 256, 64):(16384, 64, 1)])), align=1024)
    # C staging: per consumer warpgroup two 64 x 64 buffers, 128B swizzle
    SC = T.alloc_shared((2, 2, 64, 64), "bfloat16", scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(2, 2, 64, 64):(8192, 4096, 64, 1)])), align=1024)
    full = T.alloc_shared((4,), "uint64", align=8)
    empty = T.alloc_shared((4,), "uint64", align=8)
    if tid == 0:
        for j in T.unroll(4):
            T.ptx.mbarrier.init.shared.b64(full.ptr_to([j]), T.uint32(1))
            # both CTAs' consumer warpgroups free a stage: B is shared
            T.ptx.mbarrier.init.shared.b64(empty.ptr_to([j]), T.uint32(4))
        T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()  # the peer's barriers exist before any arrive
    if warp < 4:
        T.ptx["setmaxnreg.dec.sync.aligned.u32"](40)
        if tid == 0:
            state: T.uint64 = T.uint64(0)
            pit: T.int32 = 0  # k-tiles issued so far: ring slot and pass
            for ptile in range(cid, PAIRS, NCL):
                pbm = ptile // NT * 2 + rank
                pbn = ptile % NT
                for kp in range(KT):
                    sp = pit % 4
                    if pit >= 4:
                        T.cuda.mbarrier_wait(empty.ptr_to([sp]), (pit // 4 - 1) % 2)
                    T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, full.ptr_to([sp]), T.uint32(49152))
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                        SA.sub[sp, :, :], A, box=(128, 64), coords=(pbm * 128, kp * 64), swizzle=3,
                        l2_promotion=3, mbar=full.ptr_to([sp]))
                    # this CTA's half of B, into both CTAs' stage sp
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"],
                        SB.sub[sp, rank * 128:rank * 128 + 128, :], B, box=(128, 64), coords=(pbn * 256 + rank * 128, kp * 64), swizzle=3,
                        l2_promotion=3, mbar=full.ptr_to([sp]), cta_mask=T.uint16(3))
                    pit += 1
    else:
        T.ptx["setmaxnreg.inc.sync.aligned.u32"](232)
        wg = warp // 8  # consumer warpgroups 1, 2 (warps 4-7, 8-11) -> 0, 1
        # the warpgroup's 64 rows of stage s as (M_rep, K_rep, 64, 16) and
        # all 256 rows of B as (N_rep, K_rep, 256, 16): k16 slice j starts
        # 16 elements (32 bytes) into each swizzled 128-byte row
        VA = SA.view(4, 2, 1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(4, 2, 1, 4, 64, 16):(8192, 4096, 4096, 16, 64, 1)])))
        VB = SB.view(4, 1, 4, 256, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(4, 1, 4, 256, 16):(16384, 16384, 16, 64, 1)])))
        # accumulators: warp w of the warpgroup, register r of lane l at
        # (16w + l/4 + 8((r/2)%2), 8(r/4) + 2(l%4) + r%2)
        D = T.alloc_local((4, 1, 1, 16, 256), "float32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, 32, 4, 2):(1@wid_in_wg, 128, 128, 2, 4@laneid, 4, 1@laneid, 1)]))
        PD = D.view(128)
        w = warp % 4
        g = lane // 4
        t = lane % 4
        cit: T.int32 = 0  # k-tiles consumed so far
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
            cbm = ctile // NT * 2 + rank
            cbn = ctile % NT
            for kt in range(KT):
                s = cit % 4
                T.cuda.mbarrier_wait(full.ptr_to([s]), (cit // 4) % 2)
                T.ptx["wgmma.fence.sync.aligned"]()
                T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"],
                                  D, VA.sub[s, wg, :, :, :, :], VB.sub[s, :, :, :, :], scope="warpgroup", accum=kt > 0)
                T.ptx["wgmma.commit_group.sync.aligned"]()
                # the previous k-tile's wgmmas are done: free its stage
                T.ptx["wgmma.wait_group.sync.aligned"](1)
                if kt > 0 and tid % 128 < 2:
                    T.ptx["mapa.shared::cluster.u32"](rel, T.cast(empty.ptr_to([(cit + 3) % 4]), "uint32"), tid % 128)
                    T.ptx["mbarrier.arrive.shared::cluster.b64"](rel)
                cit += 1
            T.ptx["wgmma.wait_group.sync.aligned"](0)
            if tid % 128 < 2:
                T.ptx["mapa.shared::cluster.u32"](rel, T.cast(empty.ptr_to([(cit + 3) % 4]), "uint32"), tid % 128)
                T.ptx["mbarrier.arrive.shared::cluster.b64"](rel)
            # epilogue (the producer already fills the next tile's stages)
            # through shared memory: the warpgroup's 64 x 256 block of C
            # in four 64 x 64 quarters, each converted to bf16 pairs and
            # written with stmatrix into one of its two buffers, then
            # stored by one thread with one TMA store (clipped at M, N)
            for q in T.unroll(4):
                # the store that read this buffer two quarters ago (or in
                # the previous tile) has finished reading it
                if tid % 128 == 0:
                    T.ptx["cp.async.bulk.wait_group.read"](1)
                T.ptx["bar.sync"](1 + wg, 128)
                for cb in T.unroll(4):
                    # matrix j of the x4: 8-column block 8q + 2cb + j/2,
                    # rows 8(j%2) .. of the warp's 16 = accumulator pair
                    # 2(8q + 2cb) + j
                    T.ptx["cvt.rn.bf16x2.f32"](p0, PD[32 * q + 8 * cb + 1], PD[32 * q + 8 * cb])
                    T.ptx["cvt.rn.bf16x2.f32"](p1, PD[32 * q + 8 * cb + 3], PD[32 * q + 8 * cb + 2])
                    T.ptx["cvt.rn.bf16x2.f32"](p2, PD[32 * q + 8 * cb + 5], PD[32 * q + 8 * cb + 4])
                    T.ptx["cvt.rn.bf16x2.f32"](p3, PD[32 * q + 8 * cb + 7], PD[32 * q + 8 * cb + 6])
                    T.ptx["stmatrix.sync.aligned.m8n8.x4.shared.b16"](SCE.ptr_to([EO[cb] + 4096 * (q % 2)]), p0, p1, p2, p3)
                T.ptx.fence.proxy.async_.shared__cta()
                T.ptx["bar.sync"](1 + wg, 128)
                if tid % 128 == 0:
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
                        C, SC.sub[wg, q % 2, :, :], box=(64, 64), coords=(cbm * 128 + wg * 64, cbn * 256 + 64 * q), swizzle=3)
                    T.ptx.cp.async_.bulk.commit_group()
        # the last stores have read their buffers before shared memory
        # goes away
        if tid % 128 == 0:
            T.ptx.cp.async_.bulk.wait_group(0)
    # no CTA leaves while its peer may still arrive on its barriers
    T.cuda.cluster_sync()
