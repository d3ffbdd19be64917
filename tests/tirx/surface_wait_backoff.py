# TIRx surface (issue 22): T.cuda.wait_until with backoff_ns= (a
# nanosleep.u32 between polls, none before the first), ptx_type="b32" on an
# int32 word, a tensor element as the destination of a predicate= lambda,
# and ptx_type=None (the default) on a second wait.
# Values (tests/suites/tirx_surface.sh, S = iota): warp 1 adds 1 to S[2]
# (2 -> 3) after warp 0 starts waiting for S[2] >= 3; the wait ends with
# spin[0] = 3: S[0] = 3 + 10 = 13; the second wait reads 3 at once: S[1] = 3.
# expect: nanosleep.u32=1, ld.relaxed.gpu.global.b32=2, ld.acquire.gpu.global.b32=1, ld.relaxed.gpu.global.s32=2, ld.acquire.gpu.global.s32=1, red.release.gpu.global.add.s32=1
from tvm_tirx.script import tirx as T


@T.function
def surface_wait_backoff(S: T.Tensor((4,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    tid = T.cuda.thread_idx("x")
    spin = T.alloc_local((1,), "int32")
    if tid == 0:
        spin[0] = T.int32(0)
        T.cuda.wait_until(spin[0], S.ptr_to([2]), predicate=lambda v: v >= 3,
                          scope="gpu", ptx_type="b32", backoff_ns=40)
        S[0] = spin[0] + 10
        again: T.int32
        T.cuda.wait_until(again, S.ptr_to([2]), again == 3, ptx_type=None, backoff_ns=None)
        S[1] = again
    if tid == 32:
        T.ptx.red.release.gpu.global_.add.s32(S.ptr_to([2]), T.int32(1))
