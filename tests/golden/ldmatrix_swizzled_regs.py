# An ldmatrix.x4 into a register tile whose slots are swizzled:
# ComposeLayout(0, 1, 1, ...) maps slot m to m ^ ((m & 2) >> 1), so
# matrix 2 (the third destination) lands in slot 3 (lmem_R+12) and
# matrix 3 in slot 2 (lmem_R+8); matrices 0 and 1 stay in slots 0, 1.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def k(A: T.Tensor((32, 4), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((4, 8, 8), "uint32", align=16)
    R = T.alloc_local((4, 8, 4), "uint32", layout=T.ComposeLayout(0, 1, 1, T.TileLayout(T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)])))
    T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, S[:, :, 0:4], scope="warp")
    l = T.cuda.lane_id()
    for i in T.serial(4):
        A[l, i] = R[i, l // 4, l % 4]
