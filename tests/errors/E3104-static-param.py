from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16), f: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    R = T.alloc_local((1, 4), "uint32", layout="default")
    T.cuda.tile.apply(T.ptx["ld.global.v4.b32"], R, A[0:1, 0:4], pred=f > 0, preserve_dst=f > 1)
