# target: sm_90a
# gemm_wgmma.py - a Hopper GEMM with wgmma tile calls: C = A @ B.T for
# bf16 A (M, K) and B (N, K) (both K-contiguous, row-major), float32
# accumulation, bf16 C (M, N).  sm_90a.
#
# Persistent: 132 CTAs (the H200's SM count; 384 threads = 3 warpgroups,
# one CTA per SM) take the 128 x 256 tiles of C in turn (tile = CTA id,
# + 132, ...; N/256 tiles per row), walking K in 64-wide k-tiles through
# one 4-stage ring of shared-memory buffers (4 x 48 KiB dynamic shared
# memory) whose slot and parity continue across tiles:
#   warpgroup 0  producer: setmaxnreg.dec 40; one thread waits for a
#                free stage (mbarrier "empty", parity per ring pass),
#                posts 48 KiB of transaction bytes on "full" and issues
#                two TMA loads (A 128 x 64, B 256 x 64 boxes, 128B
#                swizzle) that complete on it
#   warpgroups 1, 2  consumers: setmaxnreg.inc 232; each owns 64 rows of
#                the tile and 128 float32 accumulators per thread; per
#                k-tile: wait "full", wgmma.fence, one tile call = 4 x
#                wgmma m64n256k16 (K_rep 4, descriptors +32 B per k16
#                slice inside the 128-byte swizzled rows), commit_group,
#                wait_group 1 (the previous k-tile's wgmmas are done), and
#                one thread per warpgroup frees that k-tile's stage
#   epilogue     direct stores: cvt.rn.bf16x2.f32 of each accumulator
#                pair, st.global.b32 at the D fragment's (row, column);
#                the stages are freed first, so the producer is already
#                loading the next tile's k-tiles
# Sizes are module constants (M, N multiples of 128 / 256, K a multiple
# of 64 and at least 256); bench/gemm substitutes them per size.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

M = 4096
N = 4096
K = 4096
MT = M // 128
NT = N // 256
KT = K // 64


@T.function
def gemm_wgmma(A: T.Tensor((M, K), "bfloat16", align=16),
               B: T.Tensor((N, K), "bfloat16", align=16),
               C: T.Tensor((M, N), "bfloat16", align=16)):
    # .minnctapersm 1 gives the entry register cap setmaxnreg needs
    T.device_entry(launch=T.cuda.LaunchConfig(grid=132, block=384),
                   kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=2))
    bid = T.cuda.block_idx("x")
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    lane = T.cuda.lane_id()
    SA = T.alloc_shared((4, 128, 64), "bfloat16", scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(4, 128, 64):(8192, 64, 1)])), align=1024)
    SB = T.alloc_shared((4, 256, 64), "bfloat16", scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(4, 256, 64):(16384, 64, 1)])), align=1024)
    full = T.alloc_shared((4,), "uint64", align=8)
    empty = T.alloc_shared((4,), "uint64", align=8)
    if tid == -1:
        for j in T.unroll(4):
            T.ptx.mbarrier.init.shared.b64(full.ptr_to([j]), T.uint32(1))
            T.ptx.mbarrier.init.shared.b64(empty.ptr_to([j]), T.uint32(4))
        T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cta_sync()
    if warp < 4:
        T.ptx["setmaxnreg.dec.sync.aligned.u32"](40)
        if tid == 0:
            state: T.uint64 = T.uint64(0)
            pit: T.int32 = 0  # k-tiles issued so far: ring slot and pass
            for ptile in range(bid, MT * NT, 132):
                pbm = ptile // NT
                pbn = ptile % NT
                for kp in range(KT):
                    sp = pit % 4
                    if pit >= 4:
                        T.cuda.mbarrier_wait(empty.ptr_to([sp]), (pit // 4 - 1) % 2)
                    T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, full.ptr_to([sp]), T.uint32(49152))
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                        SA.sub[sp, :, :], A, box=(128, 64), coords=(pbm * 128, kp * 64), swizzle=3,
                        mbar=full.ptr_to([sp]))
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                        SB.sub[sp, :, :], B, box=(256, 64), coords=(pbn * 256, kp * 64), swizzle=3,
                        mbar=full.ptr_to([sp]))
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
        for ctile in range(bid, MT * NT, 132):
            cbm = ctile // NT
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
                if kt > 0 and tid % 128 == 0:
                    T.ptx.mbarrier.arrive.shared.b64(empty.ptr_to([(cit + 3) % 4]))
                cit += 1
            T.ptx["wgmma.wait_group.sync.aligned"](0)
            if tid % 128 == 0:
                T.ptx.mbarrier.arrive.shared.b64(empty.ptr_to([(cit + 3) % 4]))
            # epilogue (the producer already fills the next tile's stages):
            # register pair (2i, 2i+1) = columns (c, c+1) of one row
            row0 = cbm * 128 + wg * 64 + 16 * w + g
            col0 = cbn * 256 + 2 * t
            for i in T.unroll(64):
                packed: T.uint32 = T.uint32(0)
                T.ptx["cvt.rn.bf16x2.f32"](packed, PD[2 * i + 1], PD[2 * i])
                T.ptx["st.global.b32"](C.ptr_to([row0 + 8 * (i % 2), col0 + 8 * (i // 2)]), packed)
