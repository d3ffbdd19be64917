# args: --target sm_80
# a constant divisor of 0 in a tile operand index is rejected at the
# division (E2026), before any tile contract sees it

from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((32, 16), "uint8", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tid = T.cuda.thread_idx("x")
    S = T.alloc_shared((32, 16), "uint8", layout="default", align=16)
    T.cuda.tile.apply(T.ptx["cp.async.cg.shared.global"], S.sub[tid % 0, :], A.sub[tid, :], chunk_bytes=16)
