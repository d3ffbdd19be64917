# target: sm_90a
# The cluster rank ranges over [0, cluster): CTA r of a 2-CTA cluster copies
# rows 32 r .. 32 r + 31, provably inside the 64-row tensors.
from tvm_tirx.script import tirx as T

@T.function
def halves(A: T.Tensor((64, 4), "float32", align=16), B: T.Tensor((64, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32, cluster=2))
    rank = T.cuda.cluster_cta_id("x")
    lane = T.cuda.lane_id()
    x = T.alloc_local((4,), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[rank * 32 + lane, :])
    T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[rank * 32 + lane, :], x)
