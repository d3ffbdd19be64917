# args: --target sm_100a
# a 2X scale vector at byte 1 of its cell: the scale-factor ID must be 0 or 2
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32, sfa_addr: T.uint32, sfb_addr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=128, cluster=2))
    A = T.alloc_shared((128, 64), "float4_e2m1fn", layout=T.ComposeLayout(5, 1, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=256)
    B = T.alloc_shared((128, 64), "float4_e2m1fn", layout=T.ComposeLayout(5, 1, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=256)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SA = T.decl_buffer((128, 2048), "float8_e8m0fnu", scope="tmem", allocated_addr=sfa_addr, layout=T.TileLayout(T.S[(128, 2048):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SB = T.decl_buffer((128, 2048), "float8_e8m0fnu", scope="tmem", allocated_addr=sfb_addr, layout=T.TileLayout(T.S[(128, 2048):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 1, 128, 64, layout=T.ComposeLayout(5, 1, 3, T.TileLayout(T.S[(1, 1, 128, 64):(8192, 8192, 64, 1)])))
    Bv = B.view(1, 1, 128, 64, layout=T.ComposeLayout(5, 1, 3, T.TileLayout(T.S[(1, 1, 128, 64):(8192, 8192, 64, 1)])))
    Dv = D.view(1, 1, 128, 256, layout=T.TileLayout(T.S[(1, 1, 128, 256):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SAv = SA.view(1, 1, 128, 4, layout=T.TileLayout(T.S[(1, 1, 4, 32, 4):(1@T.Axis.TCol, 1@T.Axis.TCol, 4@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))[:, :, :, 1:3]
    SBv = SB.view(1, 1, 256, 4, layout=T.TileLayout(T.S[(1, 1, 8, 32, 4):(1@T.Axis.TCol, 1@T.Axis.TCol, 4@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))[:, :, :, 2:4]
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::2.kind::mxf4.block_scale.block32"], Dv, Av, Bv, SAv, SBv, instruction_shape=(256, 256, 64))

