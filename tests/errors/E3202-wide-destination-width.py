from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    D = T.alloc_local((4, 1), "int32", layout="default")
    T.cuda.tile.apply(T.ptx["mul.wide.s32"], D, D, D)
