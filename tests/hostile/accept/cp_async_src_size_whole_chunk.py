# src_size equal to the chunk (8 of 8 bytes) reads the whole chunk: PTX
# allows src-size up to cp-size, so only src_size > chunk is E3707
# (tests/errors/E3707-src-size-over-chunk.py).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32, 16), "uint8", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    T.cuda.tile.apply(T.ptx["cp.async.ca.shared.global"], S.sub[tid, 0:8], A.sub[tid, 0:8], chunk_bytes=8, src_size=8)
