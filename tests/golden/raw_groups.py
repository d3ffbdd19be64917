# target: sm_90a
# Raw PTX calls whose operand groups come as separate arguments (the one
# selector, ptx_select): a .v4 destination as four scalars, a .v2 source
# as one tuple, elect.sync's d|p pair as two arguments, a tensor operand
# as the map and its coordinates (a tuple, then one by one).  Operand
# order per the PTX ISA: ld d, [a]; st [a], b; elect.sync d|p,
# membermask; cp.async.bulk.tensor [dst], [map, {c0, c1}], [mbar].
from tvm_tirx.script import tirx as T


@T.function
def raw_groups(A: T.Tensor((64,), "uint32"), M: T.TensorMap()):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    s = T.alloc_shared((16, 32), "float32", align=128)
    mbar = T.alloc_shared((1,), "uint64", align=8)
    a = T.uint32(0)
    b = T.uint32(0)
    c = T.uint32(0)
    d = T.uint32(0)
    leader = T.bool(False)
    rank = T.uint32(0)
    T.ptx["ld.global.v4.u32"](a, b, c, d, A.ptr_to([0]))
    T.ptx["elect.sync"](rank, leader, -1)
    if leader:
        T.ptx["st.global.v2.u32"](A.ptr_to([4]), (c, d))
        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"](
            s.ptr_to([0, 0]), M, (0, 16), mbar.ptr_to([0]))
        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"](
            s.ptr_to([0, 0]), M, 32, 16, mbar.ptr_to([0]))
