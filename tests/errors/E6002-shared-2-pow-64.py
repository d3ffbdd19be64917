from tvm_tirx.script import tirx as T

n = T.dynamic("n")


@T.function
def k(A: T.Tensor((16,), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((4294967296, 4294967296), "uint8")
    A[0] = T.uint32(S[0, 0])
