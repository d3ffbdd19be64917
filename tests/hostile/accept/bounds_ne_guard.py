# A `!=` guard keeps the one overrunning repeat out (issue 19, mutation
# survivor bounds.c:536): i runs to 64 and S has 64 elements, so S[i]
# overruns only at i == 64, which `i != 64` excludes.  No linear fact
# says so (i != 64 is not an interval), so the prover must stay unsure
# here and accept, not report E6030 from the loop's range alone.
from tvm_tirx.script import tirx as T

@T.function
def ne_guard(A: T.Tensor((128,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    S = T.alloc_shared((64,), "float32", layout="default")
    for i in range(65):
        if i != 64:
            S[i] = A[i]
