"""bench/gemm/sizes.py - the Hopper GEMM benchmark over several sizes, one
process, one run: C = A @ B.T, bf16 A (M, K) and B (N, K), float32
accumulation, bf16 C, on the same torch-allocated inputs for
  torch   torch.matmul(A, B.T) (cuBLAS)
  wgmma   ptxtile's PTX for examples/gemm_wgmma.py (TMA + mbarrier ring,
          producer warp + two consumer warpgroups, m64n256k16)
  twin    bench/gemm/gemm_wgmma_twin.cu, the same algorithm in CUDA C++
          with inline PTX (runtime sizes)
  mma     ptxtile's PTX for examples/gemm_bf16.py (mma.sync m16n8k16)
The examples take their sizes as module constants, so each size compiles
its own kernels: the script rewrites the `M = `, `N = `, `K = ` lines,
runs `ptxtile compile` and assembles with ptxas (sm_90a).  The tensor
maps of the wgmma kernels are encoded here with cuTensorMapEncodeTiled
from ptxtile's metadata (box, swizzle, L2 promotion, OOB fill) - the twin
gets the same maps.  Per size: results are checked against torch (relative
Frobenius error < 1e-2 against both torch's bf16 result and a float32
product of the same inputs, output poisoned with NaN first), then five rounds, each
timing `iters` launches of every kernel in turn; the median round.

Usage (GPU host, repository root, after make):
  python3 bench/gemm/sizes.py BUILD_DIR TWIN_CUBIN [iters]
"""
import ctypes
import json
import os
import re
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import check, time_ms  # noqa: E402 (bench/gemm/bench.py)

SIZES = [(4096, 4096, 4096), (8192, 8192, 8192), (2048, 2048, 2048),
         (16384, 4096, 4096), (8192, 7168, 2048)]
if os.environ.get("GEMM_SIZES"):  # e.g. "4096x4096x4096,2048x2048x2048"
    SIZES = [tuple(int(v) for v in s.split("x"))
             for s in os.environ["GEMM_SIZES"].split(",")]
PTXAS = os.environ.get("PTXAS", "ptxas")
cu = ctypes.CDLL("libcuda.so.1")  # the same library bench.py loads


def compile_example(build, src, m, n, k, tag):
    """Rewrites the size constants of an example, compiles it with
    ptxtile and ptxas; returns (cubin path, metadata)."""
    text = open(src).read()
    for name, v in (("M", m), ("N", n), ("K", k)):
        text, cnt = re.subn(r"^%s = \d+$" % name, "%s = %d" % (name, v),
                            text, flags=re.M)
        assert cnt == 1, (src, name)
    base = os.path.join(build, "bench", "%s_%d_%d_%d" % (tag, m, n, k))
    open(base + ".py", "w").write(text)
    subprocess.check_call([os.path.join(build, "ptxtile"), "compile",
                           base + ".py", "--target", "sm_90a", "-o",
                           base + ".ptx", "--meta", base + ".json"])
    subprocess.check_call([PTXAS, "-arch=sm_90a", "-O3", base + ".ptx",
                           "-o", base + ".cubin"])
    return base + ".cubin", json.load(open(base + ".json"))["kernels"][0]


def load(path, name, smem):
    mod = ctypes.c_void_p()
    check(cu.cuModuleLoadData(ctypes.byref(mod), open(path, "rb").read()),
          "load " + path)
    fn = ctypes.c_void_p()
    check(cu.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()),
          "function " + name)
    # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    check(cu.cuFuncSetAttribute(fn, 8, smem), "smem attribute")
    return fn


SWIZZLE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
L2 = {"none": 0, "64B": 1, "128B": 2, "256B": 3}


def tensor_map(t, box_rows, box_cols, slot):
    """A 2-D bf16 tensor map of row-major t (innermost dimension first)."""
    tmap = (ctypes.c_uint8 * 128)()
    dims = (ctypes.c_uint64 * 2)(t.shape[1], t.shape[0])
    strides = (ctypes.c_uint64 * 1)(t.stride(0) * t.element_size())
    box = (ctypes.c_uint32 * 2)(box_cols, box_rows)
    es = (ctypes.c_uint32 * 2)(1, 1)
    assert slot["format"] == "bfloat16" and slot["oob_fill"] == "zero"
    check(cu.cuTensorMapEncodeTiled(
        tmap, 9, 2, ctypes.c_void_p(t.data_ptr()), dims, strides, box, es,
        0, SWIZZLE[slot["swizzle"]], L2[slot["l2_promotion"]], 0),
        "cuTensorMapEncodeTiled")
    return tmap


