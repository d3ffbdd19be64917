# args: --target sm_100a
# an M sub-tile starting at a loop-dependent row of a 128B-swizzled
# operand: the origin's phase (128*m bytes) leaves the first swizzled row
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((136, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(136, 64):(64, 1)])), align=1024)
    B = T.alloc_shared((256, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(256, 64):(64, 1)])), align=1024)
    D = T.decl_buffer((128, 256), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 256):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 1, 136, 64, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 1, 136, 64):(8704, 8704, 64, 1)])))
    Bv = B.view(1, 1, 256, 64, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 1, 256, 64):(16384, 16384, 64, 1)])))
    Dv = D.view(1, 1, 128, 256, layout=T.TileLayout(T.S[(1, 1, 128, 256):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    for m in range(2):
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::f16"], Dv, Av[:, :, m:m + 128, 0:16], Bv[:, :, :, 0:16], instruction_shape=(128, 256, 16))
