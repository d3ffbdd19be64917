# float64 operands of a tile ld/st match the .f64 form type (issue 19,
# mutation survivor common.c:1179: the f64 row of the dtype check).
from tvm_tirx.script import tirx as T

@T.function
def f64(X: T.Tensor((2,), "float64", align=16), Y: T.Tensor((2,), "float64", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    x = T.alloc_local((2,), "float64", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v2.f64"], x, X, scope="thread")
    T.cuda.tile.apply(T.ptx["st.global.v2.f64"], Y, x, scope="thread")
