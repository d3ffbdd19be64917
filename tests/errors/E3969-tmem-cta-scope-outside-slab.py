# args: --target sm_100a
# scope="cta": warp w (w % 4 == 1 for w = 1) reaches lanes 32..63 only; this view puts every warp at lanes 0..31
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, TileLayout, TLane, TCol
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def k():
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    warp = T.cuda.warp_id()
    slot = T.alloc_shared((1,), "uint32", align=4)
    taddr = slot[0]
    mem = T.decl_buffer((4, 32, 16), "uint32", scope="tmem", allocated_addr=taddr,
                        layout=TileLayout(S[(4, 32, 16):(32@TLane, 1@TLane, 1@TCol)]))
    R = T.alloc_local((4,), "uint32", layout="default")
    regs = R.view(4, 32, 4, layout=TileLayout(S[(4, 32, 4):(1@warpid, 1@laneid, 1)]))
    same = T.decl_buffer((4, 32, 16), "uint32", scope="tmem", allocated_addr=taddr,
                         layout=TileLayout(S[(4, 32, 16):(16@TCol, 1@TLane, 1@TCol)]))
    T.cuda.tile.apply(T.ptx["tcgen05.ld.sync.aligned.32x32b.x4.b32"], regs, same[:, :, 0:4], scope="cta")
