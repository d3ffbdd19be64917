"""bench/gemm/bench.py - the GEMM benchmark driver, one process, one run.

C = A @ B.T at M = N = K = 4096, bf16 inputs, float32 accumulation,
bf16 output, on the same torch-allocated inputs for:
  torch     torch.matmul(A, B.T) (cuBLAS)
  tile      ptxtile's PTX for examples/gemm_bf16.py (argv[1])
  twin      the hand-written CUDA C++ + inline PTX twin (argv[2], a cubin
            of bench/gemm/gemm_twin.cu, kernel gemm_twin)
  mma_peak  mma.sync m16n8k16 bf16 from registers only, the ceiling of
            this kernel design (same cubin, kernel mma_peak)
Both custom kernels are loaded with the CUDA driver API through ctypes
into torch's context and timed with CUDA events on torch's stream: five
rounds, each timing `iters` launches of every kernel in turn after a
warm-up; the median round is reported.  tile and twin are checked against
torch's result (relative Frobenius error and max abs error).

Usage (on the GPU host; bench/gemm/run.sh builds both images):
  python3 bench/gemm/bench.py build/bench/gemm_tile.ptx \
      build/bench/gemm_twin.cubin [iters]
"""
import ctypes
import os
import sys

import torch

M = N = K = 4096
MAXREG = int(os.environ.get("GEMM_MAXREG", "128"))  # 0: no JIT limit
FLOP = 2.0 * M * N * K


def check(rc, what):
    if rc != 0:
        name = ctypes.c_char_p()
        cu.cuGetErrorName(rc, ctypes.byref(name))
        raise RuntimeError("%s: %s" % (what, name.value.decode()))


def load(path, name):
    """Loads a PTX (JIT) or cubin image.  PTX is JIT-compiled with
    CU_JIT_MAX_REGISTERS = 128, the register budget of two 256-thread
    CTAs per SM; the twin's cubin gets the same budget from its
    __launch_bounds__(256, 2)."""
    data = open(path, "rb").read()
    mod = ctypes.c_void_p()
    if path.endswith(".ptx"):
        data += b"\0"
        opts = (ctypes.c_int * 1)(0)  # CU_JIT_MAX_REGISTERS
        vals = (ctypes.c_void_p * 1)(MAXREG)
        check(cu.cuModuleLoadDataEx(ctypes.byref(mod), data,
                                    1 if MAXREG else 0, opts, vals),
              "load " + path)
    else:
        check(cu.cuModuleLoadData(ctypes.byref(mod), data), "load " + path)
    fn = ctypes.c_void_p()
    check(cu.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()),
          "function " + name)
    return fn


SMEM = 81920  # four stages of two 128 x 40 bf16 tiles (both kernels)


def launcher(fn, grid, block, args, smem=0):
    """A callable launching fn on torch's current stream; args are
    ctypes values (c_uint64 pointers, c_int32 scalars)."""
    vals = list(args)
    ptrs = (ctypes.c_void_p * len(vals))(
        *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in vals])

    def go():
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        check(cu.cuLaunchKernel(fn, grid[0], grid[1], 1, block, 1, 1, smem,
                                stream, ptrs, None), "launch")
    go.keep = (vals, ptrs)
    return go


def ptr(t):
    return ctypes.c_uint64(t.data_ptr())


def time_ms(fn, iters):
    for _ in range(3):
        fn()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / iters


def compare(name, got, ref):
    d = (got.float() - ref.float())
    rel = (d.norm() / ref.float().norm()).item()
    print("# %-5s vs torch: relative error %.2e, max abs diff %.3g"
          % (name, rel, d.abs().max().item()))
    return rel < 1e-2


def main():
    tile_ptx, twin_cubin = sys.argv[1:3]
    iters = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    c_tile = torch.zeros(M, N, device="cuda", dtype=torch.bfloat16)
    c_twin = torch.zeros(M, N, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()  # torch's primary context is now current
    check(cu.cuInit(0), "cuInit")

    f_tile = load(tile_ptx, "gemm_bf16")
    f_twin = load(twin_cubin, "gemm_twin")
    f_peak = load(twin_cubin, "mma_peak")
    grid = (N // 128, M // 128)
    for f in (f_tile, f_twin):  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        check(cu.cuFuncSetAttribute(f, 8, SMEM), "smem attribute")
    run_tile = launcher(f_tile, grid, 256,
                        [ptr(a), ptr(b), ptr(c_tile)], SMEM)
    run_twin = launcher(f_twin, grid, 256,
                        [ptr(a), ptr(b), ptr(c_twin)], SMEM)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    peak_iters = 4096
    peak_out = torch.empty(sms * 4 * 256, device="cuda")
    run_peak = launcher(f_peak, (sms * 4, 1), 256,
                        [ptr(peak_out), ctypes.c_int32(peak_iters)])
    peak_flop = sms * 4 * 8 * peak_iters * 16 * 2.0 * 16 * 8 * 16

    ref = torch.matmul(a, b.t())
    for run in (run_tile, run_twin):
        run()
    torch.cuda.synchronize()
    ok = True
    for name, c in (("tile", c_tile), ("twin", c_twin)):
        ok = compare(name, c, ref) and ok

    # five rounds, the kernels interleaved in each, so clock and power
    # drift hit all of them alike; the median round time of each
    runs = {"torch": lambda: torch.matmul(a, b.t()), "tile": run_tile,
            "twin": run_twin}
    rounds = {k: [] for k in runs}
    for _ in range(5):
        for k, fn in runs.items():
            rounds[k].append(time_ms(fn, iters))
    med = {k: sorted(v)[len(v) // 2] for k, v in rounds.items()}
    t_torch, t_tile, t_twin = med["torch"], med["tile"], med["twin"]
    t_peak = time_ms(run_peak, 10)
    tf = lambda ms, fl=FLOP: fl / ms / 1e9
    print("# %s, %d SMs, M=N=K=%d, bf16 in, f32 accumulate, bf16 out, "
          "median of 5 interleaved rounds of %d launches"
          % (torch.cuda.get_device_name(0), sms, M, iters))
    print("| kernel | ms | TFLOP/s | vs twin | vs torch | of mma.sync peak |")
    print("|---|---:|---:|---:|---:|---:|")
    peak = tf(t_peak, peak_flop)
    for name, t in (("tile (ptxtile)", t_tile), ("twin (CUDA C++)", t_twin),
                    ("torch.matmul", t_torch)):
        print("| %s | %.3f | %.1f | %.3f | %.3f | %.1f%% |"
              % (name, t, tf(t), t_twin / t, t_torch / t,
                 100.0 * tf(t) / peak))
    print("| mma.sync peak (registers only) | %.3f | %.1f | | | 100%% |"
          % (t_peak, peak))
    if not ok:
        print("FAIL: results differ from torch.matmul")
        sys.exit(1)


cu = ctypes.CDLL("libcuda.so.1")
if __name__ == "__main__":
    main()
