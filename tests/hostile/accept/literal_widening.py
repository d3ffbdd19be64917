# An integer literal its neighbour's type cannot hold widens the sum, as
# in TIRx (its literal is an int32 or int64 IntImm, and the narrower
# operand is cast up): before, the literal was wrapped to the other
# operand's type, so tid + 3000000000 was tid - 1294967296 and the
# comparison below false (issue 19: no silent wrong value).
# tests/suites/emu.sh runs it with n = 200: A = 3000000000 500 1 1144.
from tvm_tirx.script import tirx as T


@T.function
def widen(A: T.Tensor((4,), "int64"), n: T.uint32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    tid = T.cuda.thread_idx("x")
    u = T.cast(n, "uint8")
    A[0] = T.int64(tid + 3000000000)
    A[1] = T.int64(u + 300)
    if tid < 3000000000:
        A[2] = T.int64(1)
    else:
        A[2] = T.int64(2)
    # u * 2 stays uint8 (2 fits it: 400 wraps to 144), + 1000 is int32
    A[3] = T.int64(u * 2 + 1000)
