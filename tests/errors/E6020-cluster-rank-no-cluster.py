# Without a cluster the cluster rank is still an id >= 0 (0 on the
# hardware, where each CTA is a cluster of one): rows rank + lane + 40 run
# to 71 at rank 0 and leave the 48-row tensor A either way.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((48, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=32))
    rank = T.cuda.cluster_cta_id("x")
    lane = T.cuda.lane_id()
    x = T.alloc_local((4,), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[rank + lane + 40, :])
