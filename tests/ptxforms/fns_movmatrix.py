# gate: sm_80
# expect: fns.b32, movmatrix.sync.aligned.m8n8.trans.b16
from tvm_tirx.script import tirx as T


@T.function
def fns_movmatrix(A: T.Tensor((32, 2), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    lane = T.cuda.lane_id()
    x = A[lane, 0]
    pos: T.uint32 = T.ptx["fns.b32"](x, T.uint32(0), lane % 4)
    t: T.uint32 = T.ptx.movmatrix.sync.aligned.m8n8.trans.b16(x)
    A[lane, 0] = pos
    A[lane, 1] = t
