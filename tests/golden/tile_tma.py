# target: sm_90a
# TMA tile calls (reference "Tensor memory accelerator transfers"):
# one native cp.async.bulk.tensor per group/repeat coordinate, coordinates
# reversed (innermost first), the shared address at the image's
# unswizzled origin, tensor maps as hidden .align 64 .b8[128] parameters.
from tvm_tirx.script import tirx as T

m = T.dynamic("m")
k = T.dynamic("k")

@T.function
def load_swizzled(A: T.Tensor((256, 128), "float16", align=16), bx: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    # two 64 x 64 stages, 128-byte swizzle: 2 issues, rows bx and bx + 64
    s = T.alloc_shared((2, 64, 64), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(2, 64, 64):(4096, 64, 1)])), align=1024)
    # an 8-row window starting at row 1: its unswizzled origin is byte 128
    w = T.alloc_shared((16, 64), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(16, 64):(64, 1)])), align=1024)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"],
        s, A, box=(64, 64), coords=(bx, 64), coord_steps=((64, 0),), swizzle=3,
        mbar=mbar.ptr_to([0]))
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"],
        w[1:9, :], A, box=(8, 64), coords=(0, 0), swizzle=3, l2_promotion=2,
        mbar=mbar.ptr_to([0]), cache_policy=T.uint64(0x14F0000000000000))

@T.function
def store_reduce(C: T.Tensor((128, 64), "float32", align=16), D: T.Tensor((128, 64), "float32", align=16), row: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((32, 32), "float32", align=128)
    lane = T.cuda.lane_id()
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
        C, s, box=(32, 32), coords=(row, 32), pred=lane == 0)
    T.cuda.tile.apply(
        T.ptx["cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"],
        D, s, box=(32, 32), coords=(row, 0))

@T.function
def load_3d_steps(X: T.Tensor((4, 64, 32), "bfloat16", align=16), c0: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    # repeat (2, 2) over planes and row blocks; element strides (1, 2, 1):
    # box (1, 16, 32) -> image (1, 8, 32)
    s = T.alloc_shared((2, 2, 1, 8, 32), "bfloat16", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
        s, X, box=(1, 16, 32), coords=(c0, 0, 0), element_strides=(1, 2, 1),
        coord_steps=((1, 0, 0), (0, 16, 0)), oob_fill=1, mbar=mbar.ptr_to([0]))

@T.function
def load_multicast(A: T.Tensor((64, 64), "float32", align=16), M: T.TensorMap()):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32, cluster=2))
    s = T.alloc_shared((16, 32), "float32", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"],
        s, A, box=(16, 32), coords=(0, 0), mbar=mbar.ptr_to([0]), cta_mask=T.uint16(3))
    # a caller-encoded map: the same call shape, no slot
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
        s, M, box=(16, 32), coords=(16, 0), mbar=mbar.ptr_to([0]))
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"],
        M, s, box=(16, 32), coords=(32, 0))

@T.function
def symbolic_dims(X: T.Tensor((m, k), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(T.ceildiv(k, 32), T.ceildiv(m, 32)), block=32))
    s = T.alloc_shared((32, 32), "float32", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    by = T.cuda.block_idx("y")
    bx = T.cuda.block_idx("x")
    if T.cuda.lane_id() == 0:
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            s, X, box=(32, 32), coords=(by * 32, bx * 32), mbar=mbar.ptr_to([0]))
