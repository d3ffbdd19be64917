# args: --target sm_100a
# kind::mxf4nvf4 reads 4-bit elements, which tcgen05.mma cannot
# transpose: B (float4_e2m1fn) must be K-major (issue 19, mutation
# survivor tcgen05_mma.c:250, seed 15: the mutant refused MN-major for
# kind::mxf4 and the narrow f8f6f4 formats only, went on and refused
# this B only at the descriptor walk, E8006 "packed 4-bit elements 2j
# and 2j+1 of a row must share one byte")
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32, sfa_addr: T.uint32, sfb_addr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((128, 256), "float4_e2m1fn", layout=T.ComposeLayout(5, 3, 3, T.TileLayout(T.S[(128, 256):(256, 1)])), align=1024)
    B = T.alloc_shared((64, 256), "float4_e2m1fn", layout=T.ComposeLayout(5, 3, 3, T.TileLayout(T.S[(64, 256):(256, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SA = T.decl_buffer((128, 2048), "float8_e4m3fn", scope="tmem", allocated_addr=sfa_addr, layout=T.TileLayout(T.S[(128, 2048):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SB = T.decl_buffer((128, 2048), "float8_e4m3fn", scope="tmem", allocated_addr=sfb_addr, layout=T.TileLayout(T.S[(128, 2048):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 4, 128, 64, layout=T.ComposeLayout(5, 3, 3, T.TileLayout(T.S[(1, 4, 128, 64):(32768, 64, 256, 1)])))
    Bv = B.view(1, 4, 64, 64, layout=T.ComposeLayout(5, 3, 3, T.TileLayout(T.S[(1, 4, 64, 64):(16384, 64, 256, 1)])))
    Dv = D.view(1, 1, 128, 64, layout=T.TileLayout(T.S[(1, 1, 128, 64):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SAv = SA.view(1, 4, 128, 4, layout=T.TileLayout(T.S[(1, 4, 4, 32, 4):(1@T.Axis.TCol, 16@T.Axis.TCol, 4@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))
    SBv = SB.view(1, 4, 64, 4, layout=T.TileLayout(T.S[(1, 4, 2, 32, 4):(1@T.Axis.TCol, 8@T.Axis.TCol, 4@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16"], Dv, Av, Bv, SAv, SBv, instruction_shape=(128, 64, 64), b_major="mn")
