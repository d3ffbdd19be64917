# target: sm_100a
# tile_tcgen05_mma_forms.py - the tcgen05.mma forms beyond the dense
# one-CTA shared-A case, one kernel each:
#   mma_ws_m64: .ws M64 N128 (Layout E: N halves in lanes 0-63 / 64-127,
#     columns n % 64), B collector fill, a zero-column mask operand;
#   mma_ws_m32: .ws M32 N64 (Layout G: N quarters 32 lanes apart);
#   mma_pair_m256: cta_group::2 M256 N256 (128 rows of D and A, 128 rows
#     of B per CTA, Layout A), an eight-word disable_output_lane;
#   mma_pair_m128: cta_group::2 M128 N128 (Layout B: 64 rows per CTA,
#     N halves 64 lanes apart);
#   mma_a_tmem: A in TMEM (bf16 packed two per cell, 8 cells per K=16);
#   mma_mxf8: mxf8f6f4 block-scaled, SFA four K steps in the four bytes
#     of one cell (scale-factor IDs 0..3), SFB four cells per K step;
#   mma_nvf4: mxf4nvf4 with 4X (block16) UE4M3 scale vectors, packed
#     FP4 A/B (two per byte) under the 128B swizzle;
#   mma_ws_a_tmem: .ws M64 with A in TMEM: the bank axis (2, 64, K) puts
#     A's two copies in lanes 0-63 and 64-127 at the same columns;
#   mma_mxf4_pair: mxf4 2X on a CTA pair, both scale vectors at byte 2
#     of their cells (SF ID 2; idesc 0x50C004A0 as in ptx_facts §2.4).
from tvm_tirx.script import tirx as T

