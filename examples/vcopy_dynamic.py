# vcopy_dynamic.py - copy an (n, 4) float32 tensor whose row count n is
# known only at run time: one 16-byte vector load and store per thread,
# a grid of ceildiv(n, 128) blocks, and a tail guard `if row < n:` that
# the compiler uses to prove every access in bounds (without it the
# call is rejected: the last block would overrun when n % 128 != 0).
# Afterwards B[r, :] == A[r, :] for r < n, and nothing past row n is
# touched.
#
# Source: cuda_tile_instruction_reference.rst, "Operand coordinates and
# storage" (region starts may be symbolic when bounds and alignment can
# be proved) and the ld/st family; issue 11's kernel as written.
# Target: sm_80 and later.
from tvm_tirx.script import tirx as T

n = T.dynamic("n")

@T.function
def vcopy_dynamic(A: T.Tensor((n, 4), "float32", align=16), B: T.Tensor((n, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 128), block=128))
    row = T.cuda.block_idx("x") * 128 + T.cuda.thread_idx("x")
    x = T.alloc_local((4,), "float32", layout="default")
    if row < n:
        T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], x, A.sub[row, :])
        T.cuda.tile.apply(T.ptx["st.global.v4.b32"], B.sub[row, :], x)
