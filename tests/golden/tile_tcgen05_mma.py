# target: sm_100a
# tile_tcgen05_mma.py - tcgen05.mma kind::f16 bf16 -> f32, M128 N256 K16 with
# K_rep 4 over 128B-swizzled K-major A/B: one MMA per K slice, each
# descriptor 32 bytes further (+2 in the start field), enable-input-d
# false on the first K repeat and true after.
from tvm_tirx.script import tirx as T

@T.function
def tile_tcgen05_mma(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((128, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=1024)
    B = T.alloc_shared((256, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(256, 64):(64, 1)])), align=1024)
    D = T.decl_buffer((128, 256), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 256):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 4, 128, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 128, 16):(8192, 16, 64, 1)])))
    Bv = B.view(1, 4, 256, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 256, 16):(16384, 16, 64, 1)])))
    Dv = D.view(1, 1, 128, 256, layout=T.TileLayout(T.S[(1, 1, 128, 256):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::f16"], Dv, Av, Bv, instruction_shape=(128, 256, 16))


@T.function
def tile_tcgen05_mma_kloop(taddr: T.uint32):
    # the same K walk with a loop variable: the K slice's origin (k*32
    # bytes, inside one 128-byte swizzled row) stays an address
    # expression added to the start field; the swizzle is the hardware's
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((128, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=1024)
    B = T.alloc_shared((256, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(256, 64):(64, 1)])), align=1024)
    D = T.decl_buffer((128, 256), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 256):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 4, 128, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 128, 16):(8192, 16, 64, 1)])))
    Bv = B.view(1, 4, 256, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 256, 16):(16384, 16, 64, 1)])))
    Dv = D.view(1, 1, 128, 256, layout=T.TileLayout(T.S[(1, 1, 128, 256):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        for k in range(4):
            T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::f16"], Dv, Av[:, k:k + 1, :, :], Bv[:, k:k + 1, :, :], instruction_shape=(128, 256, 16), accum=k > 0)
