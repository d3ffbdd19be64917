# A shared-memory transpose of a 64 x 64 matrix in 32 x 32 tiles that
# reads row r0 + 1 instead of r0 (issue 22): the last row of the bottom
# tiles (block_y = 1, thread y = 7, k = 3: row 32 + 31 + 1 = 64) is past
# A's 64 rows.  The rest of the kernel is in bounds.
from tvm_tirx.script import tirx as T

N = 64

@T.function
def transpose(A: T.Tensor((N, N), "float32"), B: T.Tensor((N, N), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(2, 2), block=(32, 8)))
    S = T.alloc_shared((32, 33), "float32", layout="default")
    bx = T.cuda.block_idx("x")
    by = T.cuda.block_idx("y")
    tx = T.cuda.thread_idx("x")
    ty = T.cuda.thread_idx("y")
    for k in range(4):
        r0 = ty + 8 * k
        S[r0, tx] = A[by * 32 + r0 + 1, bx * 32 + tx]
    T.cuda.cta_sync()
    for k in range(4):
        r = ty + 8 * k
        B[bx * 32 + r, by * 32 + tx] = S[tx, r]
