# target: sm_80
# The memory-ordering forms multi-device code needs (issue 26), each as a
# raw PTX call: ld.relaxed/ld.acquire and st.relaxed/st.release at .gpu
# and .sys scope, atom with .relaxed/.acquire/.release/.acq_rel at .sys,
# red with .relaxed/.release at .sys, fence.acq_rel/fence.sc at .sys.  All
# exist from sm_70 (PTX 6.0); tests/suites/mem_order.sh also assembles
# this for sm_90a and sm_100a, and checks fence.proxy.async (sm_90).
from tvm_tirx.script import tirx as T


@T.function
def memory_order(F: T.Tensor((16,), "uint32"), G: T.Tensor((4,), "uint64")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    v: T.uint32 = T.uint32(1)
    w: T.uint64 = T.uint64(0)
    T.ptx["ld.relaxed.gpu.global.u32"](v, F.ptr_to([0]))
    T.ptx["ld.relaxed.sys.global.u32"](v, F.ptr_to([1]))
    T.ptx["ld.acquire.gpu.global.u32"](v, F.ptr_to([2]))
    T.ptx["ld.acquire.sys.global.u32"](v, F.ptr_to([3]))
    T.ptx["ld.acquire.sys.global.u64"](w, G.ptr_to([0]))
    T.ptx["st.relaxed.gpu.global.u32"](F.ptr_to([4]), v)
    T.ptx["st.relaxed.sys.global.u32"](F.ptr_to([5]), v)
    T.ptx["st.release.gpu.global.u32"](F.ptr_to([6]), v)
    T.ptx["st.release.sys.global.u32"](F.ptr_to([7]), v)
    T.ptx["st.release.sys.global.u64"](G.ptr_to([1]), w)
    T.ptx["atom.relaxed.sys.global.add.u32"](v, F.ptr_to([8]), T.uint32(1))
    T.ptx["atom.acquire.sys.global.or.b32"](v, F.ptr_to([9]), T.uint32(0))
    T.ptx["atom.release.sys.global.exch.b32"](v, F.ptr_to([10]), T.uint32(2))
    T.ptx["atom.acq_rel.sys.global.add.u32"](v, F.ptr_to([11]), T.uint32(1))
    T.ptx["atom.acq_rel.sys.global.cas.b32"](v, F.ptr_to([12]), T.uint32(0), T.uint32(3))
    T.ptx["red.relaxed.sys.global.add.u32"](F.ptr_to([13]), T.uint32(1))
    T.ptx["red.release.sys.global.add.u32"](F.ptr_to([14]), T.uint32(1))
    T.ptx["red.release.gpu.global.add.u64"](G.ptr_to([2]), w)
    T.ptx["fence.acq_rel.sys"]()
    T.ptx["fence.sc.sys"]()
    F[15] = v
