# tcgen05_ld_16x32bx2.py - one warpgroup reads two 16-lane halves of a
# TMEM tile with the split access tcgen05.ld...16x32bx2.x4.
#
# Each of the 128 threads first stores row tid of A (16 words) into TMEM
# lane tid, columns 0..15 (tcgen05.st 32x32b.x16).  The split load then
# gives lane l of warp w the four words of TMEM lane 32*w + l at columns
# 0..3 when l < 16 (first half, mem[:, :16, :4]) and at columns 8..11 when
# l >= 16 (second half, mem[:, 16:32, 8:12], reached through the
# immediate (16 << 16) + 8: 16 lanes down, 8 columns right).  Afterwards
#     B[t, c] == A[t, c + (8 if t % 32 >= 16 else 0)]   for c in 0..3.
#
# Source: cuda_tile_instruction_reference.rst, "TMEM loads and stores" ->
# "Split accesses: 16x32bx2" (the call is quoted as written).  The caller
# supplies TMEM allocation, the thread-sync fences, tcgen05.wait::st /
# wait::ld and deallocation ("Completion and producer dependencies").
# Target: sm_100a; compile-only on an H200.
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, TileLayout
from tvm_tirx.backend.cuda.axis import TLane, TCol
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

# The warpgroup's view of TMEM: (warp, lane, column) -> lane 32*warp + lane.
TMEM_VIEW = TileLayout(S[(4, 32, 16):(32@TLane, 1@TLane, 1@TCol)])
# 32x32b.x16 store image: thread (w, l) holds TMEM row 32*w + l, 16 words.
ROW_REGS = TileLayout(S[(4, 32, 16):(1@wid_in_wg, 1@laneid, 1)])
# 16x32bx2 image (access, row, column): lane l owns (l // 16, l % 16, r).
SPLIT_REGS = TileLayout(S[(4, 2, 16, 4):(1@wid_in_wg, 16@laneid, 1@laneid, 1)])

@T.function
def tcgen05_ld_16x32bx2(
    A: T.Tensor((128, 16), "uint32"),
    B: T.Tensor((128, 4), "uint32"),
):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    taddr_smem = T.alloc_shared((1,), "uint32", align=4)
    if warp == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(
            taddr_smem.ptr_to([0]), T.uint32(32))
        T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    taddr = taddr_smem[0]
    mem = T.tmem((4, 32, 16), "uint32", scope="tmem",
                 allocated_addr=taddr, layout=TMEM_VIEW)

    row = T.alloc_local((16,), "uint32", layout="default")
    for c in T.unroll(16):
        row[c] = A[tid, c]
    T.cuda.tile.apply(
        T.ptx["tcgen05.st.sync.aligned.32x32b.x16.b32"],
        mem, row.view(4, 32, 16, layout=ROW_REGS), scope="warpgroup",
    )
    T.ptx.tcgen05.wait__st.sync.aligned()

    words = T.alloc_local((4,), "uint32", layout="default")
    registers = words.view(4, 2, 16, 4, layout=SPLIT_REGS)
    T.cuda.tile.apply(
        T.ptx["tcgen05.ld.sync.aligned.16x32bx2.x4.b32"],
        registers, mem[:, :16, :4], mem[:, 16:32, 8:12],
        imm_half_splitoff=(16 << 16) + 8, scope="warpgroup",
    )
    T.ptx.tcgen05.wait__ld.sync.aligned()
    for c in T.unroll(4):
        B[tid, c] = words[c]

    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    if warp == 0:
        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(taddr, T.uint32(32))
