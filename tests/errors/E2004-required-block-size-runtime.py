from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32), kernel_attrs=T.cuda.KernelAttributes(required_block_size=A[0] > 1))
    A[0] = 1
