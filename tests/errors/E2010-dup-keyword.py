from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((4,), "float32", align=16, align=8)
