from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16), f: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    R = T.alloc_local((1, 4), "uint32", layout="default")
    T.cuda.tile.apply(T.ptx["mov.b32"], R.view(4, 1), T.uint32(0))
    T.cuda.tile.apply(T.ptx["st.global.v4.b32"], A[0:1, 0:4], R, pred=f > 0, preserve_dst=True)
