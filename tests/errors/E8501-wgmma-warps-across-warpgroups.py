# args: --target sm_90a
# Warps 2..7 of a 256-thread block are all of warpgroup 1 but only
# warps 2-3 of warpgroup 0: wgmma.mma_async.sync.aligned needs every
# warp of each warpgroup that executes it (PTX ISA, wgmma .aligned), so
# warpgroup 0 may not issue it here.  Found while checking issue 19's
# mutation survivor common.c:240: the range crosses a warpgroup
# boundary, so the warp-in-group ids are the hull 0..3, which the check
# took for a whole warpgroup, and this compiled.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg


@T.function
def k():
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=256))
    warp = T.cuda.warp_id()
    AT = T.alloc_shared((1024,), "float32", align=128)
    BT = T.alloc_shared((64,), "float32", align=128)
    ATv = AT.view(2, 1, 64, 8, layout=T.TileLayout(T.S[(2, 1, 8, 8, 2, 4):(512, 0, 64, 4, 32, 1)]))
    BTv = BT.view(1, 1, 8, 8, layout=T.TileLayout(T.S[(1, 1, 8, 2, 4):(0, 0, 4, 32, 1)]))
    DT = T.alloc_local((4, 2, 1, 16, 8), "float32", layout=T.TileLayout(T.S[(4, 2, 1, 2, 8, 1, 4, 2):(1@wid_in_wg, 4, 4, 2, 4@laneid, 4, 1@laneid, 1)]))
    T.ptx["wgmma.fence.sync.aligned"]()
    if warp >= 2:
        T.cuda.tile.apply(T.ptx["wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32"], DT, ATv, BTv, scope="warpgroup")
    T.ptx["wgmma.commit_group.sync.aligned"]()
    T.ptx["wgmma.wait_group.sync.aligned"](0)
