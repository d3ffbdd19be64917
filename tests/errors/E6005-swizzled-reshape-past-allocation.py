# args: --target sm_80
# a 16-row reshape view of an 8-row (1024-byte) shared allocation: the
# copies of rows 8..15 would land past its end (accepted before: the
# swizzled view hid the constant indices from the bounds check)
from tvm_tirx.script import tirx as T

@T.function
def k(G: T.Tensor((16, 64), "float16", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((8, 64), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(8, 64):(64, 1)])), align=1024)
    V = S.view(16, 64, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(16, 64):(64, 1)])))
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], V[:, 0:8], G[:, 0:8], chunk_bytes=16)
