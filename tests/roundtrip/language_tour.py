# language_tour.py - one of every construct of docs/language.md, for the
# round trips (script -> print -> script, script -> JSON -> script).  It
# parses and lowers, but it is not a kernel to check or run: some tile
# calls here do not meet their contracts; only the syntax matters.
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, R, TileLayout, ComposeLayout
from tvm_tirx.backend.cuda.axis import laneid, warpid

N = 128
SHAPE = (4, 32)
FRAG = T.TileLayout(T.S[(2, 32, 3, 4):(1@warpid, 1@laneid, 4, 1)])
n = T.dynamic("n")

@T.function
def clamp(x: T.float32, lo: T.float32) -> T.float32:
    y = x * 2.0
    if y < lo:
        return lo
    else:
        return y

@T.function
def kernel(A: T.Tensor((n, 32), "float16", align=16), B: T.Tensor(SHAPE, T.float32),
           k: T.int32, tmap: T.TensorMap()):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(T.ceildiv(n, 4), 1), block=(32, 2), cluster=(2, 1)))
    tid = T.cuda.thread_idx("x")
    lane = T.cuda.lane_id()
    w = T.cuda.warp_id()
    acc: T.uint32 = T.uint32(5)
    cnt: T.int32
    cnt = 0
    sh = T.alloc_shared((64, 8), "float16", layout=ComposeLayout(3, 3, 3, TileLayout(S[(64, 8):(8, 1)])), align=1024)
    d = T.alloc_buffer((16,), "float32", scope="shared.dyn")
    r = T.alloc_local((2, 32, 3, 4), "float32", layout=FRAG)
    priv = T.alloc_local((4,), "uint32", layout="default")
    rep = T.alloc_local((8,), "float32", layout=TileLayout(S[8:4@laneid] + R[4:1@laneid]))
    tm = T.decl_buffer((128, 32), "float32", scope="tmem", allocated_addr=0, layout=T.TileLayout(T.S[(128, 32):(1@T.Axis.TLane, 1@T.Axis.TCol)]))
    words = sh.view("uint32")
    bc = B.view(4, 32, layout=T.TileLayout(T.S[(4, 32):(0, 1)]))
    for i in range(4):
        B[i, lane] = T.cast(A[i, lane], "float32") + bc[i, lane]
    for j in T.serial(0, 8, 2):
        cnt += j
    for j in T.unroll(4):
        if j == 2:
            continue
        elif j == 3:
            break
        else:
            acc = acc ^ T.uint32(j)
    while cnt > 0 and not (k == 3):
        cnt = cnt - 1
    x = T.reinterpret("uint32", B[0, 0]) >> 3
    y = T.if_then_else(k > 0, T.min(k, 7), T.max(-k // 2, k % 3))
    p = sh.ptr_to([tid, 0])
    T.cuda.cta_sync()
    T.cuda.warp_sync()
    T.cuda.cluster_sync()
    if T.cuda.elect_sync():
        T.ptx.fence.proxy.async_.shared__cta()
    T.ptx["mov.b32"](priv[0], x, pred=lane == 0)
    T.evaluate(T.ptx.mov.b32(priv[1], acc))
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], r, B.view(2, 32, 3, 4), scope="cta")
    T.cuda.tile.ewise(clamp, rep, rep, T.float32(0.0))
    T.cuda.tile.apply(T.ptx["add.rn.f32"], r.sub[:, :, 0:1, 0:1], r.sub[:, :, 1:2, 0:1], 1.0, scope="cta")
