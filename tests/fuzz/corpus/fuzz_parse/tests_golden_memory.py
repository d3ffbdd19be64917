# target: sm_90a
# Shared (static, aligned), dynamic shared, local arrays in registers and in
# .local memory, ptr_to in the right state space, barriers.
from tvm_tirx.script import tirx as T


@T.function
def memory(A: T.Tensor((256,), "float16"), B: T.Tensor((256,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    s = T.alloc_shared((256,), "float16", align=128)
    d = T.alloc_buffer((128,), "float32", scope="shared.dyn")
    regs = T.alloc_local((2,), "float32")
    spill = T.alloc_local((8,), "float32")
    s[tid] = A[tid]
    s[tid + 128] = A[tid + 128]
    T.cuda.cta_sync()
    regs[0] = T.cast(s[tid * 2], "float32")
    regs[1] = T.cast(s[tid * 2 + 1], "float32")
    spill[tid % 8] = regs[0] + regs[1]
    d[tid] = spill[tid % 8]
    T.cuda.cta_sync()
    B[tid] = d[127 - tid]
