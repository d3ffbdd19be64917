# st writes no register, so it has no value; a while condition runs every
# iteration, so a PTX call (which runs before its statement) cannot be in it
from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    x = T.ptx["st.global.b32"](A.ptr_to([0]), T.uint32(1))
    o: T.float32 = T.float32(1.0)
    while T.ptx["shfl.sync.bfly.b32"](o, 1, 31, 0xffffffff) > o:
        o = o + 1.0
