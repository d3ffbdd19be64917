# gate: sm_80
# expect: atom.cas.b32, atom.cas.b64, membar.gl, nanosleep.u32, div.approx.f32, clz.b32, redux.sync.add.u32, redux.sync.min.u32, cvt.rn.bf16x2.f32
# TIRx's T.cuda intrinsics of issue 22 (the PTX nvcc writes for each; ffs
# through clz, see src/codegen/builtin.c): all exist from sm_80 on.
from tvm_tirx.script import tirx as T


@T.function
def cuda_intrinsics(A: T.Tensor((32,), "int32"), W: T.Tensor((1,), "uint64"),
                    F: T.Tensor((32,), "float32"), U: T.Tensor((32,), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.thread_idx("x")
    old: T.let = T.cuda.atomic_cas(A.ptr_to([lane]), lane, lane + 1)
    wide: T.let = T.cuda.atomic_cas(W.data, T.uint64(0), T.uint64(1))
    T.cuda.thread_fence()
    T.cuda.nano_sleep(T.cast(wide, "uint32"))
    F[lane] = T.cuda.fdividef(F[lane], F[(lane + 1) % 32])
    A[lane] = old + T.cuda.ffs_u32(U[lane])
    U[lane] = T.cuda.reduce_add_sync_u32(T.uint32(0xFFFFFFFF), U[lane]) + \
        T.cuda.reduce_min_sync_u32(T.uint32(0xFFFFFFFF), U[lane]) + \
        T.cuda.float22bfloat162_rn(F[lane], F[0])
