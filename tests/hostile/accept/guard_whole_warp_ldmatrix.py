from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

# Guards that keep every lane of each warp they let in: a warp collective
# under them has all 32 lanes (the else of a full-range lane test runs on
# no thread).  Guards on lanes the checker cannot bound are E3502
# (tests/errors/E3502-ldmatrix-guard-*.py).
@T.function
def k(n: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    S = T.alloc_shared((4, 8, 8), "uint32", align=16)
    R = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)]))
    if T.cuda.warp_id() * 1 == 0:
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, S[:, :, 0:4], scope="warp")
    if T.cuda.thread_idx("x") < 32:
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, S[:, :, 0:4], scope="warp")
    if n > 3 and T.cuda.lane_id() < 32:
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, S[:, :, 0:4], scope="warp")
    if T.cuda.lane_id() != 40:
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, S[:, :, 0:4], scope="warp")
