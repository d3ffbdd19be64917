# Target: sm_100a
# TIRx surface (issue 22): T.cuda.make_float2 as TIRx uses it, a float2
# in one 64-bit value (x in the low word) fed to the f32x2 instructions
# (sm_100a), like TVM's test_ptx_f32x2_value_codegen; T.local_scalar
# (TIRx's scalar local) holds the intermediate pairs.
# Values (tests/suites/tirx_surface.sh, B = iota): lhs = {1, 2}, rhs =
# {2, 1}; prod = lhs * rhs = {2, 2}; A[0] = lhs * rhs + prod = {4, 4};
# A[1] = (lhs + rhs) - rhs = {1, 2}; each pair's bits: hi << 32 | lo.
# expect: mul.f32x2=1, fma.rn.f32x2=1, add.rn.f32x2=1, sub.rn.f32x2=1
from tvm_tirx.script import tirx as T


@T.function
def surface_make_float2_sm100(A: T.Tensor((2,), "uint64"), B: T.Tensor((3,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=(32,)))
    tx = T.cuda.thread_idx("x")
    if tx == 0:
        lhs: T.let = T.cuda.make_float2(B[1], B[2])
        rhs: T.let = T.cuda.make_float2(B[2], B[1])
        prod = T.local_scalar("uint64")
        sum_pair = T.local_scalar("uint64")
        T.ptx.mul.f32x2(prod, lhs, rhs)
        T.ptx.fma.rn.f32x2(A[0], lhs, rhs, prod)
        T.ptx.add.rn.f32x2(sum_pair, lhs, rhs)
        T.ptx.sub.rn.f32x2(A[1], sum_pair, rhs)
