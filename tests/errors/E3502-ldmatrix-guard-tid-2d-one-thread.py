# threadIdx.x == 5 in a (32, 2) block keeps one lane of each warp: E3502
# (a single thread is an exact lane range only in a 1-D block)
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def k():
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=(32, 2)))
    S = T.alloc_shared((4, 8, 8), "uint32", align=16)
    R = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)]))
    if T.cuda.thread_idx("x") == 5:
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, S[:, :, 0:4], scope="warp")
