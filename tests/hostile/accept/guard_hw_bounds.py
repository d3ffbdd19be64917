from tvm_tirx.script import tirx as T


@T.function
def k(A: T.Tensor((128,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tid = T.cuda.thread_idx("x")
    lane = T.cuda.lane_id()
    if lane < -9223372036854775807 - 1:
        A[tid] = T.float32(1.0)
    if lane > 9223372036854775807:
        A[tid] = T.float32(2.0)
    if tid >= 9223372036854775807:
        A[tid] = T.float32(3.0)
