from tvm_tirx.script import tirx as T

# The grid n - 2147483647 is at most 0 for every int32 n, so its bound
# gives the block id no range [0, grid - 1]; the checker falls back to
# the full range (this kernel cannot launch) instead of building an
# empty symbol range (an internal abort).
@T.function
def k(A: T.Tensor((8,), "uint32", align=16), n: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=n - 2147483647, block=32))
    b = T.cuda.block_idx("x")
    R = T.alloc_local((4,), "uint32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], R, A[b * 4:b * 4 + 4])
