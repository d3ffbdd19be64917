# A zero-stride view is read-only, but only a written operand must be
# writable: as the cp.async source it reads row 0 of G into all 32 rows
# of S (each 16-byte chunk from a valid, aligned global address).
from tvm_tirx.script import tirx as T

@T.function
def k(G: T.Tensor((32, 16), "uint8", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    bc = G.view(32, 16, layout=T.TileLayout(T.S[(32, 16):(0, 1)]))
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], S, bc, chunk_bytes=16)
