# args: --target sm_90a
# ld.global.v8.b32 (256-bit loads) needs sm_100 (PTX ISA 8.8, ld: .v8
# with 32-bit types); on sm_90a the tile call is E4000 at the form's
# target check (issue 19, mutation survivor ld_st.c:89, seed 12: the
# mutant skipped that check once the form was selected and compiled
# the call for sm_90a).  tests/golden/tile_sm100.py is the same load on
# sm_100a.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid

@T.function
def k(A: T.Tensor((32, 2, 8), "uint32", align=32)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    R = T.alloc_local((32, 2, 8), "uint32", layout=T.TileLayout(T.S[(32, 2, 8):(1@laneid, 8, 1)]))
    T.cuda.tile.apply(T.ptx["ld.global.v8.b32"], R, A, scope="warp")
