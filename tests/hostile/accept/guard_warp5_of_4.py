from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((128,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    if warp == 5:
        A[tid] = T.float32(1.0)
