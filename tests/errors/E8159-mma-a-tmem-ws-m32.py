# args: --target sm_100a
# A in TMEM with .ws M=32 (four banks) is left out of the tile pattern
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((32, 32), "float8_e4m3fn", align=1024)
    B = T.alloc_shared((64, 32), "float8_e4m3fn", align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    AT = T.decl_buffer((128, 32), "float8_e4m3fn", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 32):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = AT.view(1, 1, 4, 32, 32, layout=T.TileLayout(T.S[(1, 1, 4, 32, 32):(1@T.Axis.TCol, 1@T.Axis.TCol, 32@T.Axis.TLane, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Bv = B.view(1, 1, 64, 32, layout=T.TileLayout(T.S[(1, 1, 8, 8, 2, 16):(2048, 2048, 256, 16, 128, 1)]))
    Dv = D.view(1, 1, 32, 64, layout=T.TileLayout(T.S[(1, 1, 32, 4, 16):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 32@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.ws.cta_group::1.kind::f8f6f4"], Dv, Av, Bv, instruction_shape=(32, 64, 32), accum=True)
