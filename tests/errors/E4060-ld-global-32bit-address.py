from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((16,), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    a = T.cuda.thread_idx("x")
    x = T.alloc_local((1,), "uint32")
    T.ptx.ld.global.u32(x[0], T.cast(a, "uint32"))
