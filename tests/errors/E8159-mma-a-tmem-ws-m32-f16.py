# args: --target sm_100a
# kind::f16 with A in TMEM at .ws M=32 (four lane banks): left out of the
# tile pattern, as for every kind
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    B = T.alloc_shared((64, 16), "bfloat16", align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    AT = T.decl_buffer((128, 16), "bfloat16", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 16):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = AT.view(1, 1, 4, 32, 16, layout=T.TileLayout(T.S[(1, 1, 4, 32, 16):(1@T.Axis.TCol, 1@T.Axis.TCol, 32@T.Axis.TLane, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Bv = B.view(1, 1, 64, 16, layout=T.TileLayout(T.S[(1, 1, 8, 8, 2, 8):(1024, 1024, 128, 8, 64, 1)]))
    Dv = D.view(1, 1, 32, 64, layout=T.TileLayout(T.S[(1, 1, 32, 4, 16):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 32@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.ws.cta_group::1.kind::f16"], Dv, Av, Bv, instruction_shape=(32, 64, 16), accum=True)
