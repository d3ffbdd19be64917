# TIRx surface (issue 22): tuple unpacking (a swap), for ... in T.grid,
# return in a kernel, Tensor.data, T.cuda.atomic_add (the old value).
# Values (tests/suites/tirx_surface.sh): A[i, j] = 10 i + j + 1, B = 7 1 11 2
# (B = iota before); CTA 1 returns before its atomic add of 9 to B[2].
# expect: atom.add.s32=3
from tvm_tirx.script import tirx as T


@T.function
def surface_unpack(A: T.Tensor((4, 8), "int32"), B: T.Tensor((4,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(2,), block=(32,)))
    bx, tx = T.cuda.block_idx("x"), T.cuda.thread_idx("x")
    if bx >= 1:
        return 0
    if tx == 0:
        a, b = 1, 2
        a, b = b, a
        for i, j in T.grid(4, 8):
            A[i, j] = i * 10 + j + a - b
        B[0] = a
        B[1] = b
        T.cuda.atomic_add(B.data, T.int32(4))
        old: T.let = T.cuda.atomic_add(B.data, T.int32(1))
        B[3] = old - 4
    if tx == 1:
        T.cuda.atomic_add(B.ptr_to([2]), T.int32(9))
