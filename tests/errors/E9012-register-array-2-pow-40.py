from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((32,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    R = T.alloc_local((1099511627776,), "int32", layout="default")
    R[0] = 1
    A[tid] = R[0]
