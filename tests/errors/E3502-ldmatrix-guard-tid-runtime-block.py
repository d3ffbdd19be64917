# A thread-id guard in a block of a runtime size: with no static thread
# count the checker cannot tell which lanes `threadIdx.x < 16` leaves
# out (in a block of 32 threads or more it leaves out lanes 16..31 of
# warp 0), so a warp collective under it is E3502
# (issue 19, mutation survivor env.c:318, seed 14: the mutant went on
# with the thread range 0..-1 of the unknown count 0, found it empty,
# took the guard as exact and accepted).
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

nt = T.dynamic("nt")

@T.function
def k():
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=nt))
    S = T.alloc_shared((4, 8, 8), "uint32", align=16)
    R = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)]))
    if T.cuda.thread_idx("x") < 16:
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, S[:, :, 0:4], scope="warp")
