# args: --target sm_80
# a zero-stride broadcast view is read-only: it cannot be a cp.async destination
from tvm_tirx.script import tirx as T

@T.function
def k(G: T.Tensor((32, 16), "uint8", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    bc = S.view(32, 16, layout=T.TileLayout(T.S[(32, 16):(0, 1)]))
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], bc, G, chunk_bytes=16)
