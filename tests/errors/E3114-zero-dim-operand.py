# A rank-0 tensor is a tensor (issue 19, mutation survivor view.c:98):
# its view is built like any other and the tile contract then says why
# it cannot be an operand of a thread-scope ld (one atom axis needed),
# rather than the view builder refusing the rank itself.
from tvm_tirx.script import tirx as T

@T.function
def zero_dim(X: T.Tensor((), "float32"), Y: T.Tensor((4,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    x = T.alloc_local((1,), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.f32"], x, X, scope="thread")
