# Eight nested quotients the prover made, a_k = (a_(k-1) + 1) // 2 from
# a0 = tid, are evaluated exactly for the counterexample: for tid = 1
# every a_k is (1 + 1) // 2 = 1, so S[a8 + 31] = S[32] is past the end
# of S.  The evaluator follows 16 levels (two per quotient); nine
# quotients are past it and accepted (issue 19, mutation survivor
# layout/facts.c:135, seed 12: the mutant stopped one level early,
# found no counterexample and accepted).
from tvm_tirx.script import tirx as T

@T.function
def halves(A: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    S = T.alloc_shared((32,), "float32", layout="default")
    a0 = T.cuda.thread_idx("x")
    a1 = (a0 + 1) // 2
    a2 = (a1 + 1) // 2
    a3 = (a2 + 1) // 2
    a4 = (a3 + 1) // 2
    a5 = (a4 + 1) // 2
    a6 = (a5 + 1) // 2
    a7 = (a6 + 1) // 2
    a8 = (a7 + 1) // 2
    S[a8 + 31] = A[a0]
