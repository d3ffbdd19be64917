# gemm_fp8.py - a per-tensor scaled FP8 GEMM on Hopper (sm_90a):
# C = sa * sb * (A @ B.T) for float8 A (M, K) and B (N, K) (both
# K-contiguous, row-major; e4m3 by default, AT / BT below pick e5m2),
# float32 accumulation in the wgmma accumulators, bf16 C (M, N) (or
# float32: CT / F32 / CW); sa and sb are one float32 each, read from
# device memory (scale_a[0], scale_b[0], as torch._scaled_mm's
# tensor-wise scales).
#
# The recipe is examples/gemm_wgmma.py's (read its header) with the
# byte geometry unchanged: one k-tile is 128 float8 elements = one
# 128-byte swizzled row, so at BN = 256 the ring stage is still A 128 x
# 128 (16 KiB) + B 256 x 128 (32 KiB) = 48 KiB, four stages, and one
# tile call per k-tile is 4 x wgmma m64n256k32 (K_rep 4, descriptors
# +32 B per k32 slice).  BN (the tile's columns, 256 / 192 / 128 / 64)
# and ST (the ring's stages) are module constants that
# ptxtile.kernels.fp8 tunes per shape; each CTA multicasts BN / 2 rows of
# B to both CTAs of its cluster.  The epilogue multiplies the BN / 2
# float32 sums of each thread by sa * sb, then converts to bf16 and
# stores through stmatrix + TMA stores (float32 C: st.shared.v2.f32
# pairs into the same swizzled buffers, TMA stores of 64 x 32).  There
# is no promotion: the sums stay in the wgmma accumulators for the whole
# K (examples/gemm_fp8_block.py promotes).  Sizes are runtime values,
# any M >= 1; TMA needs the row strides of A, B and C to be multiples of
# 16 bytes: K % 16 == 0 and N % 8 == 0, else the launch fails with
# E5015 before the driver is called.
# TIRx refuses: source and result must have equal element counts
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

AT = "float8_e4m3fn"  # A's element type: "float8_e4m3fn" or "float8_e5m2"
BT = "float8_e4m3fn"  # B's
BN = 256  # tile columns per CTA: 256, 192, 128 or 64 (MMA's n must match)
MMA = "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3"  # .e5m2 to match AT / BT
GM = 1  # tile order: GM cluster rows (256 rows each) per group, column by column (1: row by row)
ST = 4  # ring stages of 16 + BN / 8 KiB (BN 256 and 192: 4, 128: 6, 64: 8 fit beside the 32 KiB of C staging)

CT = "bfloat16"  # C's element type: "bfloat16" or "float32" (F32 and CW must match)
F32 = 0  # 1 when CT is "float32"
CW = 64  # columns of one C staging row of 128 bytes: 64 bf16, 32 float32

M = T.dynamic("M")
N = T.dynamic("N")
K = T.dynamic("K")


