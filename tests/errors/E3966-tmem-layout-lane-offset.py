# args: --target sm_100a
# a TMEM layout maps onto TLane and TCol only: an offset on laneid binds laneid too
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, TileLayout, TLane, TCol
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg

@T.function
def k():
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    warp = T.cuda.warp_id()
    slot = T.alloc_shared((1,), "uint32", align=4)
    taddr = slot[0]
    mem = T.decl_buffer((4, 32, 16), "uint32", scope="tmem", allocated_addr=taddr,
                        layout=TileLayout(S[(4, 32, 16):(32@TLane, 1@TLane, 1@TCol)]))
    R = T.alloc_local((4,), "uint32", layout="default")
    regs = R.view(4, 32, 4, layout=TileLayout(S[(4, 32, 4):(1@wid_in_wg, 1@laneid, 1)]))
    r64 = R.view(4, 16, 2, layout=TileLayout(S[(4, 2, 8, 2):(1@wid_in_wg, 1@laneid, 4@laneid, 2@laneid)]))
    one = R.view(32, 4, layout=TileLayout(S[(32, 4):(1@laneid, 1)]))
    bad = T.decl_buffer((4, 32, 4), "uint32", scope="tmem", allocated_addr=taddr, layout=TileLayout(S[(4, 32, 4):(32@TLane, 1@TLane, 1@TCol)] + 1@laneid))
    T.cuda.tile.apply(T.ptx["tcgen05.st.sync.aligned.32x32b.x4.b32"], bad, regs, scope="warpgroup")
