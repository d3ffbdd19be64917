# args: --target sm_80
# a reshape view spanning 32 rows of a 16-row allocation, used through a
# loop-dependent row block
from tvm_tirx.script import tirx as T

@T.function
def k(G: T.Tensor((32, 16), "uint8", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((16, 16), "uint8", align=16)
    V = S.view(32, 16, layout=T.TileLayout(T.S[(32, 16):(16, 1)]))
    for i in range(2):
        T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], V[16 * i:16 * i + 16, :], G[16 * i:16 * i + 16, :], chunk_bytes=16)
