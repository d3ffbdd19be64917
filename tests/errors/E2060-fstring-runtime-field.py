from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tx = T.cuda.thread_idx("x")
    T.ptx[f"add.s{tx}"](A[tx], A[tx], 1)
