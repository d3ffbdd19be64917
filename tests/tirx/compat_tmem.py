# T.tmem(shape, dtype, scope="tmem", allocated_addr=..., layout=...), TIRx's
# spelling of tensor memory (T.decl_buffer is not in apache-tvm-tirx
# 0.1.0a4), with TLane/TCol from tvm_tirx.backend.cuda.axis.  One
# warpgroup stores row tid of A into TMEM lane tid (32x32b.x4).
# Target: sm_100a
# expect: tcgen05.st.sync.aligned.32x32b.x4.b32=1
from tvm_tirx.script import tirx as T
from tvm_tirx.tirx.layout import S, TileLayout
from tvm_tirx.backend.cuda.axis import laneid, wid_in_wg, TLane, TCol

@T.function
def compat_tmem(A: T.Tensor((128, 4), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    taddr_smem = T.alloc_shared((1,), "uint32", align=4)
    if T.cuda.warp_id() == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(taddr_smem.ptr_to([0]), T.uint32(32))
    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    mem = T.tmem((4, 32, 4), "uint32", scope="tmem", allocated_addr=taddr_smem[0],
                 layout=TileLayout(S[(4, 32, 4):(32@TLane, 1@TLane, 1@TCol)]))
    row = T.alloc_local((4,), "uint32", layout="default")
    for c in T.unroll(4):
        row[c] = A[tid, c]
    T.cuda.tile.apply(T.ptx["tcgen05.st.sync.aligned.32x32b.x4.b32"], mem,
                      row.view(4, 32, 4, layout=TileLayout(S[(4, 32, 4):(1@wid_in_wg, 1@laneid, 1)])),
                      scope="warpgroup")
    T.ptx.tcgen05.wait__st.sync.aligned()
