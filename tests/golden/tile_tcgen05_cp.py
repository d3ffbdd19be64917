# target: sm_100a
# tile_tcgen05_cp.py - tcgen05.cp 128x256b from an interleaved (no-swizzle)
# shared image, two repeats 8 columns apart, and 32x128b.warpx4 from a
# 128B-swizzled image into a destination with four stated lane replicas.
from tvm_tirx.script import tirx as T

@T.function
def tile_tcgen05_cp(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    S = T.alloc_shared((2, 128, 8), "uint32", layout=T.TileLayout(T.S[(2, 16, 8, 2, 4):(1024, 64, 4, 32, 1)]), align=128)
    M = T.decl_buffer((128, 512), "uint32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Dv = M.view(2, 128, 8, layout=T.TileLayout(T.S[(2, 128, 8):(8@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    W = T.alloc_shared((32, 4), "uint32", layout=T.ComposeLayout(2, 3, 3, T.TileLayout(T.S[(32, 4):(32, 1)])), align=1024)
    Rv = M.view(32, 4, layout=T.TileLayout(T.S[(32, 4):(1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::1.128x256b"], Dv, S)
        T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::1.32x128b.warpx4"], Rv, W)


@T.function
def tile_tcgen05_cp_4rows(taddr: T.uint32):
    # 4x256b: four rows to lanes 0/32/64/96; the 8-row allocation backs
    # the descriptor's eight-row organization (LDO 128 bytes)
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    S = T.alloc_shared((8, 8), "uint32", layout=T.TileLayout(T.S[(8, 2, 4):(4, 32, 1)]), align=128)
    M = T.decl_buffer((128, 512), "uint32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Dv = M.view(4, 8, layout=T.TileLayout(T.S[(4, 8):(32@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.cp.cta_group::1.4x256b"], Dv, S[0:4, :])
