# softmax_racy.py with its race fixed: a CTA barrier after every thread
# has read the two maxima (line 26), so lane 0 of each warp may reuse its
# slot for the sum.  `--check-races` must accept it.
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
    T.cuda.cta_sync()
    e: T.float32 = T.exp(x - mx)
    s: T.float32 = e
    for i in range(5):
        o2 = T.ptx["shfl.sync.bfly.b32"](s, 16 >> i, 31, 0xffffffff)
        s = s + o2
    if lane == 0:
        red[w] = s
    T.cuda.cta_sync()
    Y[tid] = e / (red[0] + red[1])
