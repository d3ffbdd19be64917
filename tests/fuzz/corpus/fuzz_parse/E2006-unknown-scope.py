from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_buffer((4,), "float32", scope="sharde")
