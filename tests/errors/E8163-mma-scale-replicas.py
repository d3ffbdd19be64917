# args: --target sm_100a
# scale factors must state their four lane replicas
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32, sfa_addr: T.uint32, sfb_addr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((128, 128), "float8_e4m3fn", layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(128, 128):(128, 1)])), align=1024)
    B = T.alloc_shared((128, 128), "float8_e4m3fn", layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(128, 128):(128, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SA = T.decl_buffer((128, 2048), "float8_e8m0fnu", scope="tmem", allocated_addr=sfa_addr, layout=T.TileLayout(T.S[(128, 2048):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SB = T.decl_buffer((128, 2048), "float8_e8m0fnu", scope="tmem", allocated_addr=sfb_addr, layout=T.TileLayout(T.S[(128, 2048):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 4, 128, 32, layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(1, 4, 128, 32):(16384, 32, 128, 1)])))
    Bv = B.view(1, 4, 128, 32, layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(1, 4, 128, 32):(16384, 32, 128, 1)])))
    Dv = D.view(1, 1, 128, 128, layout=T.TileLayout(T.S[(1, 1, 128, 128):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SAv = SA.view(1, 4, 128, 1, layout=T.TileLayout(T.S[(1, 4, 4, 32, 1):(1@T.Axis.TCol, 1@T.Axis.TCol, 4@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SBv = SB.view(1, 4, 128, 1, layout=T.TileLayout(T.S[(1, 4, 4, 32, 1):(1@T.Axis.TCol, 16@T.Axis.TCol, 4@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X"], Dv, Av, Bv, SAv, SBv, instruction_shape=(128, 128, 32))
