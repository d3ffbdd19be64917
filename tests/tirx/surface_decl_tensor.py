# TIRx surface (issue 22): T.decl_tensor(X.data, ty_args=[T.Tensor(...)]),
# apache-tvm-tirx 0.1.0a4's tensor over a data pointer: here a (2, 32)
# row-major view of the 64 floats of A.  B[i] = A[32 + i] = 32 + i for
# A = iota (tests/suites/tirx_surface.sh).
# expect: ld.global.f32=1, st.global.f32=1
from tvm_tirx.script import tirx as T


@T.function
def surface_decl_tensor(A: T.Tensor((64,), "float32"), B: T.Tensor((32,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    tx = T.cuda.thread_idx("x")
    V = T.decl_tensor(A.data, ty_args=[T.Tensor((2, 32), "float32")])
    B[tx] = V[1, tx]
