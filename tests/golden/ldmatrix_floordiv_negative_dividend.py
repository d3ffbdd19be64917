# target: sm_90a
# A quotient the prover made, written back as IR, divides with floor
# semantics when its dividend can be negative: the ldmatrix row
# addresses of a reshaped view (V = S.view(4, 8, 8), so the lane's row
# address is a sum the tile checker rebuilds) start at matrix
# (j - 5) // 8 + 1, whose dividend j - 5 runs over [-5, 2]: -1 for
# j < 5.  Checked by hand in the .ptx: `add.s32 %r3, %r2, -5` then
# `shr.s32 %r4, %r3, 3` (arithmetic shift: floor division by 8, -1 for
# -5..-1), times 64 words, plus 8 words per row (lane & 7), times 4
# bytes, with the constant part (matrix 1, column 4: 68 words) in the
# [reg+272] immediate; for j < 5 that is byte 16 of row r (matrix 0).
# Issue 19, mutation survivor env.c:636 (seed 12): the mutant divided
# unsigned (`shr.u32`), which for j < 5 gives 536870911 and a row far
# outside S.
from tvm_tirx.script import tirx as T
from tvm_tirx.backend.cuda.axis import laneid

@T.function
def k(out: T.Tensor((32, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((256,), "uint32", align=16)
    V = S.view(4, 8, 8)
    R1 = T.alloc_local((1, 8, 4), "uint32", layout=T.TileLayout(T.S[(1, 8, 4):(1, 4@laneid, 1@laneid)]))
    for j in range(8):
        T.cuda.tile.apply(T.ptx["ldmatrix.sync.aligned.m8n8.x1.shared.b16"], R1, V[(j - 5) // 8 + 1:(j - 5) // 8 + 2, :, 4:8], scope="warp")
