# cp_async_zero_fill.py - stage a (32, 16) uint8 tile in shared memory
# with one 16-byte cp.async per thread, zero-filling the rows at and past
# `valid_rows` (src_size=0 still issues the copy, unlike pred=False), then
# write the tile to B.  Afterwards B[r, :] == A[r, :] for r < valid_rows
# and B[r, :] == 0 for the other rows.
#
# Source: cuda_tile_instruction_reference.rst, "Asynchronous global-to-
# shared copies" -> "Predication is different from zero fill" (the call
# is quoted as written).  The caller supplies commit, wait and the CTA
# barrier, as "Completion and errors" requires.
# Target: sm_80 and later.
from tvm_tirx.script import tirx as T

ROWS = 32

@T.function
def cp_async_zero_fill(
    A: T.Tensor((ROWS, 16), "uint8", align=16),
    B: T.Tensor((ROWS, 16), "uint8", align=16),
    valid_rows: T.int32,
):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=ROWS))
    tid = T.cuda.thread_idx("x")
    shared = T.alloc_shared((ROWS, 16), "uint8", layout="default", align=16)
    T.cuda.tile.apply(
        T.ptx["cp.async.cg.shared.global.L2::128B"],
        shared.sub[tid, :], A.sub[tid, :], chunk_bytes=16,
        src_size=T.if_then_else(tid < valid_rows, T.uint32(16), T.uint32(0)),
    )
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    # Read the row written by the next thread: the barrier above is what
    # makes another thread's completed copy visible.
    row = (tid + 1) % ROWS
    for j in range(16):
        B[row, j] = shared[row, j]
