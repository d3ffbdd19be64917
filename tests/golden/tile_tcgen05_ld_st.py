# target: sm_100a
# TMEM loads and stores (tcgen05.ld / tcgen05.st) for every shape:
# repeats over columns, a second 16-lane half, pack/unpack 16-bit views,
# the 16x32bx2 split store with a loop-dependent column and a warp-scope
# call under a warp guard.  Each warp w of the warpgroup addresses TMEM
# lane 32*w + row: taddr + ((32*w + row) << 16) + column.
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, TileLayout, TLane, TCol
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

@T.function
def tmem_ld_st(A: T.Tensor((128, 8), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    slot = T.alloc_shared((1,), "uint32", align=4)
    if warp == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(
            slot.ptr_to([0]), T.uint32(64))
        T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    taddr = slot[0]
    mem = T.decl_buffer((4, 32, 64), "uint32", scope="tmem", allocated_addr=taddr,
                        layout=TileLayout(S[(4, 32, 64):(32@TLane, 1@TLane, 1@TCol)]))
    # (warp, repeat, row, column): two 32x32b.x2 stores at columns 0 and 2
    cols = T.decl_buffer((4, 2, 32, 2), "uint32", scope="tmem", allocated_addr=taddr,
                         layout=TileLayout(S[(4, 2, 32, 2):(32@TLane, 2@TCol, 1@TLane, 1@TCol)]))
    # 16-bit view: column c, half h at TCol unit 4*c + 2*h (cell 2*c + h)
    half = T.decl_buffer((4, 32, 16, 2), "uint16", scope="tmem", allocated_addr=taddr,
                         layout=TileLayout(S[(4, 32, 16, 2):(32@TLane, 1@TLane, 4@TCol, 2@TCol)]))

    row = T.alloc_local((4,), "uint32", layout="default")
    for c in T.unroll(4):
        row[c] = A[tid, c]
    T.cuda.tile.apply(
        T.ptx["tcgen05.st.sync.aligned.32x32b.x2.b32"],
        cols, row.view(4, 2, 32, 2, layout=TileLayout(S[(4, 2, 32, 2):(1@wid_in_wg, 2, 1@laneid, 1)])),
        scope="warpgroup",
    )
    T.ptx.tcgen05.wait__st.sync.aligned()

    # 16x64b.x2, lanes 16..31 of each slab, columns 8..11:
    # lane l register r holds (l//4 + 8*(l%2), (l//2)%2 + 2*r)
    w64 = T.alloc_local((2,), "uint32", layout="default")
    T.cuda.tile.apply(
        T.ptx["tcgen05.ld.sync.aligned.16x64b.x2.b32"],
        w64.view(4, 16, 4, layout=TileLayout(S[(4, 2, 8, 2, 2):(1@wid_in_wg, 1@laneid, 4@laneid, 1, 2@laneid)])),
        mem[:, 16:32, 8:12], scope="warpgroup",
    )
    # 16x128b.x1.pack::16b: register r holds (l//4 + 8*r, l%4), cells 8..15
    w128 = T.alloc_local((2,), "uint32", layout="default")
    T.cuda.tile.apply(
        T.ptx["tcgen05.ld.sync.aligned.16x128b.x1.pack::16b.b32"],
        w128.view(4, 16, 4, layout=TileLayout(S[(4, 2, 8, 4):(1@wid_in_wg, 1, 4@laneid, 1@laneid)])),
        half[:, 0:16, 4:8, :], scope="warpgroup",
    )
    T.ptx.tcgen05.wait__ld.sync.aligned()
    # 16x256b.x1.unpack::16b: register r holds
    # (l//4 + 8*(r//2), r%2 + 2*(l%4)), lanes 16..31, cells 0..15
    T.cuda.tile.apply(
        T.ptx["tcgen05.st.sync.aligned.16x256b.x1.unpack::16b.b32"],
        half[:, 16:32, 0:8, :],
        row.view(4, 16, 8, layout=TileLayout(S[(4, 2, 8, 4, 2):(1@wid_in_wg, 2, 4@laneid, 1@laneid, 1)])),
        scope="warpgroup",
    )
    # 16x32bx2.x2 split stores: lanes 0..15 at columns 16+4k.., lanes
    # 16..31 at the same columns (imm_half_splitoff = 16 << 16)
    for k in T.serial(2):
        T.cuda.tile.apply(
            T.ptx["tcgen05.st.sync.aligned.16x32bx2.x2.b32"],
            mem[:, 0:16, 16 + 4 * k:18 + 4 * k], mem[:, 16:32, 16 + 4 * k:18 + 4 * k],
            w64.view(4, 2, 16, 2, layout=TileLayout(S[(4, 2, 16, 2):(1@wid_in_wg, 16@laneid, 1@laneid, 1)])),
            imm_half_splitoff=16 << 16, scope="warpgroup",
        )
    T.ptx.tcgen05.wait__st.sync.aligned()
    # warp scope: warp 2 alone reads its slab (lanes 64..95), column 20
    if warp == 2:
        one = T.alloc_local((1,), "uint32", layout="default")
        T.cuda.tile.apply(
            T.ptx["tcgen05.ld.sync.aligned.32x32b.x1.b32"],
            one.view(32, 1, layout=TileLayout(S[(32, 1):(1@laneid, 1)])),
            mem.sub[2, :, 20:21], scope="warp",
        )
        T.ptx.tcgen05.wait__ld.sync.aligned()
        A[tid, 4] = one[0]
    for c in T.unroll(2):
        A[tid, c] = w64[c] + w128[c]

    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    if warp == 0:
        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(taddr, T.uint32(64))
