# args: --target sm_100a
# a 128B-swizzled source allocated only 128-byte aligned (the pattern repeats every 1024 bytes)
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32, G: T.Tensor((128, 8), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    S = T.alloc_shared((128, 8), "uint32", layout=T.TileLayout(T.S[(16, 8, 2, 4):(64, 4, 32, 1)]), align=1024)
    M = T.decl_buffer((128, 512), "uint32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Dv = M.view(128, 8, layout=T.TileLayout(T.S[(128, 8):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    W = T.alloc_shared((128, 32), "uint32", layout=T.ComposeLayout(2, 3, 3, T.TileLayout(T.S[(128, 32):(32, 1)])), align=128)
    T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::1.128x256b"], Dv, W[:, 0:8])
