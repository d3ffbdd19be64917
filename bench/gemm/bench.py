"""bench/gemm/bench.py - the GEMM benchmark driver, one process, one run.

C = A @ B.T at M = N = K = 4096, bf16 inputs, float32 accumulation,
bf16 output, on the same torch-allocated inputs for:
  torch     torch.matmul(A, B.T) (cuBLAS)
  tile      examples/gemm_bf16.py (TILE_SCRIPT) through the ptxtile
            package: ptxtile.compile(), launched with torch tensors
  twin      the hand-written CUDA C++ + inline PTX twin (TWIN_CUBIN, a
            cubin of bench/gemm/gemm_twin.cu, kernel gemm_twin)
  mma_peak  mma.sync m16n8k16 bf16 from registers only, the ceiling of
            this kernel design (same cubin, kernel mma_peak)
The tile kernel is assembled by ptxas (ptxtile's Kernel.cubin); its
.minnctapersm 2 keeps it within 128 registers, the budget the twin gets
from __launch_bounds__(256, 2).  The twin's cubin is not a ptxtile
kernel: it is loaded with the CUDA driver API through ctypes into torch's
context (load/launcher below, also used by sizes.py).  Every kernel is
timed with ptxtile.testing.bench (CUDA events on torch's stream): five
rounds, each timing `iters` launches of every kernel in turn after a
warm-up; the median round is reported.  tile and twin are checked
against torch's result (relative Frobenius error and max abs error).

Usage (on the GPU host; bench/gemm/run.sh builds the libraries and the
twin and sets PYTHONPATH=python):
  python3 bench/gemm/bench.py examples/gemm_bf16.py \
      build/bench/gemm_twin.cubin [iters]
"""
import argparse
import ctypes
import os
import sys

try:
    import ptxtile
except ImportError:  # run from a checkout without PYTHONPATH=python
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "python"))
    import ptxtile
from ptxtile.testing import bench

M = N = K = 4096
FLOP = 2.0 * M * N * K
SMEM = 81920  # four stages of two 128 x 40 bf16 tiles (the twin)
_cu = []


def driver():
    """libcuda through ctypes, for the nvcc-built twins only."""
    if not _cu:
        _cu.append(ctypes.CDLL("libcuda.so.1"))
    return _cu[0]


def check(rc, what):
    if rc != 0:
        name = ctypes.c_char_p()
        driver().cuGetErrorName(rc, ctypes.byref(name))
        raise RuntimeError("%s: %s" % (what, name.value.decode()))


def load(path, name, smem=0):
    """Loads kernel `name` of the cubin at path into torch's (current,
    primary) context; smem > 0 raises its dynamic shared memory limit."""
    cu = driver()
    check(cu.cuInit(0), "cuInit")
    mod = ctypes.c_void_p()
    with open(path, "rb") as f:
        check(cu.cuModuleLoadData(ctypes.byref(mod), f.read()),
              "load " + path)
    fn = ctypes.c_void_p()
    check(cu.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()),
          "function " + name)
    if smem:  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        check(cu.cuFuncSetAttribute(fn, 8, smem), "smem attribute")
    return fn


def launcher(fn, grid, block, vals, smem=0):
    """A callable launching a twin on torch's current stream; vals are
    ctypes objects passed by address (c_uint64 pointers, c_int32
    scalars, tensor maps)."""
    import torch
    ptrs = (ctypes.c_void_p * len(vals))(
        *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in vals])

    def go():
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        check(driver().cuLaunchKernel(fn, grid[0], grid[1], 1, block, 1, 1,
                                      smem, stream, ptrs, None), "launch")
    go.keep = (vals, ptrs)
    return go


def ptr(t):
    return ctypes.c_uint64(t.data_ptr())


def time_rounds(runs, iters, rounds=5):
    """Median and (min, max) ms per launch of each callable in runs:
    `rounds` rounds, the callables interleaved in each, so clock and
    power drift hit all of them alike (ptxtile.testing.bench times one
    round of `iters` launches after 3 warm-up calls)."""
    times = {k: [] for k in runs}
    for _ in range(rounds):
        for k, fn in runs.items():
            times[k].append(bench(fn, warmup=3, iters=iters,
                                  rounds=1).median)
    med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    spread = {k: (min(v), max(v)) for k, v in times.items()}
    return med, spread


def compare(name, got, ref):
    d = (got.float() - ref.float())
    rel = (d.norm() / ref.float().norm()).item()
    print("# %-5s vs torch: relative error %.2e, max abs diff %.3g"
          % (name, rel, d.abs().max().item()))
    return rel < 1e-2


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="GEMM benchmark: ptxtile tile kernel vs CUDA C++ twin "
        "vs torch.matmul (M = N = K = %d, bf16)" % M)
    p.add_argument("tile_script", help="the tile kernel script "
                   "(examples/gemm_bf16.py), compiled with ptxtile.compile")
    p.add_argument("twin_cubin", help="cubin of bench/gemm/gemm_twin.cu")
    p.add_argument("iters", nargs="?", type=int, default=50,
                   help="launches per timed round (default 50)")
    return p.parse_args(argv)


def main():
    args = parse_args()
    import torch
    iters = args.iters
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    c_tile = torch.zeros(M, N, device="cuda", dtype=torch.bfloat16)
    c_twin = torch.zeros(M, N, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()  # torch's primary context is now current

    k_tile = ptxtile.compile(args.tile_script, target="sm_90a")
    f_twin = load(args.twin_cubin, "gemm_twin", SMEM)
    f_peak = load(args.twin_cubin, "mma_peak")
    grid = (N // 128, M // 128)
    run_tile = lambda: k_tile(a, b, c_tile)
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

    runs = {"torch": lambda: torch.matmul(a, b.t()), "tile": run_tile,
            "twin": run_twin}
    med, _ = time_rounds(runs, iters)
    t_torch, t_tile, t_twin = med["torch"], med["tile"], med["twin"]
    t_peak = bench(run_peak, warmup=3, iters=10, rounds=1).median
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


if __name__ == "__main__":
    main()
