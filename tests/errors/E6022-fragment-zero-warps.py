# warps= of a named fragment layout counts warps per axis: an axis of 0
# warps is no layout (issue 19, mutation survivor fragments.c:66: a
# product of 0 is refused like a negative one).
from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    c = T.alloc_local((2, 0, 16, 8), "float32", layout=T.cuda.mma_sync_layout("D", "m16n8k16", "float16", warps=(2, 0)))
