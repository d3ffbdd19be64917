# TIRx surface (issue 22): the CUDA intrinsics T.cuda.fdividef, ffs_u32,
# reduce_add_sync_u32, reduce_min_sync_u32, float22bfloat162_rn;
# T.serial(..., dtype="uint32"); KernelAttributes(required_block_size=True).
# Values (tests/suites/tirx_surface.sh, every tensor iota): F[l] = l / 4;
# I[l] = ffs(l) (1 + the lowest set bit's index, 0 for 0); R[l] = 496 + 3
# (0 + ... + 31, then min(l + 3)); H[0] = bf16(-2.0) << 16 | bf16(1.0) =
# 0xc0003f80 = 3221241728; S = 0 3 6 9.
# expect: div.approx.f32=1, clz.b32=1, redux.sync.add.u32=1, redux.sync.min.u32=1, cvt.rn.bf16x2.f32=1, setp.ge.u32=1
from tvm_tirx.script import tirx as T


@T.function
def surface_cuda_intrinsics(F: T.Tensor((32,), "float32"), U: T.Tensor((32,), "uint32"),
                            I: T.Tensor((32,), "int32"), R: T.Tensor((32,), "uint32"),
                            H: T.Tensor((1,), "uint32"), S: T.Tensor((4,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32),
                   kernel_attrs=T.cuda.KernelAttributes(required_block_size=True))
    lane = T.cuda.thread_idx("x")
    F[lane] = T.cuda.fdividef(F[lane], T.float32(4.0))
    I[lane] = T.cuda.ffs_u32(U[lane])
    R[lane] = T.cuda.reduce_add_sync_u32(T.uint32(0xFFFFFFFF), U[lane]) + \
        T.cuda.reduce_min_sync_u32(T.uint32(0xFFFFFFFF), U[lane] + T.uint32(3))
    if lane == 0:
        H[0] = T.cuda.float22bfloat162_rn(T.float32(1.0), T.float32(-2.0))
        for k in T.serial(4, dtype="uint32"):
            S[k] = T.int32(k) * 3