def launcher(fn, grid, block, vals, smem):
    """vals: ctypes objects passed by address (pointers, ints, maps)."""
    ptrs = (ctypes.c_void_p * len(vals))(
        *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in vals])

    def go():
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        check(cu.cuLaunchKernel(fn, grid[0], grid[1], 1, block, 1, 1, smem,
                                stream, ptrs, None), "launch")
    go.keep = (vals, ptrs)
    return go


def rel_err(got, ref):
    d = got.float() - ref.float()
    return (d.norm() / ref.float().norm()).item()


def bench_size(build, twin_fn, m, n, k, iters):
    p = lambda t: ctypes.c_uint64(t.data_ptr())
    a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    b = torch.randn(n, k, device="cuda").to(torch.bfloat16)
    outs = {x: torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            for x in ("wgmma", "twin", "mma")}
    wg_cubin, wg_meta = compile_example(build, "examples/gemm_wgmma.py",
                                        m, n, k, "gemm_wgmma")
    mma_cubin, mma_meta = compile_example(build, "examples/gemm_bf16.py",
                                          m, n, k, "gemm_bf16")
    slots = {s["tensor"]: s for s in wg_meta["params"]
             if s["kind"] == "tma"}
    ta = tensor_map(a, 128, 64, slots["A"])
    tb = tensor_map(b, 256, 64, slots["B"])
    smem = wg_meta["launch"]["dynamic_smem"]
    f_wg = load(wg_cubin, "gemm_wgmma", smem)
    f_mma = load(mma_cubin, "gemm_bf16",
                 mma_meta["launch"].get("dynamic_smem", 81920))
    grid = tuple(wg_meta["launch"]["grid"][:2])  # persistent: (132, 1)
    runs = {
        "torch": lambda: torch.matmul(a, b.t()),
        "wgmma": launcher(f_wg, grid, 384, [p(a), p(b), p(outs["wgmma"]),
                                            ta, tb], smem),
        "twin": launcher(twin_fn, (132, 1), 384,
                         [ta, tb, p(outs["twin"]), ctypes.c_int32(m),
                          ctypes.c_int32(n), ctypes.c_int32(k)],
                         smem + 1024),
        "mma": launcher(f_mma, (n // 128, m // 128), 256,
                        [p(a), p(b), p(outs["mma"])],
                        mma_meta["launch"].get("dynamic_smem", 81920)),
    }
    ref = torch.matmul(a, b.t())
    ref32 = torch.matmul(a.float(), b.float().t())  # tf32 off below
    errs = {"torch": rel_err(ref, ref32)}
    for x, o in outs.items():
        o.fill_(float("nan"))
        runs[x]()
        torch.cuda.synchronize()
        errs[x] = max(rel_err(o, ref), rel_err(o, ref32))
    rounds = {x: [] for x in runs}
    for _ in range(5):
        for x, fn in runs.items():
            rounds[x].append(time_ms(fn, iters))
    med = {x: sorted(v)[len(v) // 2] for x, v in rounds.items()}
    spread = {x: (min(v), max(v)) for x, v in rounds.items()}
    return med, spread, errs


def main():
    build, twin_cubin = sys.argv[1:3]
    iters = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.cuda.synchronize()  # torch's primary context is now current
    check(cu.cuInit(0), "cuInit")
    twin_fn = load(twin_cubin, "gemm_wgmma_twin", 196608 + 1024)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print("# %s, %d SMs; bf16 in, f32 accumulate, bf16 out; median of 5 "
          "interleaved rounds of %d launches (min-max of the rounds in "
          "TFLOP/s)" % (torch.cuda.get_device_name(0), sms, iters))
    print("| M x N x K | torch TFLOP/s | wgmma (ptxtile) | twin (CUDA C++) "
          "| mma.sync (ptxtile) | wgmma/torch | wgmma/twin | rel err "
          "wgmma / twin / mma / torch |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    ok = True
    for m, n, k in SIZES:
        med, spread, errs = bench_size(build, twin_fn, m, n, k, iters)
        tf = lambda ms: 2.0 * m * n * k / ms / 1e9
        cell = lambda x: "%.0f (%.0f-%.0f)" % (
            tf(med[x]), tf(spread[x][1]), tf(spread[x][0]))
        print("| %dx%dx%d | %s | %s | %s | %s | %.3f | %.3f | %.1e / %.1e "
              "/ %.1e / %.1e |" % (m, n, k, cell("torch"), cell("wgmma"),
                                   cell("twin"), cell("mma"),
                                   med["torch"] / med["wgmma"],
                                   med["twin"] / med["wgmma"],
                                   errs["wgmma"], errs["twin"], errs["mma"],
                                   errs["torch"]), flush=True)
        ok = ok and all(e < 1e-2 for e in errs.values())
    if not ok:
        print("FAIL: a result differs from torch.matmul")
        sys.exit(1)


if __name__ == "__main__":
    main()
