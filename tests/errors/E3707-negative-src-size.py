# args: --target sm_80
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32, 16), "uint8", align=16), G: T.Tensor((32, 16), "uint8", align=16), p: T.uint64, n: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    L = T.alloc_local((16,), "uint8", layout="default")
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], S.sub[tid, :], A.sub[tid, :], chunk_bytes=16, src_size=-1)
