# A lane guard against a runtime bound: `lane < n` leaves lanes n..31
# out for n below 32, so a warp collective under it is E3502 (issue 19,
# mutation survivor env.c:312, seed 15: the mutant took a lane
# comparison with any operand that does not itself read the lane as
# exact, and accepted).
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid, warpid

@T.function
def k(n: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    S = T.alloc_shared((4, 8, 8), "uint32", align=16)
    R = T.alloc_local((4, 8, 4), "uint32", layout=T.TileLayout(T.S[(4, 8, 4):(1, 4@laneid, 1@laneid)]))
    if T.cuda.lane_id() < n:
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], R, S[:, :, 0:4], scope="warp")