@T.function
def gemm_fp8(A: T.Tensor((M, K), AT, align=16),
             B: T.Tensor((N, K), BT, align=16),
             C: T.Tensor((M, N), CT, align=16),
             scale_a: T.Tensor((1,), "float32", align=4),
             scale_b: T.Tensor((1,), "float32", align=4),
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
    KT = T.ceildiv(K, 128)
    SA = T.alloc_shared((ST, 128, 128), AT, scope="shared.dyn", layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(ST, 128, 128):(16384, 128, 1)])), align=1024)
    SB = T.alloc_shared((ST, BN, 128), BT, scope="shared.dyn", layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(ST, BN, 128):(BN * 128, 128, 1)])), align=1024)
    # C staging: per consumer warpgroup two 64 x 64 buffers, 128B swizzle
    SC = T.alloc_shared((2, 2, 64, CW), CT, scope="shared.dyn", layout=T.ComposeLayout(3 - F32, 3, 3, T.TileLayout(T.S[(2, 2, 64, CW):(128 * CW, 64 * CW, CW, 1)])), align=1024)
    full = T.alloc_shared((ST,), "uint64", align=8)
    empty = T.alloc_shared((ST,), "uint64", align=8)
    if tid == 0:
        for j in T.unroll(ST):
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
                    sp = pit % ST
                    if pit >= ST:
                        T.cuda.mbarrier_wait(empty.ptr_to([sp]), (pit // ST + 1) % 2)
                    T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, full.ptr_to([sp]), T.uint32(16384 + BN * 128))
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                        SA.sub[sp, :, :], A, box=(128, 128), coords=(pbm * 128, kp * 128), swizzle=3,
                        l2_promotion=3, mbar=full.ptr_to([sp]))
                    # this CTA's half of B, into both CTAs' stage sp
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"],
                        SB.sub[sp, rank * (BN // 2):rank * (BN // 2) + BN // 2, :], B, box=(BN // 2, 128), coords=(pbn * BN + rank * (BN // 2), kp * 128), swizzle=3,
                        l2_promotion=3, mbar=full.ptr_to([sp]), cta_mask=T.uint16(3))
                    pit += 1
    else:
        T.ptx["setmaxnreg.inc.sync.aligned.u32"](232)
        wg = warp // 8  # consumer warpgroups 1, 2 (warps 4-7, 8-11) -> 0, 1
        # the warpgroup's 64 rows of stage s as (M_rep, K_rep, 64, 32) and
        # all BN rows of B as (N_rep, K_rep, BN, 32): k32 slice j starts
        # 16 elements (32 bytes) into each swizzled 128-byte row
        VA = SA.view(ST, 2, 1, 4, 64, 32, layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(ST, 2, 1, 4, 64, 32):(16384, 8192, 8192, 32, 128, 1)])))
        VB = SB.view(ST, 1, 4, BN, 32, layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(ST, 1, 4, BN, 32):(BN * 128, BN * 128, 32, 128, 1)])))
        # accumulators: warp w of the warpgroup, register r of lane l at
        # (16w + l/4 + 8((r/2)%2), 8(r/4) + 2(l%4) + r%2)
        D = T.alloc_local((4, 1, 1, 16, BN), "float32", layout=T.TileLayout(T.S[(4, 1, 1, 2, 8, BN // 8, 4, 2):(1@wid_in_wg, BN // 2, BN // 2, 2, 4@laneid, 4, 1@laneid, 1)]))
        PD = D.view(BN // 2)
        w = warp % 4
        g = lane // 4
        t = lane % 4
        cit: T.uint32 = T.uint32(0)  # k-tiles consumed so far
        sab = scale_a[0] * scale_b[0]
        p0: T.uint32 = T.uint32(0)
        p1: T.uint32 = T.uint32(0)
        p2: T.uint32 = T.uint32(0)
        p3: T.uint32 = T.uint32(0)
        # a stage is freed in both CTAs (B came to both): thread r of
        # the warpgroup arrives on CTA r's "empty" through its cluster
        # address (mapa)
        rel: T.uint32 = T.uint32(0)
        eq: T.int32 = 0  # C quarters stored so far: buffer eq % 2
        # epilogue addresses, once per thread: stmatrix x4 of 8-column
        # block pair cb, lane l gives row l%8 of matrix l/8 = row
        # 16w + 8(l/8%2) + l%8, 16-byte chunk 2cb + l/16 of the
        # 128-byte row, at chunk ^ (row % 8) in the 128B swizzle of SC
        # (the TMA store map's); the quarter's buffer adds 4096 elements
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
        for ctile in range(cid, PAIRS, NCL):
            cgf = ctile // (GM * NT) * GM  # the group's first cluster row
            cgh = T.max(T.min(MT - cgf, GM), 1)  # its height
            cbm = (cgf + ctile % (GM * NT) % cgh) * 2 + rank
            cbn = ctile % (GM * NT) // cgh
            for kt in range(KT):
                s = cit % ST
                T.cuda.mbarrier_wait(full.ptr_to([s]), (cit // ST) % 2)
                T.ptx["wgmma.fence.sync.aligned"]()
                T.cuda.tile.apply(T.ptx[MMA],
                                  D, VA.sub[s, wg, :, :, :, :], VB.sub[s, :, :, :, :], scope="warpgroup", accum=kt > 0)
                T.ptx["wgmma.commit_group.sync.aligned"]()
                # the previous k-tile's wgmmas are done: free its stage
                T.ptx["wgmma.wait_group.sync.aligned"](1)
                if kt > 0 and tid % 128 < 2:
                    T.ptx["mapa.shared::cluster.u32"](rel, T.cast(empty.ptr_to([(cit + ST - 1) % ST]), "uint32"), tid % 128)
                    T.ptx["mbarrier.arrive.shared::cluster.b64"](rel)
                cit += 1
            T.ptx["wgmma.wait_group.sync.aligned"](0)
            if tid % 128 < 2:
                T.ptx["mapa.shared::cluster.u32"](rel, T.cast(empty.ptr_to([(cit + ST - 1) % ST]), "uint32"), tid % 128)
                T.ptx["mbarrier.arrive.shared::cluster.b64"](rel)
            # epilogue (the producer already fills the next tile's stages)
            # through shared memory: the warpgroup's 64 x BN block of C
            # in BN / 64 quarters of 64 x 64, each converted to bf16 pairs and
            # written with stmatrix into one of its two buffers, then
            # stored by one thread with one TMA store (clipped at M, N)
            # the per-tensor scales, applied to the float32 sums before
            # the conversion to bf16
            for j in T.unroll(BN // 2):
                PD[j] = PD[j] * sab
            for q in T.unroll(BN // CW):
                # the store that read this buffer two quarters ago (or in
                # the previous tile) has finished reading it
                if tid % 128 == 0:
                    T.ptx["cp.async.bulk.wait_group.read"](1)
                T.ptx["bar.sync"](1 + wg, 128)
                if F32 == 1:
                    # accumulator pairs of columns 32q + 8cb + 2t (+ 1), rows
                    # g and g + 8 (8 rows = 256 elements further)
                    for cb in T.unroll(4):
                        T.ptx["st.shared.v2.f32"](SCE.ptr_to([EO[cb] + 2048 * (eq % 2)]), (PD[16 * q + 4 * cb], PD[16 * q + 4 * cb + 1]))
                        T.ptx["st.shared.v2.f32"](SCE.ptr_to([EO[cb] + 2048 * (eq % 2) + 256]), (PD[16 * q + 4 * cb + 2], PD[16 * q + 4 * cb + 3]))
                else:
                    for cb in T.unroll(4):
                        # matrix j of the x4: 8-column block 8q + 2cb + j/2,
                        # rows 8(j%2) .. of the warp's 16 = accumulator pair
                        # 2(8q + 2cb) + j
                        T.ptx["cvt.rn.bf16x2.f32"](p0, PD[32 * q + 8 * cb + 1], PD[32 * q + 8 * cb])
                        T.ptx["cvt.rn.bf16x2.f32"](p1, PD[32 * q + 8 * cb + 3], PD[32 * q + 8 * cb + 2])
                        T.ptx["cvt.rn.bf16x2.f32"](p2, PD[32 * q + 8 * cb + 5], PD[32 * q + 8 * cb + 4])
                        T.ptx["cvt.rn.bf16x2.f32"](p3, PD[32 * q + 8 * cb + 7], PD[32 * q + 8 * cb + 6])
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
