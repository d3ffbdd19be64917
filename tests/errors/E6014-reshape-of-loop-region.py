# args: --target sm_80
# a reshape+layout view applies to a whole tensor: rows i..i+32 of a
# 32-row tensor are a region (here i is 0, but the view is not the tensor)
from tvm_tirx.script import tirx as T

@T.function
def k(G: T.Tensor((32, 16), "uint8", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    for i in range(1):
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], S[i:i + 32, :].view(32, 16, layout=T.TileLayout(T.S[(32, 16):(16, 1)])), G, chunk_bytes=16)
