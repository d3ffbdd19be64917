# args: --target sm_100a
# a CTA-pair MMA and a one-CTA tcgen05.cp in one kernel: every tcgen05
# instruction of a kernel uses one .cta_group
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=4, block=128, cluster=(2, 1, 1)))
    A = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    B = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    Bv = B.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    Dv = D.view(1, 1, 64, 128, layout=T.TileLayout(T.S[(1, 1, 64, 2, 64):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 64@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::2.kind::f16"], Dv, Av, Bv, instruction_shape=(128, 128, 16))
        S = T.alloc_shared((128, 8), "uint32", layout=T.TileLayout(T.S[(16, 8, 2, 4):(64, 4, 32, 1)]), align=1024)
        M = T.decl_buffer((128, 512), "uint32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
        T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::1.128x256b"], M.view(128, 8, layout=T.TileLayout(T.S[(128, 8):(1@T.Axis.TLane, 1@T.Axis.TCol)] + 256@T.Axis.TCol)), S)
