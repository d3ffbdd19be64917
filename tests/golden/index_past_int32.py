# Row 1 of a static (2, 3000000000) tensor starts 3000000000 elements in,
# past int32: the flat index is 64-bit (it was computed in 32 bits and
# wrapped to -1294967296; found with the issue 19 mutation campaign).
# Checked by hand in the .ptx: both loads add 3000000000 to a 64-bit
# index before scaling by 4 bytes; the (2, 64) Y keeps 32-bit indices.
from tvm_tirx.script import tirx as T

@T.function
def past_int32(X: T.Tensor((2, 3000000000), "float32", align=8), Y: T.Tensor((2, 64), "float32", align=8)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    Y[1, tid] = X[1, tid]
    x = T.alloc_local((2, 2), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v2.f32"], x, X[0:2, tid * 2: tid * 2 + 2], scope="thread")
    T.cuda.tile.apply(T.ptx["st.global.v2.f32"], Y[0:2, tid * 2: tid * 2 + 2], x, scope="thread")
