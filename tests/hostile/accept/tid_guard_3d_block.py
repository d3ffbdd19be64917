# In a (64, 1, 2) block, threadIdx.x < 32 holds in warp 0 (z = 0) and in
# warp 2 (z = 1): the guard narrows threadIdx.x, not the warp range, so
# this CTA-scope load still covers warps 0..3 and R's warp axis of 4 is
# the right shape (issue 19, mutation survivor env.c:207: the mutant
# read the threadIdx.x range as the thread range of a 1-D block,
# narrowed the warps to 0 alone and refused R's shape, E3115).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((4, 32, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=(64, 1, 2)))
    tid = T.cuda.thread_idx("x")
    R = T.alloc_local((4, 32, 4), "float32",
                      layout=T.TileLayout(T.S[(4, 32, 4):(1@T.Axis.warpid, 1@T.Axis.laneid, 1)]))
    if tid < 32:
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], R, A, scope="cta")
