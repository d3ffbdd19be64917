from tvm_tirx.script import tirx as T

@T.function
def k(p: T.uint64):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    D = T.alloc_local((4, 1), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["add.f32"], D, D, D, cache_policy=p)
