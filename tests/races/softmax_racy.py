# A 64-wide row softmax in two warps with a race (issue 22): the shared
# slot red[w] holds warp w's max, every thread reads both slots after
# the barrier, then lane 0 of each warp writes its warp's sum into the
# same slot.  Only shuffles lie between the other warp's reads of the max
# and that write, and a shuffle orders its own warp only, so
# `--check-races` must report the write to red (line 32) against a read
# of it by the other warp (line 25).  softmax_fixed.py has the barrier.
from tvm_tirx.script import tirx as T

@T.function
def softmax(X: T.Tensor((64,), "float32"), Y: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    red = T.alloc_shared((2,), "float32", layout="default")
    tid = T.cuda.thread_idx("x")
    lane = tid % 32
    w = tid // 32
    x = X[tid]
    m: T.float32 = x
    for i in range(5):
        o = T.ptx["shfl.sync.bfly.b32"](m, 16 >> i, 31, 0xffffffff)
        m = T.max(m, o)
    if lane == 0:
        red[w] = m
    T.cuda.cta_sync()
    mx: T.float32 = T.max(red[0], red[1])
    e: T.float32 = T.exp(x - mx)
    s: T.float32 = e
    for i in range(5):
        o2 = T.ptx["shfl.sync.bfly.b32"](s, 16 >> i, 31, 0xffffffff)
        s = s + o2
    if lane == 0:
        red[w] = s
    T.cuda.cta_sync()
    Y[tid] = e / (red[0] + red[1])
