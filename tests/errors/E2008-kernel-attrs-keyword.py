from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64), kernel_attrs=T.cuda.KernelAttributes(min_blocks=2))
    A[0] = 1.0
