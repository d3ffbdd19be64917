from tvm_tirx.script import tirx as T

@T.function
def k(A: T.Tensor((16,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    mbar = T.alloc_shared((1,), "uint64", align=8)
    T.ptx.mbarrier.init.shared.b64(mbar.ptr_to([0]), T.uint32(1))
    T.ptx.mbarrier.arrive.release.cta.shared.b64(mbar.ptr_to([0]), T.uint32(0))
