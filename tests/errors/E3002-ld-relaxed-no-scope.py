from tvm_tirx.script import tirx as T

@T.function
def k(F: T.Tensor((4,), "uint32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    v: T.uint32 = T.uint32(1)
    T.ptx["ld.relaxed.global.u32"](v, F.ptr_to([0]))  # ptxas: .relaxed requires scope