@T.function
def mma_ws_m64(taddr: T.uint32, zmask: T.uint64):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    B = T.alloc_shared((128, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    Bv = B.view(1, 4, 128, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 128, 16):(8192, 16, 64, 1)])))
    Dv = D.view(1, 1, 64, 128, layout=T.TileLayout(T.S[(1, 1, 64, 2, 64):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 64@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill"], Dv, Av, Bv, instruction_shape=(64, 128, 16), zero_column_mask=zmask)


@T.function
def mma_ws_m32(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((32, 32), "float8_e4m3fn", align=1024)
    B = T.alloc_shared((64, 32), "float8_e4m3fn", align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 1, 32, 32, layout=T.TileLayout(T.S[(1, 1, 4, 8, 2, 16):(1024, 1024, 256, 16, 128, 1)]))
    Bv = B.view(1, 1, 64, 32, layout=T.TileLayout(T.S[(1, 1, 8, 8, 2, 16):(2048, 2048, 256, 16, 128, 1)]))
    Dv = D.view(1, 1, 32, 64, layout=T.TileLayout(T.S[(1, 1, 32, 4, 16):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 32@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.ws.cta_group::1.kind::f8f6f4"], Dv, Av, Bv, instruction_shape=(32, 64, 32), accum=True)


@T.function
def mma_pair_m256(taddr: T.uint32, m0: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=128, cluster=2))
    A = T.alloc_shared((128, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=1024)
    B = T.alloc_shared((128, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 4, 128, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 128, 16):(8192, 16, 64, 1)])))
    Bv = B.view(1, 4, 128, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 128, 16):(8192, 16, 64, 1)])))
    Dv = D.view(1, 1, 128, 256, layout=T.TileLayout(T.S[(1, 1, 128, 256):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::2.kind::f16"], Dv, Av, Bv, instruction_shape=(256, 256, 16), disable_output_lane=(m0, 0, 0, 0, 0, 0, 0, m0))


@T.function
def mma_pair_m128(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=4, block=128, cluster=(2, 1, 1)))
    A = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    B = T.alloc_shared((64, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    Bv = B.view(1, 4, 64, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 64, 16):(4096, 16, 64, 1)])))
    Dv = D.view(1, 1, 64, 128, layout=T.TileLayout(T.S[(1, 1, 64, 2, 64):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 64@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::2.kind::f16"], Dv, Av, Bv, instruction_shape=(128, 128, 16))


@T.function
def mma_a_tmem(taddr: T.uint32, aaddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    AT = T.decl_buffer((128, 64), "bfloat16", scope="tmem", allocated_addr=aaddr, layout=T.TileLayout(T.S[(128, 64):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    B = T.alloc_shared((128, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = AT.view(1, 4, 128, 16, layout=T.TileLayout(T.S[(1, 4, 128, 16):(1@T.Axis.TCol, 16@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Bv = B.view(1, 4, 128, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 128, 16):(8192, 16, 64, 1)])))
    Dv = D.view(1, 1, 128, 128, layout=T.TileLayout(T.S[(1, 1, 128, 128):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::f16"], Dv, Av, Bv, instruction_shape=(128, 128, 16))


@T.function
def mma_mxf8(taddr: T.uint32, sfa_addr: T.uint32, sfb_addr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    A = T.alloc_shared((128, 128), "float8_e4m3fn", layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(128, 128):(128, 1)])), align=1024)
    B = T.alloc_shared((128, 128), "float8_e4m3fn", layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(128, 128):(128, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SA = T.decl_buffer((128, 2048), "float8_e8m0fnu", scope="tmem", allocated_addr=sfa_addr, layout=T.TileLayout(T.S[(128, 2048):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SB = T.decl_buffer((128, 2048), "float8_e8m0fnu", scope="tmem", allocated_addr=sfb_addr, layout=T.TileLayout(T.S[(128, 2048):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 4, 128, 32, layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(1, 4, 128, 32):(16384, 32, 128, 1)])))
    Bv = B.view(1, 4, 128, 32, layout=T.ComposeLayout(4, 3, 3, T.TileLayout(T.S[(1, 4, 128, 32):(16384, 32, 128, 1)])))
    Dv = D.view(1, 1, 128, 128, layout=T.TileLayout(T.S[(1, 1, 128, 128):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SAv = SA.view(1, 4, 128, 1, layout=T.TileLayout(T.S[(1, 4, 4, 32, 1):(1@T.Axis.TCol, 1@T.Axis.TCol, 4@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))
    SBv = SB.view(1, 4, 128, 1, layout=T.TileLayout(T.S[(1, 4, 4, 32, 1):(1@T.Axis.TCol, 16@T.Axis.TCol, 4@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X"], Dv, Av, Bv, SAv, SBv, instruction_shape=(128, 128, 32))


@T.function
def mma_nvf4(taddr: T.uint32, sfa_addr: T.uint32, sfb_addr: T.uint32):
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
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16"], Dv, Av, Bv, SAv, SBv, instruction_shape=(128, 64, 64))


@T.function
def mma_mxf4_pair(taddr: T.uint32, sfa_addr: T.uint32, sfb_addr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=128, cluster=2))
    A = T.alloc_shared((128, 64), "float4_e2m1fn", layout=T.ComposeLayout(5, 1, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=256)
    B = T.alloc_shared((128, 64), "float4_e2m1fn", layout=T.ComposeLayout(5, 1, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=256)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SA = T.decl_buffer((128, 2048), "float8_e8m0fnu", scope="tmem", allocated_addr=sfa_addr, layout=T.TileLayout(T.S[(128, 2048):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SB = T.decl_buffer((128, 2048), "float8_e8m0fnu", scope="tmem", allocated_addr=sfb_addr, layout=T.TileLayout(T.S[(128, 2048):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = A.view(1, 1, 128, 64, layout=T.ComposeLayout(5, 1, 3, T.TileLayout(T.S[(1, 1, 128, 64):(8192, 8192, 64, 1)])))
    Bv = B.view(1, 1, 128, 64, layout=T.ComposeLayout(5, 1, 3, T.TileLayout(T.S[(1, 1, 128, 64):(8192, 8192, 64, 1)])))
    Dv = D.view(1, 1, 128, 256, layout=T.TileLayout(T.S[(1, 1, 128, 256):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    SAv = SA.view(1, 1, 128, 4, layout=T.TileLayout(T.S[(1, 1, 4, 32, 4):(1@T.Axis.TCol, 1@T.Axis.TCol, 4@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))[:, :, :, 2:4]
    SBv = SB.view(1, 1, 256, 4, layout=T.TileLayout(T.S[(1, 1, 8, 32, 4):(1@T.Axis.TCol, 1@T.Axis.TCol, 4@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)] + T.R[4:32@T.Axis.TLane]))[:, :, :, 2:4]
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::2.kind::mxf4.block_scale.block32"], Dv, Av, Bv, SAv, SBv, instruction_shape=(256, 256, 64))


@T.function
def mma_ws_a_tmem(taddr: T.uint32, aaddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    AT = T.decl_buffer((128, 64), "bfloat16", scope="tmem", allocated_addr=aaddr, layout=T.TileLayout(T.S[(128, 64):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    B = T.alloc_shared((128, 64), "bfloat16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(128, 64):(64, 1)])), align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = AT.view(1, 4, 2, 64, 16, layout=T.TileLayout(T.S[(1, 4, 2, 64, 16):(1@T.Axis.TCol, 16@T.Axis.TCol, 64@T.Axis.TLane, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Bv = B.view(1, 4, 128, 16, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 4, 128, 16):(8192, 16, 64, 1)])))
    Dv = D.view(1, 1, 64, 128, layout=T.TileLayout(T.S[(1, 1, 64, 2, 64):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 64@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        T.cuda.tile.apply(T.ptx["tcgen05.mma.ws.cta_group::1.kind::f16"], Dv, Av, Bv, instruction_shape=(64, 128, 16))
