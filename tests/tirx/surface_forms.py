# TIRx surface (issue 22): raw forms TIRx kernels use - ld.volatile,
# fns.b32, movmatrix (sm_80+); tests/suites/ptx_forms_tirx.sh checks them
# with ptxas per target.
# expect: ld.volatile.global.u64=1, ld.volatile.global.u32=1, fns.b32=1, movmatrix.sync.aligned.m8n8.trans.b16=1
from tvm_tirx.script import tirx as T


@T.function
def surface_forms(A: T.Tensor((1,), "uint64"), U: T.Tensor((32, 4), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.thread_idx("x")
    if lane == 0:
        T.ptx.ld.volatile.global_.u64(A[0], A.data)
    T.ptx.ld.volatile.global_.u32(U[lane, 0], U.ptr_to([lane, 1]))
    T.ptx.fns.b32(U[lane, 2], U[lane, 0], T.uint32(0), T.int32(1))
    T.ptx.movmatrix.sync.aligned.m8n8.trans.b16(U[lane, 3], U[lane, 1])
