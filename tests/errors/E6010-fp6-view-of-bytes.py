# args: --target sm_80
# a 6-bit view of 8-bit elements: neither width divides the other
from tvm_tirx.script import tirx as T

@T.function
def k(G: T.Tensor((32, 16), "uint8", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], S.view("float6_e2m3fn"), G, chunk_bytes=16)
