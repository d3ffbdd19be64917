from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32,), "int32"), F: T.Tensor((32,), "float32"), H: T.Tensor((32,), "float16"), U: T.Tensor((32,), "uint64")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tx = T.cuda.thread_idx("x")
    T.cuda.nano_sleep(tx > 3)
