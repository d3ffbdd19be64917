# Device printf (vprintf per the CUDA ABI) and assert.  tests/suites/emu.sh
# runs it with A = 0, 1, 2, 3 and checks the text against the shell's own
# printf of the same values; tests/python_gpu/test_printf_gpu.py checks
# the H200's text.
from tvm_tirx.script import tirx as T


@T.function
def report(A: T.Tensor((4,), "int32"), B: T.Tensor((4,), "float32"), n: T.int64):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=4))
    tid = T.cuda.thread_idx("x")
    x = A[tid] * 3
    B[tid] = T.cast(x, "float32") * 0.5
    T.cuda.printf("lane %d: x=%04d b=%.2f n=%lld h=%#x\n", tid, x, B[tid], n,
                  T.uint16(0xbeef))
    if tid == 0:
        T.cuda.printf("%d%% done\n", 100)
    T.cuda.trap_when_assert_failed(x >= 0)
    assert A[tid] < 10, "A[tid] is a small index"
