# allgather_gemm.py - all-gather + GEMM on `world` devices, one launch per
# device (one process per GPU), sm_90a: A (M x K, bf16, K-contiguous) is
# sharded by rows, device r holding rows r*Ms .. r*Ms + Ms - 1 (M = world
# * Ms); B_local (N x K, bf16) is this device's N-shard.  Afterwards
#     C[s*Ms + i, j] == sum_k A_s[i, k] * B_local[j, k]   (float32 sums,
#                                                       rounded to bf16)
# for every shard s < world, i < Ms, j < N: C = A_full @ B_local.T, with
# A_full never materialised - the producer pulls each peer's shard tile
# by TMA straight from the peer's memory into shared memory.
#
# Parameters (stable):
#   amaps  (8, 128) uint8: amaps[s] = the 128-byte CUtensorMap of device
#          s's A shard as this device reaches it (peer memory): bf16, dims
#          (K, Ms), row stride K * 2 bytes, box (64, 128), 128B swizzle,
#          zero fill; 64-byte aligned in global memory; rows >= world
#          unused (own shard included, s = rank)
#   B      (N, K) this device's B shard (the runtime encodes its map)
#   C      (M, N) output, M = world * Ms
#   pads   (8,) uint64: pads[r] = address of device r's signal pad, 24
#          uint32 words zeroed once before the first call, never reset
#   rank, world (1..8), Ms (rows per shard), sms (CTAs to use, >= 1),
#   epoch  1 on the first call, +1 on every later call (never 0)
# All devices are called with the same M, N, K, world, sms and epoch.
#
# Signals (pad words): [s] "shard s ready" (epoch), [8 + s] "device s has
# finished reading" (epoch), [16] this device's CTA-exit counter.
#   start     thread 0 of every CTA stores epoch to word [rank] of every
#             device's pad (st.release.sys; the shard was written before
#             the launch)
#   producer  (warpgroup 0, one thread) before the first tile of a peer
#             shard s: spins with ld.acquire.sys on its own word [s] until
#             it reads epoch, then fence.proxy.async.global (the TMA reads
#             that follow are async-proxy reads), then TMA-loads A's tile
#             through amaps[s] and B's through B's map into a 4-stage ring
#   consumers (warpgroups 1, 2) wgmma m64n256k16 on whatever stage is
#             full: tiles run own shard first (tile order rank, rank + 1,
#             ...), so the first tiles need no peer at all
#   end       every CTA: bar.sync, then thread 0 counts itself out with
#             atom.acq_rel.gpu.inc on word [16] (wrapping at the grid);
#             the last CTA of this device stores epoch to word [8 + rank]
#             of every pad (st.release.sys) and waits (ld.acquire.sys) for
#             words [8 + s] of its own pad: when it exits no peer reads
#             this device's A shard any more, so it may be rewritten.
# Tiles: 128 x 256 of C, never across a shard: shard s has ceil(Ms/128)
# row tiles whose rows past Ms are zero-filled by TMA and not stored;
# edges in N and K are zero-filled too; stores are masked (direct
# st.global epilogue as examples/gemm_wgmma_direct.py, any N; K % 8 == 0
# for the TMA strides).  No multimem / NVLink multicast.
# TIRx refuses: but got `ir.Call[ty=ir.PtrType]`
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

M = T.dynamic("M")
N = T.dynamic("N")
K = T.dynamic("K")


