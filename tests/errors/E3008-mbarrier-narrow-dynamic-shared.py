# An mbarrier object is 64 bits: a uint32 word of dynamic shared memory
# (scope="shared.dyn") cannot hold one either.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    bar = T.alloc_buffer((2,), "uint32", scope="shared.dyn", align=8)
    T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(32))
    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
