# target: sm_90a
# A warp-scope TMA load: lane l issues its own box (1, 32) at row
# 16 + l (base coordinate 16, group step 1 per lane) into its 128-byte
# row of s.  Checked by hand in the .ptx: the coordinate vector is
# {0, 16 + laneid} (innermost first: `mov.b32 %r8, 16`, `add.s32 %r9,
# %r8, %r7` with %r7 the lane id), the shared destination smem_s +
# lane * 32 * 4 bytes.  The base is a T.int32 literal, which the
# lowering folds as a constant (issue 19, mutation survivor tma.c:937,
# seed 12: the mutant took any constant base for 0 and issued row l).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((64, 32), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((32, 1, 32), "float32", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.cuda.tile.apply(
        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"],
        s, A, box=(1, 32), coords=(T.int32(16), 0), coord_steps=((1, 0),), scope="warp",
        mbar=mbar.ptr_to([0]))
