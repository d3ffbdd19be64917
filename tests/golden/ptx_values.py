# Value-returning raw PTX, loops over constant sequences and non-finite
# float constants (docs/language.md "Raw PTX" and "Statements").
# tests/suites/emu.sh runs it on A = 0..31 and checks B by hand.
from tvm_tirx.script import tirx as T

STEPS = (16, 8, 4, 2, 1)


@T.function
def warp_reduce(A: T.Tensor((32,), "float32"), B: T.Tensor((4,), "float32"),
                C: T.Tensor((32,), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.thread_idx("x")
    s = A[lane]
    # each step adds the value of the lane s away: after five, every lane
    # holds the sum of all 32
    for d in STEPS:
        s = s + T.ptx["shfl.sync.bfly.b32"](s, d, 31, 0xffffffff)
    m: T.float32 = T.float32("-inf")
    m = T.max(m, A[lane])
    for i in range(5):
        o = T.ptx["shfl.sync.bfly.b32"](m, 16 >> i, 31, 0xffffffff)
        m = T.max(m, o)
    # the lane's own bit, from a typed result (u32 of the form)
    bit: T.uint32 = T.ptx["shfl.sync.idx.b32"](T.uint32(1) << T.cast(lane, "uint32"), lane, 31, 0xffffffff)
    C[lane] = bit
    if lane == 0:
        B[0] = s
        B[1] = m
        B[2] = T.float32("inf")
        B[3] = T.infinity(ty="float32") * -1.0
