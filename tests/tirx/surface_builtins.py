# TIRx surface (issue 22): T.cuda.ballot_sync, clock64, uint_as_float,
# float_as_uint, wait_until (a predicate lambda and a condition).
# Values (tests/suites/tirx_surface.sh, S = iota, F = iota): U[l] = 31,
# F[l] = 2 l for l >= 1 (exponent + 1), S[3] = 2 + 40, S[0] = 1 + 40.
# expect: vote.sync.ballot.b32=1, mov.u64=1, ld.relaxed.gpu.global.s32=2, ld.acquire.gpu.global.s32=1, ld.relaxed.cta.global.s32=2, ld.acquire.cta.global.s32=1
from tvm_tirx.script import tirx as T


@T.function
def surface_builtins(S: T.Tensor((4,), "int32"), U: T.Tensor((32,), "uint32"),
                     F: T.Tensor((32,), "float32"), C: T.Tensor((1,), "uint64")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.thread_idx("x")
    U[lane] = T.cuda.ballot_sync(T.uint32(0xFFFFFFFF), lane < 5)
    F[lane] = T.cuda.uint_as_float(T.cuda.float_as_uint(F[lane]) + T.uint32(0x00800000))
    if lane == 0:
        C[0] = T.cuda.clock64()
        seen: T.int32
        T.cuda.wait_until(seen, S.ptr_to([2]), predicate=lambda v: v == 2)
        S[3] = seen + 40
        got: T.int32
        T.cuda.wait_until(got, S.ptr_to([1]), got >= 1, scope="cta")
        S[0] = got + 40
