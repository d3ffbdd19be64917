# A scalar int32 variable (the thread index) is not a value for an .f32
# operand: add.f32 takes .f32 registers (ptxas: "Arguments mismatch" for a
# .s32 register); only an untyped float literal converts.
from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((1, 8), "uint32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    t = T.cuda.thread_idx("x")
    D = T.alloc_local((4, 1), "float32", layout="default")
    T.cuda.tile.apply(T.ptx["add.f32"], D, D, t)
