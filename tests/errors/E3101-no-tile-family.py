from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    T.cuda.tile.apply(T.ptx["bar.sync"], 0)
