# tma_store.py - every thread writes its part of a 32 x 64 float32 tile in
# shared memory (value = 1000 * CTA + 64 * row + column), then one thread
# stores the tile to rows 32 b .. 32 b + 31 of C with one TMA issue.
#
# The store protocol is caller code: each writing thread executes
# fence.proxy.async.shared::cta (its generic-proxy writes become visible
# to the async proxy), a CTA barrier orders all writes and fences before
# the issue, and the issuing thread commits the bulk group and waits for
# it before the CTA may exit.  No mbarrier is used.
# Source: cuda_tile_instruction_reference.rst, "Stores, reductions, and
# completion".  Target: sm_90 and later.
from tvm_tirx.script import tirx as T

m = T.dynamic("m")

@T.function
def tma_store(C: T.Tensor((m, 64), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=m // 32, block=64))
    tid = T.cuda.thread_idx("x")
    b = T.cuda.block_idx("x")
    tile = T.alloc_shared((32, 64), "float32", layout="default", align=128)
    for r in range(32):
        tile[r, tid] = T.cast(b * 1000 + r * 64 + tid, "float32")
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if tid == 0:
        T.cuda.tile.apply(
            T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"],
            C, tile, box=(32, 64), coords=(b * 32, 0))
        T.ptx.cp.async_.bulk.commit_group()
        T.ptx.cp.async_.bulk.wait_group(0)
