# tma_gather4.py - gather four rows of a (64, 32) uint32 matrix with one
# TMA gather4 issue: rows row, row+3, row+7 and row+11, 32 columns each
# (4 * 32 * 4 = 512 bytes), into a (4, 32) shared tile; then write the
# tile to B.  Afterwards B[k, :] == A[row + (0, 3, 7, 11)[k], :].
# `row` must be at most 52.
#
# Source: cuda_tile_instruction_reference.rst, "Tensor memory accelerator
# transfers" -> "Gather4 and scatter4" (the call is quoted as written).
# The caller supplies the barrier initialisation, the expected
# transaction bytes, the proxy fence, the barrier and the phase wait.
# Target: sm_100a (tile::gather4); compile-only on an H200.
from tvm_tirx.script import tirx as T

@T.function
def tma_gather4(
    A: T.Tensor((64, 32), "uint32", align=16),
    B: T.Tensor((4, 32), "uint32"),
    row: T.int32,
):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    shared = T.alloc_shared((4, 32), "uint32", layout="default", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    if lane == 0:
        T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
        state: T.uint64 = T.uint64(0)
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(state, mbar.ptr_to([0]), T.uint32(512))
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if lane == 0:
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes"],
            shared, A, box=(1,32), coords=(0,0),
            gather4=(row,row+3,row+7,row+11), mbar=mbar.ptr_to([0]),
        )
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    for k in range(4):
        B[k, lane] = shared[k, lane]
