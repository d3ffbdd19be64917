from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((64,), "float32"), B: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    V = T.decl_tensor(A.ptr_to([0]), ty_args=[T.Tensor((2, 32), "float32")])
    B[0] = V[1, 0]
