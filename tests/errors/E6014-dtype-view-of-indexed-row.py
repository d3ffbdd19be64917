# args: --target sm_80
# a dtype view of an indexed row
from tvm_tirx.script import tirx as T

@T.function
def k(G: T.Tensor((32, 16), "uint8", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], S[tid, :].view("uint32"), G.sub[tid, :].view("uint32"), chunk_bytes=16)
