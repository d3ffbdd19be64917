# TIRx surface (issue 22): T.cuda.atomic_cas (the old value, a swap and a
# miss, 32 and 64 bits), T.cuda.thread_fence, T.cuda.nano_sleep (a constant
# and an int32 count), T.cuda.make_float2, T.reinterpret(x, ty=...) with
# TIRx's "handle" dtype.
# Values (tests/suites/tirx_surface.sh, every tensor iota): A = 0 50 2 12
# (CAS of A[1] == 1 swaps in 50 and returns 1, CAS of A[2] against 9 misses
# and returns 2; A[3] = 1 * 10 + 2); W = 101 2^40 (W[1] == 1 swaps);
# P[0] = P[1] = bits(2.0f) << 32 | bits(1.0f).
# expect: atom.cas.b32=2, atom.cas.b64=1, membar.gl=1, nanosleep.u32=2
from tvm_tirx.script import tirx as T


@T.function
def surface_cuda_sync(A: T.Tensor((4,), "int32"), W: T.Tensor((2,), "uint64"),
                      F: T.Tensor((3,), "float32"), P: T.Tensor((2,), "uint64")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.thread_idx("x")
    T.cuda.nano_sleep(lane + 5)
    if lane == 0:
        hit: T.let = T.cuda.atomic_cas(A.ptr_to([1]), T.int32(1), T.int32(50))
        miss: T.let = T.cuda.atomic_cas(A.ptr_to([2]), T.int32(9), T.int32(60))
        A[3] = hit * 10 + miss
        T.cuda.thread_fence()
        T.cuda.nano_sleep(100)
        wide: T.let = T.cuda.atomic_cas(W.ptr_to([1]), T.uint64(1), T.uint64(1099511627776))
        W[0] = wide + T.uint64(100)
        P[0] = T.cuda.make_float2(F[1], F[2])
        h: T.let = T.reinterpret(P[0], ty="handle")
        P[1] = T.reinterpret(h, ty="uint64")
