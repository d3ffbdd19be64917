# tma_modes.py - TMA kernels for tests/gpu/gpu_tma.c: each loads one box
# into shared memory and writes the shared image out in storage order
# (swizzled where the layout is), so the host can check it byte for byte
# against the documented hardware mapping.
#   swz1/swz2/swz3  float16 box (16, 16 << (k-1)) at (r0, c0) of A with
#                   swizzle k (32B/64B/128B), out = the 16 rows of storage
#   oob_zero/nan    float32 box (32, 32) at (r0, c0) of X (m, k), partly
#                   outside: zero or NaN fill
#   estride         float32 box (16, 32), element strides (2, 1): rows
#                   r0, r0 + 2, ..., image (8, 32)
#   interleave16    uint16 NC/8WC8 tensor (2, 4, 64, 8), 16B interleave:
#                   box (1, 1, 8) at (n0, c0, w0), image (1, 1, 8, 8)
#   region          float32 box (32, 32) at (r0, c0) of the region
#                   X[16:56, 8:40]: zero fill outside the region
# Every kernel: one thread initialises the barrier, posts the bytes and
# issues; all wait for phase 0, then copy the image.
from tvm_tirx.script import tirx as T

m = T.dynamic("m")
k = T.dynamic("k")

@T.function
def swz1(A: T.Tensor((64, 128), "float16", align=16), out: T.Tensor((16, 16), "float16"), r0: T.int32, c0: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    t = T.alloc_shared((16, 16), "float16", layout=T.ComposeLayout(3, 1, 3, T.TileLayout(T.S[(16, 16):(16, 1)])), align=1024)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if lane == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        st: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(st, mbar.ptr_to([0]), T.uint32(512))
        T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            t, A, box=(16, 16), coords=(r0, c0), swizzle=1, mbar=mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    flat = t.view(256)
    for i in range(8):
        out[i * 2 + lane // 16, lane % 16] = flat[i * 32 + lane]

@T.function
def swz2(A: T.Tensor((64, 128), "float16", align=16), out: T.Tensor((16, 32), "float16"), r0: T.int32, c0: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    t = T.alloc_shared((16, 32), "float16", layout=T.ComposeLayout(3, 2, 3, T.TileLayout(T.S[(16, 32):(32, 1)])), align=1024)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if lane == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        st: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(st, mbar.ptr_to([0]), T.uint32(1024))
        T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            t, A, box=(16, 32), coords=(r0, c0), swizzle=2, mbar=mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    flat = t.view(512)
    for i in range(16):
        out[i, lane] = flat[i * 32 + lane]

@T.function
def swz3(A: T.Tensor((64, 128), "float16", align=16), out: T.Tensor((16, 64), "float16"), r0: T.int32, c0: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    t = T.alloc_shared((16, 64), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(16, 64):(64, 1)])), align=1024)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if lane == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        st: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(st, mbar.ptr_to([0]), T.uint32(2048))
        T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            t, A, box=(16, 64), coords=(r0, c0), swizzle=3, mbar=mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    flat = t.view(1024)
    for i in range(32):
        out[i // 2, (i % 2) * 32 + lane] = flat[i * 32 + lane]

@T.function
def oob_zero(X: T.Tensor((m, k), "float32", align=16), out: T.Tensor((32, 32), "float32"), r0: T.int32, c0: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    t = T.alloc_shared((32, 32), "float32", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if lane == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        st: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(st, mbar.ptr_to([0]), T.uint32(4096))
        T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            t, X, box=(32, 32), coords=(r0, c0), mbar=mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    for i in range(32):
        out[i, lane] = t[i, lane]

@T.function
def oob_nan(X: T.Tensor((m, k), "float32", align=16), out: T.Tensor((32, 32), "float32"), r0: T.int32, c0: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    t = T.alloc_shared((32, 32), "float32", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if lane == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        st: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(st, mbar.ptr_to([0]), T.uint32(4096))
        T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            t, X, box=(32, 32), coords=(r0, c0), oob_fill=1, mbar=mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    for i in range(32):
        out[i, lane] = t[i, lane]

@T.function
def estride(X: T.Tensor((64, 64), "float32", align=16), out: T.Tensor((8, 32), "float32"), r0: T.int32, c0: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    t = T.alloc_shared((8, 32), "float32", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if lane == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        st: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(st, mbar.ptr_to([0]), T.uint32(1024))
        T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            t, X, box=(16, 32), coords=(r0, c0), element_strides=(2, 1), mbar=mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    for i in range(8):
        out[i, lane] = t[i, lane]

@T.function
def region(X: T.Tensor((100, 40), "float32", align=16), out: T.Tensor((32, 32), "float32"), r0: T.int32, c0: T.int32):
    # the map describes the region X[16:56, 8:40] (40 x 32): coords are
    # relative to it and zero fill starts at its edges, not the tensor's
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    t = T.alloc_shared((32, 32), "float32", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if lane == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        st: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(st, mbar.ptr_to([0]), T.uint32(4096))
        T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            t, X[16:56, 8:40], box=(32, 32), coords=(r0, c0), mbar=mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    for i in range(32):
        out[i, lane] = t[i, lane]

@T.function
def interleave16(A: T.Tensor((2, 4, 64, 8), "uint16", align=16), out: T.Tensor((8, 8), "uint16"), n0: T.int32, c0: T.int32, w0: T.int32):
    # NC/8WC8: the map's unit is one 16-byte channel slice; the box is 8
    # consecutive W of slice c0 of image n0
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    t = T.alloc_shared((1, 1, 8, 8), "uint16", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if lane == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.fence.proxy.async_.shared__cta()
        st: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(st, mbar.ptr_to([0]), T.uint32(128))
        T.cuda.tile.apply(T.ptx["cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
            t, A, box=(1, 1, 8), coords=(n0, c0, w0), interleave=1, mbar=mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    for i in range(2):
        out[i * 4 + lane // 8, lane % 8] = t[0, 0, i * 4 + lane // 8, lane % 8]
