# target: sm_90a
# kernel_attrs=T.cuda.KernelAttributes(...) on T.device_entry: the
# .minnctapersm, .maxnreg and .maxclusterrank directives.
from tvm_tirx.script import tirx as T


@T.function
def bounded(A: T.Tensor((256,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=256),
                   kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=2, max_registers_per_thread=128, max_blocks_per_cluster=4))
    A[T.cuda.thread_idx("x")] = 1.0


@T.function
def clustered(A: T.Tensor((256,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=128, cluster=2),
                   kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=1))
    A[T.cuda.block_idx("x") * 128 + T.cuda.thread_idx("x")] = 2.0
