# tile_ld_st.py - tile ld/st at CTA and thread scope: ld.global.v4.b32 /
# st.shared.v4.b32 with the reference's (2, 32, 3, 4) register layout
# (3 issues each per thread), cache and eviction qualifiers, a
# cache-policy operand, a predicated load that keeps its destination,
# shared::cta and local spaces, 64-bit v2 forms and .nc loads.
from tvm_tirx.script import tirx as T

@T.function
def tile_ld_st(
    A: T.Tensor((2, 32, 3, 4), "float32", align=16),
    B: T.Tensor((2, 32, 3, 4), "float32", align=16),
    C: T.Tensor((64, 2, 2), "uint64", align=16),
    pol: T.uint64,
    n: T.int32,
):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    tid = T.cuda.thread_idx("x")
    R = T.alloc_local((2, 32, 3, 4), "float32",
                      layout=T.TileLayout(T.S[(2, 32, 3, 4):(1@T.Axis.warpid, 1@T.Axis.laneid, 4, 1)]))
    S = T.alloc_shared((2, 32, 3, 4), "float32", layout="default", align=16)
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], R, A, scope="cta")
    T.cuda.tile.apply(T.ptx["st.shared.v4.b32"], S, R, scope="cta")
    T.cuda.cta_sync()
    T.cuda.tile.apply(T.ptx["ld.shared::cta.v4.b32"], R, S, scope="cta")
    T.cuda.tile.apply(T.ptx["ld.global.L1::evict_last.L2::cache_hint.v4.b32"], R, A, scope="cta",
                      cache_policy=pol, pred=tid < n, preserve_dst=True)
    T.cuda.tile.apply(T.ptx["st.global.cg.v4.b32"], B, R, scope="cta")
    W = T.alloc_local((2, 2), "uint64", layout="default")
    L = T.alloc_local((2, 2), "uint64", layout="default", align=16)
    T.cuda.tile.apply(T.ptx["ld.global.cg.v2.b64"], W, C.sub[tid, :, :])
    T.cuda.tile.apply(T.ptx["st.local.v2.b64"], L, W)
    T.cuda.tile.apply(T.ptx["ld.local.v2.b64"], W, L)
    T.cuda.tile.apply(T.ptx["st.global.v2.b64"], C.sub[tid, :, :], W)
    # non-coherent (read-only path) loads: .nc with a cache operator or an
    # L1 eviction priority
    T.cuda.tile.apply(T.ptx["ld.global.nc.v4.b32"], R, A, scope="cta")
    T.cuda.tile.apply(T.ptx["ld.global.cg.nc.v4.b32"], R, A, scope="cta")
    T.cuda.tile.apply(T.ptx["ld.global.nc.L1::no_allocate.v4.b32"], R, A, scope="cta")
    T.cuda.tile.apply(T.ptx["ld.global.nc.v2.b64"], W, C.sub[tid, :, :])
