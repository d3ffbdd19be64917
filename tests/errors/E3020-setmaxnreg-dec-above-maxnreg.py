# target: sm_90a
# max_registers_per_thread=200 (.maxnreg 200) bounds the start count; ptxas 13.0 refuses a decrease to 208 (C7406).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((384,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=384), kernel_attrs=T.cuda.KernelAttributes(max_registers_per_thread=200))
    tid = T.cuda.thread_idx("x")
    if tid < 128:
        T.ptx["setmaxnreg.dec.sync.aligned.u32"](208)
    A[tid] = 1
