# args: --target sm_80
# rows 24..40 of a 32-row tensor
from tvm_tirx.script import tirx as T

@T.function
def k(G: T.Tensor((32, 16), "uint8", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], S[24:40, :], G[0:16, :], chunk_bytes=16)
