from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tx = T.cuda.thread_idx("x")
    seen: T.int32
    T.cuda.wait_until(seen, A.ptr_to([0]))
    A[tx] = seen
