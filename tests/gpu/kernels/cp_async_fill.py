# cp_async_fill.py - cp.async tile calls for tests/gpu/gpu_cp_async.c:
# partial and full zero fill, ignore_src, and pred=False (no write).
# Launch: grid=1, block=32; thread t owns row t of each shared buffer.
#   A    uint8 (32, 16) global source, 16-byte rows
#   Out  uint8 (4, 32, 16): case c's shared buffer, written out whole
#   valid_rows, skip  runtime rows (the host passes 8 and 5)
# Every shared byte starts as 0xAB; a barrier orders that fill before the
# copies.  Per thread t (row t):
#   case 0  .cg 16 B, uint8 -> uint8, src_size = 16 if t < valid_rows
#           else t % 16: the first src_size bytes copied, the rest zero
#           (t == 16: src_size 0, the whole row zero)
#   case 1  .cg 16 B, float16 view of A -> b32 view of shared,
#           ignore_src = t >= valid_rows (row zero), pred = t != skip
#           (row t == skip keeps 0xAB)
#   case 2  .ca 8 B, bytes 8..15 of A's row -> bytes 0..7 of the shared
#           row, src_size = t % 9; bytes 8..15 keep 0xAB; pred false for
#           t % 4 == 3 (whole row keeps 0xAB)
#   case 3  .ca 4 B, b32 view: word 2 of A's row -> word 1 of the shared
#           row, pred = t % 3 != 0; all other words keep 0xAB
# Then commit_group, wait_group 0 and a CTA barrier before the plain
# stores of the four buffers to Out.
from tvm_tirx.script import tirx as T

@T.function
def cp_async_fill(A: T.Tensor((32, 16), "uint8", align=16), Out: T.Tensor((4, 32, 16), "uint8"), valid_rows: T.int32, skip: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    s0 = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    s1 = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    s2 = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    s3 = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    for j in range(16):
        s0[tid, j] = T.uint8(0xAB)
        s1[tid, j] = T.uint8(0xAB)
        s2[tid, j] = T.uint8(0xAB)
        s3[tid, j] = T.uint8(0xAB)
    T.cuda.cta_sync()
    T.cuda.tile.apply(
        T.ptx["cp.async.cg.shared.global"],
        s0.sub[tid, :], A.sub[tid, :], chunk_bytes=16,
        src_size=T.if_then_else(tid < valid_rows, T.uint32(16), T.cast(tid % 16, "uint32")),
    )
    T.cuda.tile.apply(
        T.ptx["cp.async.cg.shared.global"],
        s1.view("uint32").sub[tid, :], A.view("float16").sub[tid, :], chunk_bytes=16,
        ignore_src=tid >= valid_rows, pred=tid != skip,
    )
    T.cuda.tile.apply(
        T.ptx["cp.async.ca.shared.global"],
        s2.sub[tid, 0:8], A.sub[tid, 8:16], chunk_bytes=8,
        src_size=T.cast(tid % 9, "uint32"), pred=tid % 4 != 3,
    )
    T.cuda.tile.apply(
        T.ptx["cp.async.ca.shared.global"],
        s3.view("uint32").sub[tid, 1:2], A.view("uint32").sub[tid, 2:3], chunk_bytes=4,
        pred=tid % 3 != 0,
    )
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    for i in range(16):
        Out[0, i * 2 + tid // 16, tid % 16] = s0[i * 2 + tid // 16, tid % 16]
        Out[1, i * 2 + tid // 16, tid % 16] = s1[i * 2 + tid // 16, tid % 16]
        Out[2, i * 2 + tid // 16, tid % 16] = s2[i * 2 + tid // 16, tid % 16]
        Out[3, i * 2 + tid // 16, tid % 16] = s3[i * 2 + tid // 16, tid % 16]
