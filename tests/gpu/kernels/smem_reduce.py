# GPU test: shared-memory tree reduction with CTA barriers.
# Launch: grid=4, block=256.  A: float32[4096] (A[i] = i % 7 works well),
# Out: float32[4].  Each CTA sums its 1024 elements:
#   Out[b] == sum(A[b*1024 : (b+1)*1024])   (exact for small integers)
# CPU reference: out = A.view(4, 1024).sum(1).
from tvm_tirx.script import tirx as T

NT = 256
PER_CTA = 1024


@T.function
def smem_reduce(A: T.Tensor((4096,), "float32"), Out: T.Tensor((4,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=4, block=256))
    tid = T.cuda.thread_idx("x")
    bid = T.cuda.block_idx("x")
    buf = T.alloc_shared((256,), "float32", align=16)
    acc: T.float32 = 0.0
    for k in T.unroll(4):
        acc = acc + A[bid * PER_CTA + k * NT + tid]
    buf[tid] = acc
    T.cuda.cta_sync()
    stride: T.int32 = NT // 2
    while stride > 0:
        if tid < stride:
            buf[tid] = buf[tid] + buf[tid + stride]
        T.cuda.cta_sync()
        stride = stride // 2
    if tid == 0:
        Out[bid] = buf[0]
