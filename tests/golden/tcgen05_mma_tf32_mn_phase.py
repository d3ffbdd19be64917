# target: sm_100a
# tcgen05.mma kind::tf32 M128 N16 K8 with B MN-major in the one mode a
# 32-bit MN-major operand has (128B with 32-byte atoms), over N
# sub-tiles at a loop-dependent origin: n * 16 floats = 64n bytes into
# the 128-byte row, a symbolic phase inside the swizzle period, taken
# before the swizzle (ptx_facts §1.4) like a K step of a K-major operand.
# Checked by hand in the .ptx: B's descriptor is (smem_B + 64n) >> 4 |
# 0x2000402000010000 (swizzle mode 1 in bits 61-63, SBO 512 bytes: 4 K
# rows of 128 bytes, bit 46 set, LBO field 1: one 128-byte MN chunk);
# A's no-swizzle K-major descriptor has LBO 128 (the K core matrix, 32
# floats on) and SBO 256 (the next group of 8 rows of 16 bytes, 64
# floats on); the instruction descriptor 0x8050910 is f32 D
# (bit 4), tf32 A and B (2 in bits 7-9 and 10-12), B transposed (bit
# 16), N >> 3 = 2 (bits 17-22), M >> 4 = 8 (bits 24-28).  Issue 19,
# mutation survivor descriptors.c:436 (seed 11): the mutant refused the
# one-mode order and gave E8008.
from tvm_tirx.script import tirx as T

@T.function
def k(taddr: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    AT = T.alloc_shared((1024,), "float32", align=1024)
    B = T.alloc_shared((256,), "float32", align=1024)
    D = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=taddr, layout=T.TileLayout(T.S[(128, 512):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    Av = AT.view(1, 1, 128, 8, layout=T.TileLayout(T.S[(1, 1, 16, 8, 2, 4):(0, 0, 64, 4, 32, 1)]))
    Bv = B.view(1, 1, 32, 8, layout=T.ComposeLayout(3, 2, 2, T.TileLayout(T.S[(1, 1, 32, 2, 4):(256, 256, 1, 128, 32)])))
    Dv = D.view(1, 1, 128, 16, layout=T.TileLayout(T.S[(1, 1, 128, 16):(1@T.Axis.TCol, 1@T.Axis.TCol, 1@T.Axis.TLane, 1@T.Axis.TCol)]))
    if T.cuda.thread_idx("x") == 0:
        for n in range(2):
            T.cuda.tile.apply(T.ptx["tcgen05.mma.cta_group::1.kind::tf32"], Dv, Av, Bv[:, :, n * 16:n * 16 + 16, :], instruction_shape=(128, 16, 8), a_format="tf32", b_format="tf32", b_major="mn")
