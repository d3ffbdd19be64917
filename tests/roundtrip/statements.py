# Round-trip input: imports, module constants, symbolic sizes, scalar
# parameters, every statement form, operators and precedence.
import math
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, R, TileLayout, ComposeLayout
from tvm_tirx.backend.cuda.axis import laneid, warpid

N = 128
HALF = N // 2
NAME = "float32"
SHAPE = (4, 8)
SCALE = 0.5
MASK = 0xFF00
n = T.dynamic("n")
m = T.dynamic("m")


@T.function
def kernel(A: T.Tensor((n, 64), NAME, align=16), B: T.Tensor((N,), T.int32),
           x: T.int32, y: T.uint32, f: T.float32, big: T.uint64, tm: T.TensorMap()):
    """A docstring is ignored."""
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(T.ceildiv(n, 4), 2), block=(32, 4), cluster=(2, 1)))
    tid = T.cuda.thread_idx("x")
    bid = T.cuda.block_idx("y")
    lane = T.cuda.lane_id()
    warp = T.cuda.warp_id()
    cta = T.cuda.cluster_cta_id("z")
    a: T.int32 = tid + 1
    b: T.uint32 = y & MASK | 3
    c: T.int64
    c = T.cast(a, "int64") << 2
    d = (a + 2) * (tid - 3) // 4 % 5
    e = a - (tid - 1)
    g = -a + ~tid
    h = T.cast(b, ty="int32") ^ (a >> 1)
    k: T.float32 = f * SCALE + 1
    k += 2.5
    k = T.exp(k) + T.exp2(k) + T.log(k) + T.log2(k) + T.sqrt(k) + T.rsqrt(k)
    k = T.tanh(k) - T.sigmoid(k) + T.abs(k) + T.fma(k, k, 1.0)
    mn = T.min(a, 3) + T.max(x, a) + T.ceildiv(a, 4)
    sel = T.if_then_else(a < 4 and not (x == 2 or tid >= 7), a, x)
    bits = T.reinterpret("uint32", k)
    u8 = T.cast(300, "uint8")
    neg = T.int64(-5)
    wide: T.uint64 = big + 18446744073709551615
    p = T.bool(1)
    t = T.uint32(x)
    q = a / 3
    flag = (a == 0) & (x != 1)
    if flag and T.cuda.elect_sync():
        B[tid] = a
    elif tid < 8:
        B[tid] += 1
    elif tid < 16:
        pass
    else:
        B[tid] = B[tid] * 2
    for i in range(4):
        a = a + i
        if i == 2:
            continue
        if i == 3:
            break
    for i in range(1, x):
        a = a + i
    for j in range(0, 16, 2):
        a = a - j
    for j in T.serial(8):
        a += j
    for j in T.unroll(2, 6):
        a += j
    while a > 0:
        a = a - 1
        if a == 5:
            break
    T.evaluate(T.cuda.cta_sync())
    T.cuda.warp_sync()
    T.cuda.cluster_sync()
    A[tid, 3] = A[tid, 4] + T.float32(d)
