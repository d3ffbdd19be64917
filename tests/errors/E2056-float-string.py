# only "inf", "-inf" and "nan" spell floats as strings (TIRx's T.float32("inf"))
from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    A[0] = T.float32("infinity")