@T.function
def allgather_gemm(amaps: T.Tensor((8, 128), "uint8", align=64),
                   B: T.Tensor((N, K), "bfloat16", align=16),
                   C: T.Tensor((M, N), "bfloat16", align=16),
                   pads: T.Tensor((8,), "uint64"),
                   rank: T.int32, world: T.int32, Ms: T.int32,
                   sms: T.int32, epoch: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.max(T.min(sms, world * T.ceildiv(Ms, 128) * T.ceildiv(N, 256)), 1), block=384),
                   kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=1))
    cta = T.cuda.block_idx("x")
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    lane = T.cuda.lane_id()
    grid = T.max(T.min(sms, world * T.ceildiv(Ms, 128) * T.ceildiv(N, 256)), 1)
    NT = T.ceildiv(N, 256)
    TPS = T.ceildiv(Ms, 128) * NT  # tiles per shard
    TILES = world * TPS
    KT = T.ceildiv(K, 64)
    mypad = pads[rank]
    SA = T.alloc_shared((4, 128, 64), "bfloat16", scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(4, 128, 64):(8192, 64, 1)])), align=1024)
    SB = T.alloc_shared((4, 256, 64), "bfloat16", scope="shared.dyn", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(4, 256, 64):(16384, 64, 1)])), align=1024)
    SAE = SA.view(32768)  # SA's storage, in bf16 elements
    full = T.alloc_shared((4,), "uint64", align=8)
    empty = T.alloc_shared((4,), "uint64", align=8)
    if tid == 0:
        for j in T.unroll(4):
            T.ptx.mbarrier.init.shared.b64(full.ptr_to([j]), T.uint32(1))
            T.ptx.mbarrier.init.shared.b64(empty.ptr_to([j]), T.uint32(2))
        T.ptx.fence.mbarrier_init.release.cluster()
        # my shard is ready (it was written before this launch)
        for p in range(world):
            T.ptx["st.release.sys.global.u32"](pads[p] + T.cast(rank * 4, "uint64"), epoch)
    T.cuda.cta_sync()
    if warp < 4:
        T.ptx["setmaxnreg.dec.sync.aligned.u32"](40)
        if tid == 0:
            state: T.uint64 = T.uint64(0)
            got: T.uint32 = T.uint32(0)  # peer shards acquired so far
            pit: T.int32 = 0  # k-tiles issued so far: ring slot and pass
            for ptile in range(cta, TILES, grid):
                ps = (rank + ptile // TPS) % world
                pmt = ptile % TPS // NT
                pnt = ptile % NT
                if ps != rank and (got >> T.cast(ps, "uint32")) & T.uint32(1) == T.uint32(0):
                    f: T.uint32 = T.uint32(0)
                    T.ptx["ld.acquire.sys.global.u32"](f, mypad + T.cast(ps * 4, "uint64"))
                    while f != epoch:
                        T.ptx["ld.acquire.sys.global.u32"](f, mypad + T.cast(ps * 4, "uint64"))
                    T.ptx.fence.proxy.async_.global_()
                    got = got | (T.uint32(1) << T.cast(ps, "uint32"))
                for kp in range(KT):
                    sp = pit % 4
                    if pit >= 4:
                        T.cuda.mbarrier_wait(empty.ptr_to([sp]), (pit // 4 - 1) % 2)
                    T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, full.ptr_to([sp]), T.uint32(49152))
                    # A: shard ps's rows 128 pmt .. through its map (peer
                    # memory; the map's generic address in amaps)
                    amap: T.uint64 = amaps.ptr_to([ps, 0])
                    T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"](
                        SAE.ptr_to([sp * 8192]), amap, (kp * 64, pmt * 128), full.ptr_to([sp]))
                    T.cuda.tile.apply(
                        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
                        SB.sub[sp, :, :], B, box=(256, 64), coords=(pnt * 256, kp * 64), swizzle=3,
                        l2_promotion=3, mbar=full.ptr_to([sp]))
                    pit += 1
    else:
        T.ptx["setmaxnreg.inc.sync.aligned.u32"](232)
        wg = warp // 8  # consumer warpgroups 1, 2 (warps 4-7, 8-11) -> 0, 1
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
        for ctile in range(cta, TILES, grid):
            cs = (rank + ctile // TPS) % world
            cmt = ctile % TPS // NT
            cnt = ctile % NT
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
            # epilogue: register pair (2i, 2i+1) = columns (c, c+1) of one row
            lrow0 = cmt * 128 + wg * 64 + 16 * w + g  # row within the shard
            col0 = cnt * 256 + 2 * t
            for i in T.unroll(64):
                lrow = lrow0 + 8 * (i % 2)
                row = cs * Ms + lrow
                col = col0 + 8 * (i // 2)
                pair: T.uint32 = T.uint32(0)
                T.ptx["cvt.rn.bf16x2.f32"](pair, PD[2 * i + 1], PD[2 * i])
                if lrow < Ms and col < N:
                    T.ptx["st.global.b16"](C.ptr_to([row, col]), T.cast(pair & T.uint32(65535), "uint16"))
                if lrow < Ms and col + 1 < N:
                    T.ptx["st.global.b16"](C.ptr_to([row, col + 1]), T.cast(pair >> T.uint32(16), "uint16"))
    # every TMA load of this CTA has completed (its consumers waited on it)
    T.cuda.cta_sync()
    if tid == 0:
        old: T.uint32 = T.uint32(0)
        T.ptx["atom.acq_rel.gpu.global.inc.u32"](old, mypad + T.uint64(64), T.cast(grid - 1, "uint32"))
        if old == T.cast(grid - 1, "uint32"):
            # the last CTA of this device: no CTA here reads peers any more
            for p in range(world):
                T.ptx["st.release.sys.global.u32"](pads[p] + T.cast((8 + rank) * 4, "uint64"), epoch)
            for p in range(world):
                d: T.uint32 = T.uint32(0)
                T.ptx["ld.acquire.sys.global.u32"](d, mypad + T.cast((8 + p) * 4, "uint64"))
                while d != epoch:
                    T.ptx["ld.acquire.sys.global.u32"](d, mypad + T.cast((8 + p) * 4, "uint64"))
