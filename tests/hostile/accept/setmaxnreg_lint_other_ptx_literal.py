# target: sm_90a
# The setmaxnreg lint (E3020) judges setmaxnreg.dec alone: another raw
# PTX call with one literal operand above the start cap (nanosleep of
# 200 ns in a 1024-thread block, which starts with at most 64 registers
# a thread) is no decrease and compiles; ptxas 13.0 accepts it
# (issue 19, mutation survivor setmaxnreg_lint.c:50, seed 14: the
# mutant took any such call for the worst decrease and gave E3020).
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1024,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1024))
    tid = T.cuda.thread_idx("x")
    T.ptx["nanosleep.u32"](200)
    A[tid] = 1
