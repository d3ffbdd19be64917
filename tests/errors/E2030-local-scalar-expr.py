from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32,), "uint64")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tx = T.cuda.thread_idx("x")
    A[0] = T.local_scalar("uint64")
