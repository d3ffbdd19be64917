# args: --target sm_80
from tvm_tirx.script import tirx as T

@T.function
def k(F: T.Tensor((4,), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    v: T.uint32 = T.uint32(1)
    T.ptx.fence.proxy.async_.global_()  # sm_90 and later
