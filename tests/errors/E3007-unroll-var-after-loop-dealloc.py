# args: --target sm_100a
# Found by tools/mutate_examples.py: an unrolled loop's variable, read
# after the loop, is a constant only code generation sees; it reached
# `tcgen05.dealloc ..., 3` (ptxas: "expected to be multiple of 32").
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((128,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tmem = T.alloc_shared((1,), "uint32")
    T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](tmem.ptr_to([0]), T.uint32(32))
    taddr = tmem[0]
    for c in T.unroll(4):
        A[T.cuda.thread_idx("x")] = c
    T.ptx["tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned"]()
    T.ptx["tcgen05.dealloc.cta_group::1.sync.aligned.b32"](taddr, c)
