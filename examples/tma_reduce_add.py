# tma_reduce_add.py - add a 32 x 64 float32 tile of X into D with one TMA
# reduction per CTA: D[32 b + i, j] += X[32 b + i, j].  The tile is staged
# in shared memory by ordinary loads; D must hold its intended starting
# value before the launch (the reduction reads it).
#
# Protocol (caller code): proxy fence by every writing thread, CTA
# barrier, one issuing thread, commit_group, wait_group.  No mbarrier.
# Source: cuda_tile_instruction_reference.rst, "Stores, reductions, and
# completion".  Target: sm_90 and later.
from tvm_tirx.script import tirx as T

m = T.dynamic("m")

@T.function
def tma_reduce_add(X: T.Tensor((m, 64), "float32"), D: T.Tensor((m, 64), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=m // 32, block=64))
    tid = T.cuda.thread_idx("x")
    b = T.cuda.block_idx("x")
    tile = T.alloc_shared((32, 64), "float32", layout="default", align=128)
    for r in range(32):
        tile[r, tid] = X[b * 32 + r, tid]
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if tid == 0:
        T.cuda.tile.apply(
            T.ptx["cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"],
            D, tile, box=(32, 64), coords=(b * 32, 0))
        T.ptx.cp.async_.bulk.commit_group()
        T.ptx.cp.async_.bulk.wait_group(0)
