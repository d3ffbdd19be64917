"""bench/gemm/sizes.py - the Hopper GEMM benchmark over several sizes, one
process, one run: C = A @ B.T, bf16 A (M, K) and B (N, K), float32
accumulation, bf16 C, on the same torch-allocated inputs for
  torch   torch.matmul(A, B.T) (cuBLAS)
  wgmma   ptxtile's PTX for examples/gemm_wgmma.py (TMA + mbarrier ring,
          producer warp + two consumer warpgroups, m64n256k16, epilogue
          through shared memory: stmatrix + TMA store)
  direct  ptxtile's PTX for examples/gemm_wgmma_direct.py (the same
          kernel with the direct masked st.global epilogue, any N)
  twin    bench/gemm/gemm_wgmma_twin.cu, the same algorithm in CUDA C++
          with inline PTX (runtime sizes)
  twin_d  the twin built with -DEPI_DIRECT (direct stores, as direct)
  mma     ptxtile's PTX for examples/gemm_bf16.py (mma.sync m16n8k16)
gemm_wgmma.py takes runtime sizes and the SM count (grid min(sms,
tiles)): it is compiled once.  gemm_bf16.py takes its sizes as module
constants, so each size compiles its own kernel: M, N, K are given to
ptxtile.compile as constants=.  Both are compiled with the ptxtile package
(ptxtile.compile, sm_90a; the cubin comes from ptxas through
Kernel.cubin); the scripts and their PTX are left in BUILD_DIR/bench for
inspection.  The ptxtile kernels
are launched with torch tensors (the package encodes their tensor maps
from the metadata); the twin, an nvcc cubin, is loaded and launched with
bench.py's ctypes driver helpers and gets tensor maps encoded here with
cuTensorMapEncodeTiled from the wgmma kernel's metadata (box, swizzle, L2
promotion, OOB fill).  Per size: results are checked against torch
(relative Frobenius error < 1e-2 against both torch's bf16 result and a
float32 product of the same inputs, output poisoned with NaN first), then
five rounds, each timing `iters` launches of every kernel in turn with
ptxtile.testing.bench; the median round.

Usage (GPU host, repository root, after make; run_wgmma.sh sets
PYTHONPATH=python):
  python3 bench/gemm/sizes.py BUILD_DIR TWIN_CUBIN TWIN_DIRECT_CUBIN [iters]
"""
import argparse
import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# bench/gemm/bench.py: imports ptxtile (or finds it in python/)
from bench import check, driver, launcher, load, ptr, time_rounds  # noqa
import ptxtile  # noqa: E402

SIZES = [(4096, 4096, 4096), (8192, 8192, 8192), (2048, 2048, 2048),
         (16384, 4096, 4096), (8192, 7168, 2048)]
if os.environ.get("GEMM_SIZES"):  # e.g. "4096x4096x4096,2048x2048x2048"
    SIZES = [tuple(int(v) for v in s.split("x"))
             for s in os.environ["GEMM_SIZES"].split(",")]


def compile_example(build, src, m, n, k, tag):
    """Compiles an example with ptxtile.compile (sm_90a), its module
    constants M, N, K overridden by constants= (m = None: none, the
    sizes are runtime values); returns the Kernel.  The script (with a
    first line naming the constants) and the PTX are left in
    BUILD_DIR/bench."""
    consts = {"M": m, "N": n, "K": k} if m else {}
    kernel = ptxtile.compile(src, target="sm_90a", constants=consts)
    with open(src) as f:
        text = f.read()
    if consts:
        text = "# ptxtile.compile(constants=%r)\n%s" % (consts, text)
    base = os.path.join(build, "bench", "%s_%d_%d_%d" % (tag, m or 0,
                                                          n or 0, k or 0))
    for ext, data in ((".py", text), (".ptx", kernel.ptx)):
        with open(base + ext, "w") as f:
            f.write(data)
    return kernel


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
    check(driver().cuTensorMapEncodeTiled(
        tmap, 9, 2, ctypes.c_void_p(t.data_ptr()), dims, strides, box, es,
        0, SWIZZLE[slot["swizzle"]], L2[slot["l2_promotion"]], 0),
        "cuTensorMapEncodeTiled")
    return tmap


def rel_err(got, ref):
    d = got.float() - ref.float()
    return (d.norm() / ref.float().norm()).item()


