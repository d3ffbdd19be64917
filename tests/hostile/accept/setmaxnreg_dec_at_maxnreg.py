# target: sm_90a
# max_registers_per_thread=200 without min_blocks_per_sm: ptxas 13.0 starts 384 threads at 200 registers (beyond the register file's 168) and accepts a decrease to 200.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((384,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=384), kernel_attrs=T.cuda.KernelAttributes(max_registers_per_thread=200))
    tid = T.cuda.thread_idx("x")
    if tid < 128:
        T.ptx["setmaxnreg.dec.sync.aligned.u32"](200)
    A[tid] = 1
