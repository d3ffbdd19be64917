# target: sm_80
# cp.async tile calls (reference "Asynchronous global-to-shared copies"):
# the zero-fill call as quoted, ignore_src, pred, .ca 4/8-byte chunks,
# a byte copy between different element widths, and the CTA-scope
# 16-byte .cg staging of a 64x32 float16 tile into a padded and a
# 64B-swizzled shared destination (two repeats per thread).  Each call
# emits one cp.async per repeat and nothing else (no commit/wait).
from tvm_tirx.script import tirx as T

@T.function
def zero_fill(A: T.Tensor((32, 16), "uint8", align=16), valid_rows: T.int32, skip: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    shared = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    T.cuda.tile.apply(
        T.ptx["cp.async.cg.shared.global.L2::128B"],
        shared.sub[tid, :], A.sub[tid, :], chunk_bytes=16,
        src_size=T.if_then_else(tid < valid_rows, T.uint32(16), T.uint32(0)),
    )
    T.cuda.tile.apply(
        T.ptx["cp.async.ca.shared.global"],
        shared.sub[tid, 0:8], A.sub[tid, 8:16], chunk_bytes=8,
        ignore_src=tid >= valid_rows,
    )
    T.cuda.tile.apply(
        T.ptx["cp.async.ca.shared.global"],
        shared.view("uint32").sub[tid, 0:1], A.view("uint32").sub[tid, 3:4],
        chunk_bytes=4, pred=tid != skip,
    )
    T.cuda.tile.apply(
        T.ptx["cp.async.cg.shared.global"],
        shared.view("uint32").sub[tid, :], A.sub[tid, :], chunk_bytes=16,
        src_size=4,
    )
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)

@T.function
def stage_padded(A: T.Tensor((64, 32), "float16", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    smem = T.alloc_shared((64, 32), "float16", layout=T.TileLayout(T.S[(64, 32):(40, 1)]), align=16)
    T.cuda.tile.apply(
        T.ptx["cp.async.cg.shared.global"],
        smem.view(4, 32, 2, 8, layout=T.TileLayout(T.S[(4, 8, 4, 2, 8):(320, 40, 8, 1280, 1)])),
        A.view(4, 32, 2, 8, layout=T.TileLayout(T.S[(4, 8, 4, 2, 8):(256, 32, 8, 1024, 1)])),
        chunk_bytes=16, scope="cta",
    )
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)

@T.function
def stage_swizzled(A: T.Tensor((64, 32), "float16", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    smem = T.alloc_shared((64, 32), "float16", layout=T.ComposeLayout(3, 2, 3, T.TileLayout(T.S[(64, 32):(32, 1)])), align=128)
    for i in range(2):
        T.cuda.tile.apply(
            T.ptx["cp.async.cg.shared.global"],
            smem.sub[i * 32 + tid // 4, tid % 4 * 8 : tid % 4 * 8 + 8],
            A.sub[i * 32 + tid // 4, tid % 4 * 8 : tid % 4 * 8 + 8],
            chunk_bytes=16,
        )
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