def bench_size(build, twins, k_wg, k_wd, sms, m, n, k, iters):
    import torch
    a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    b = torch.randn(n, k, device="cuda").to(torch.bfloat16)
    outs = {x: torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            for x in ("wgmma", "direct", "twin", "twin_d", "mma")}
    k_mma = compile_example(build, "examples/gemm_bf16.py", m, n, k,
                            "gemm_bf16")
    slots = {s["tensor"]: s for s in k_wg.meta["kernels"][0]["params"]
             if s["kind"] == "tma"}
    # the twin's maps: the boxes, swizzle and L2 promotion of the
    # wgmma kernel's (A 128 x 64, B 128 x 64: each CTA of a cluster
    # multicasts its half of the 256-row B box)
    ta = tensor_map(a, *slots["A"]["box"], slot=slots["A"])
    tb = tensor_map(b, *slots["B"]["box"], slot=slots["B"])
    tc = tensor_map(outs["twin"], *slots["C"]["box"], slot=slots["C"])
    tcd = tensor_map(outs["twin_d"], *slots["C"]["box"], slot=slots["C"])
    grid = 2 * min(max(sms // 2, 1), -(-m // 256) * -(-n // 256))
    runs = {
        "torch": lambda: torch.matmul(a, b.t()),
        "wgmma": lambda: k_wg(a, b, outs["wgmma"], sms),
        "direct": lambda: k_wd(a, b, outs["direct"], sms),
        "twin": launcher(twins[0], (grid, 1), 384,
                         [ta, tb, tc, ptr(outs["twin"]), ctypes.c_int32(m),
                          ctypes.c_int32(n), ctypes.c_int32(k)],
                         k_wg.launch_config["dynamic_smem"] + 1024),
        "twin_d": launcher(twins[1], (grid, 1), 384,
                           [ta, tb, tcd, ptr(outs["twin_d"]),
                            ctypes.c_int32(m), ctypes.c_int32(n),
                            ctypes.c_int32(k)],
                           k_wd.launch_config["dynamic_smem"] + 1024),
        "mma": lambda: k_mma(a, b, outs["mma"]),
    }
    ref = torch.matmul(a, b.t())
    ref32 = torch.matmul(a.float(), b.float().t())  # tf32 off below
    errs = {"torch": rel_err(ref, ref32)}
    for x, o in outs.items():
        o.fill_(float("nan"))
        runs[x]()
        torch.cuda.synchronize()
        errs[x] = max(rel_err(o, ref), rel_err(o, ref32))
    med, spread = time_rounds(runs, iters)
    return med, spread, errs


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="Hopper GEMM over several sizes (GEMM_SIZES="
        "MxNxK,...): ptxtile wgmma and mma.sync kernels vs the CUDA C++ "
        "twin vs torch.matmul")
    p.add_argument("build_dir", help="build folder; the per-size scripts "
                   "and PTX go to BUILD_DIR/bench")
    p.add_argument("twin_cubin", help="cubin of "
                   "bench/gemm/gemm_wgmma_twin.cu")
    p.add_argument("twin_direct_cubin", help="cubin of "
                   "bench/gemm/gemm_wgmma_twin.cu -DEPI_DIRECT")
    p.add_argument("iters", nargs="?", type=int, default=20,
                   help="launches per timed round (default 20)")
    return p.parse_args(argv)


def main():
    args = parse_args()
    import torch
    build, twin_cubin, iters = args.build_dir, args.twin_cubin, args.iters
    os.makedirs(os.path.join(build, "bench"), exist_ok=True)
    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.cuda.synchronize()  # torch's primary context is now current
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    k_wg = compile_example(build, "examples/gemm_wgmma.py", None, None,
                           None, "gemm_wgmma")
    k_wd = compile_example(build, "examples/gemm_wgmma_direct.py", None,
                           None, None, "gemm_wgmma_direct")
    twins = (load(twin_cubin, "gemm_wgmma_twin",
                  k_wg.launch_config["dynamic_smem"] + 1024),
             load(args.twin_direct_cubin, "gemm_wgmma_twin",
                  k_wd.launch_config["dynamic_smem"] + 1024))
    print("# %s, %d SMs; bf16 in, f32 accumulate, bf16 out; median of 5 "
          "interleaved rounds of %d launches (min-max of the rounds in "
          "TFLOP/s)" % (torch.cuda.get_device_name(0), sms, iters))
    print("| M x N x K | torch TFLOP/s | wgmma (ptxtile) | direct (ptxtile) "
          "| twin (CUDA C++) | twin_d (CUDA C++) | mma.sync (ptxtile) "
          "| wgmma/torch | direct/torch | wgmma/direct | wgmma/twin "
          "| twin/twin_d | rel err wgmma / direct / twin / twin_d / mma "
          "/ torch |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    ok = True
    for m, n, k in SIZES:
        med, spread, errs = bench_size(build, twins, k_wg, k_wd, sms, m, n,
                                       k, iters)
        tf = lambda ms: 2.0 * m * n * k / ms / 1e9
        cell = lambda x: "%.0f (%.0f-%.0f)" % (
            tf(med[x]), tf(spread[x][1]), tf(spread[x][0]))
        print("| %dx%dx%d | %s | %s | %s | %s | %s | %s | %.3f | %.3f | %.3f "
              "| %.3f | %.3f | %.1e / %.1e / %.1e / %.1e / %.1e / %.1e |" % (
                  m, n, k, cell("torch"), cell("wgmma"), cell("direct"),
                  cell("twin"), cell("twin_d"), cell("mma"),
                  med["torch"] / med["wgmma"], med["torch"] / med["direct"],
                  med["direct"] / med["wgmma"], med["twin"] / med["wgmma"],
                  med["twin_d"] / med["twin"], errs["wgmma"],
                  errs["direct"], errs["twin"], errs["twin_d"],
                  errs["mma"], errs["torch"]), flush=True)
        ok = ok and all(e < 1e-2 for e in errs.values())
    if not ok:
        print("FAIL: a result differs from torch.matmul")
        sys.exit(1)


if __name__ == "__main__":
    main()
