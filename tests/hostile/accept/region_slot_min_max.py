# A ring slot stepped by the script (s += 1, back to 0 at STAGES) is read
# through T.min(s, STAGES - 1): the region checker takes T.min / T.max
# as values within their arguments' bounds, so these regions are proved
# in bounds without a division by STAGES (which ptxas expands into a
# reciprocal sequence when STAGES is not a power of two).
from tvm_tirx.script import tirx as T

STAGES = 5


@T.function
def ring(A: T.Tensor((STAGES, 4), "float32", align=16), B: T.Tensor((128, 4), "float32", align=16), n: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    x = T.alloc_local((4,), "float32", layout="default")
    s: T.uint32 = T.uint32(0)
    k: T.int32 = 0
    for i in range(n):
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[T.min(s, T.uint32(STAGES - 1)), :])
        # both bounds: k may go negative, T.max(., 0) keeps it at a slot
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[T.max(T.min(k, STAGES - 1), 0), :])
        s += 1
        if s == STAGES:
            s = T.uint32(0)
        k = k - 1
    T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[tid, :], x)
