# tile_copy.py - a bandwidth kernel written only with tile calls: copies
# N = 2^29 float32 (2 GiB) from A to B.  Each CTA of 256 threads moves
# 16 KiB: four repeats of a CTA-scope ld.global.v4.b32 into a distributed
# register tile, then four st.global.v4.b32.  The memory view puts the
# repeat axis outside the (warp, lane) group so that each repeat is one
# fully coalesced 4 KiB row of 16-byte atoms:
#     element(bx, w, l, r, a) = bx*4096 + r*1024 + w*128 + l*4 + a
# Its hand-written CUDA C++ twin with inline PTX is tile_copy.cu, which
# also times a device-to-device copy in the same run.
from tvm_tirx.script import tirx as T

N = 536870912
G = N // 4096

@T.function
def tile_copy(A: T.Tensor((N,), "float32", align=16), B: T.Tensor((N,), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=G, block=256))
    bx = T.cuda.block_idx("x")
    R = T.alloc_local((8, 32, 4, 4), "float32",
                      layout=T.TileLayout(T.S[(8, 32, 4, 4):(1@T.Axis.warpid, 1@T.Axis.laneid, 4, 1)]))
    src = A.view(G, 8, 32, 4, 4, layout=T.TileLayout(T.S[(G, 8, 32, 4, 4):(4096, 128, 4, 1024, 1)]))
    dst = B.view(G, 8, 32, 4, 4, layout=T.TileLayout(T.S[(G, 8, 32, 4, 4):(4096, 128, 4, 1024, 1)]))
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], R, src.sub[bx, :, :, :, :], scope="cta")
    T.cuda.tile.apply(T.ptx["st.global.v4.b32"], dst.sub[bx, :, :, :, :], R, scope="cta")
