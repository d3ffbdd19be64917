"""bench/python_launch.py - per-launch overhead from Python, on a GPU host
with torch (and Triton, when installed).

The same tiny operation, y += a * x over 1024 floats (one CTA), launched
back to back from Python by:
  ptxtile             k(x, y, 1.0): ptxtile.compile()'d kernel; after
                      the first call, the fast path (the packed argument
                      array of the last signature, only the stream, the
                      pointers and scalars rewritten, one ctypes call to
                      ptrt_launch_packed; ptrt_launch's cache, in C, redoes
                      the pointer checks)
  ptxtile (prepacked) the same ptrt_launch through ctypes with the
                      argument array built once (the C runtime's share)
  ptxtile (packed, one pointer)
                      the fast path's own C entry, ptrt_launch_packed
                      through ctypes.PyDLL with a prebuilt plan and no
                      slot: the C runtime and the driver as the fast path
                      calls them, without its Python
  torch               y.add_(x, alpha=1.0): one torch elementwise kernel
  triton              the same kernel as a @triton.jit function
  driver cuLaunchKernel / cuLaunchKernelEx (floor)
                      the driver's own entry points called through
                      ctypes (PyDLL, argtypes set) with the parameter
                      array built once, on the same cubin: the floor of
                      any launch from Python (cuLaunchKernel's row also
                      pays ctypes for 7 more arguments than the Ex row's
                      4, so the two rows differ by more than the driver)
and, host time only, ptxtile's argument conversion without the launch
(the general path, taken by the first call of a signature), the fast
path with the C launch replaced by a no-op (the Python share of the
"ptxtile" row, ctypes call included) and the driver's cuCtxGetCurrent
alone through ctypes (the one driver call a launch makes besides
cuLaunchKernelEx).
Then ptxtile.kernels.matmul against a direct call of the example kernel
it wraps (examples/gemm_wgmma.py, 4096^3 bf16), CUDA events, median of 5
rounds of 50; the issue's targets are printed as MET / NOT MET lines:
ptxtile <= 1.0x torch's add_ per launch, matmul within 2% of direct.
Two numbers per launcher, each the median of 9 rounds:
  host us/launch   wall-clock time of 2000 back-to-back calls (no sync
                   inside), divided by 2000: the Python-side cost; the
                   launchers take turns within each round, and the
                   target's ratio is the median of the per-round ratios
  events us/launch ptxtile.testing.bench: CUDA events around 2000 calls;
                   for a launch-bound op, the launch rate the GPU sees
Usage: python3 bench/python_launch.py [markdown-output-file]
"""
import ctypes
import statistics
import sys
import time

import torch

import ptxtile
from ptxtile import _lib
from ptxtile.testing import bench

SRC = '''
from tvm_tirx.script import tirx as T
n = T.dynamic("n")

@T.function
def axpy(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32"), a: T.float32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 1024), block=1024))
    i = T.cuda.block_idx("x") * 1024 + T.cuda.thread_idx("x")
    if i < n:
        Y[i] = Y[i] + a * X[i]
'''
N, CALLS, ROUNDS = 1024, 2000, 9
SETUP = [0]  # launches made while setting the launchers up


def host_round(fn):
    """us per call of CALLS back-to-back calls of fn (no sync inside)."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(CALLS):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / CALLS * 1e6


def host_us(fn):
    return statistics.median(host_round(fn) for _ in range(ROUNDS))


def host_interleaved(runs):
    """name -> the host us of each round, the launchers taking turns
    within a round, so a drift of the host's speed (measured: torch's own
    call moved from 6.3 to 10.2 us between runs) lands on every launcher
    of a round alike, and a ratio of two launchers is taken per round."""
    rounds = {name: [] for name in runs}
    for _ in range(ROUNDS):
        for name, fn in runs.items():
            rounds[name].append(host_round(fn))
    return rounds


def launchers(x, y):
    k = ptxtile.compile(SRC)
    out = {"ptxtile": lambda: k(x, y, 1.0)}
    buf = k._new_buffer()
    dev, keep, _ = k._pack((x, y, 1.0), None, buf)
    from ptxtile import _runtime
    rt = _runtime.get(dev)
    handle = k._handle(rt)
    launch = _lib.runtime().ptrt_launch
    addr = ctypes.addressof(buf)
    stream = torch.cuda.current_stream().cuda_stream
    if launch(handle, addr, 3, stream) != 0:
        raise RuntimeError("prepacked launch failed: " + str(rt.error()))
    SETUP[0] += 1

    def prepacked(buf=buf):  # buf must outlive the launches
        launch(handle, addr, 3, stream)
    out["ptxtile (prepacked)"] = prepacked
    from ptxtile import _compile
    plan = _compile._Packed(kernel=handle, args=addr, nargs=3, nslots=0)
    plan.stream = stream or None
    pplan, go = ctypes.byref(plan), _lib.launch_packed()
    if go(pplan) != 0:
        raise RuntimeError("packed launch failed: " + str(rt.error()))
    SETUP[0] += 1

    def packed(keep=(buf, plan)):
        go(pplan)
    out["ptxtile (packed, one pointer)"] = packed
    out["torch y.add_(x)"] = lambda: y.add_(x, alpha=1.0)
    try:  # diagnostic rows: their failure must not hide the others
        out.update(raw_driver_launchers(k, x, y, stream))
    except Exception as e:
        print("# raw driver rows skipped: %s" % e)
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def axpy(X, Y, a, n, BLOCK: tl.constexpr):
            i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = i < n
            tl.store(Y + i, tl.load(Y + i, mask=m) + a * tl.load(X + i, mask=m),
                     mask=m)
        out["triton %s" % triton.__version__] = (
            lambda: axpy[(1,)](x, y, 1.0, N, BLOCK=1024))
    except Exception as e:  # not installed, or cannot compile here
        print("# triton skipped: %s" % e)
    return out


class _LaunchConfig(ctypes.Structure):
    """CUlaunchConfig of cuda.h (grid, block, shared memory, stream,
    attributes)."""
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("smem", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.c_void_p), ("nattrs", ctypes.c_uint)]


def raw_driver_launchers(k, x, y, stream):
    """cuLaunchKernel and cuLaunchKernelEx straight from libcuda with a
    prebuilt parameter array: X, Y, a, n (the PTX parameters of SRC)."""
    cu = ctypes.PyDLL("libcuda.so.1")
    vp, u = ctypes.c_void_p, ctypes.c_uint
    mod, fn = vp(), vp()
    image = k.cubin or (k.ptx.encode() + b"\0")
    cu.cuModuleLoadData.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p]
    cu.cuModuleGetFunction.argtypes = [ctypes.POINTER(vp), vp,
                                       ctypes.c_char_p]
    if cu.cuModuleLoadData(ctypes.byref(mod), image) or \
            cu.cuModuleGetFunction(ctypes.byref(fn), mod, k.name.encode()):
        raise RuntimeError("cuModuleLoadData/GetFunction failed")
    vals = [ctypes.c_uint64(x.data_ptr()), ctypes.c_uint64(y.data_ptr()),
            ctypes.c_float(1.0), ctypes.c_int32(N)]
    params = (vp * 4)(*[ctypes.addressof(v) for v in vals])
    launch = cu.cuLaunchKernel
    launch.restype = ctypes.c_int
    launch.argtypes = [vp, u, u, u, u, u, u, u, vp, vp, vp]
    grid = (N + 1023) // 1024
    s = stream or None
    if launch(fn, grid, 1, 1, 1024, 1, 1, 0, s, params, None):
        raise RuntimeError("cuLaunchKernel failed")
    SETUP[0] += 1
    cfg = _LaunchConfig((grid, 1, 1), (1024, 1, 1), 0, s, None, 0)
    ex = cu.cuLaunchKernelEx
    ex.restype = ctypes.c_int
    ex.argtypes = [vp, vp, vp, vp]
    pcfg = ctypes.addressof(cfg)
    if ex(pcfg, fn, params, None):
        raise RuntimeError("cuLaunchKernelEx failed")
    SETUP[0] += 1

    def plain(keep=(vals, params, mod)):
        launch(fn, grid, 1, 1, 1024, 1, 1, 0, s, params, None)

    def extended(keep=(vals, params, cfg, mod)):
        ex(pcfg, fn, params, None)
    return {"driver cuLaunchKernel (floor)": plain,
            "driver cuLaunchKernelEx (floor)": extended}


def fast_path_alone_us(x, y):
    """k(x, y, 1.0) on the fast path with ptrt_launch_packed replaced by
    a C function that does nothing: libc's strlen, given a packed launch
    whose kernel handle (its first 8 bytes) is 0, reads one byte.  The
    Python share of a launch, ctypes call included."""
    import ctypes.util
    from ptxtile import _compile, _runtime
    k = ptxtile.compile(SRC)
    noop = ctypes.PyDLL(ctypes.util.find_library("c")).strlen
    noop.restype = ctypes.c_int
    buf = k._new_buffer()
    dev, _, _ = k._pack((x, y, 1.0), None, buf)
    real = _lib.launch_packed
    _lib.launch_packed = lambda: noop
    try:
        k._fast = _compile._fast_path(k, (x, y, 1.0), buf, 0,
                                      _runtime.get(dev), dev)
    finally:
        _lib.launch_packed = real
    if k._fast is None or not k._fast((x, y, 1.0)):
        raise SystemExit("FAIL: no fast path for the no-op launch")
    return host_us(lambda: k(x, y, 1.0))


def matmul_lines():
    """ptxtile.kernels.matmul vs the example kernel called directly."""
    if torch.cuda.get_device_capability()[0] != 9:
        return ["matmul: skipped (needs an sm_90a device)"]
    import os
    import ptxtile.kernels as K
    m = n = k = 4096
    a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    b = torch.randn(n, k, device="cuda").to(torch.bfloat16)
    c1 = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    c2 = torch.empty_like(c1)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    direct = ptxtile.compile(os.path.join(root, "examples", "gemm_wgmma.py"))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    runs = {"direct": lambda: direct(a, b, c1, sms),
            "kernels.matmul(out=)": lambda: K.matmul(a, b, out=c2),
            "kernels.matmul": lambda: K.matmul(a, b)}
    for fn in runs.values():
        fn()
    torch.cuda.synchronize()
    ref = a.float() @ b.float().T
    for name, c in (("direct", c1), ("kernels.matmul", c2)):
        err = ((c.float() - ref).norm() / ref.norm()).item()
        if not err < 1e-2:
            raise SystemExit("FAIL: %s relative error %.3g" % (name, err))
    # interleaved rounds, so drift spreads over all three
    times = {name: [] for name in runs}
    for _ in range(ROUNDS):
        for name, fn in runs.items():
            times[name].append(bench(fn, warmup=3, iters=50,
                                     rounds=1).median)
    med = {name: statistics.median(t) for name, t in times.items()}
    flops = 2.0 * m * n * k
    out = ["", "| matmul 4096^3 bf16 | ms | TFLOP/s | / direct |",
           "|---|---:|---:|---:|"]
    for name in runs:
        out.append("| %s | %.4f | %.0f | %.3f |" % (
            name, med[name], flops / med[name] / 1e9,
            med[name] / med["direct"]))
    r = med["kernels.matmul(out=)"] / med["direct"]
    out.append("target kernels.matmul within 2%% of direct: %.3fx %s"
               % (r, "MET" if r <= 1.02 else "NOT MET"))
    return out


def main():
    x = torch.ones(N, device="cuda")
    y = torch.zeros(N, device="cuda")
    rows = []
    runs = launchers(x, y)
    for name, fn in runs.items():
        for _ in range(20):
            fn()
    torch.cuda.synchronize()
    host = host_interleaved(runs)
    for name, fn in runs.items():
        ev = bench(fn, warmup=100, iters=CALLS, rounds=ROUNDS).median * 1e3
        rows.append((name, statistics.median(host[name]), ev))
    # every launcher adds x (ones) to y: y counts the launches
    torch.cuda.synchronize()
    launches = len(runs) * (20 + ROUNDS * CALLS + 100 + ROUNDS * CALLS) + \
        SETUP[0]
    if not torch.equal(y, torch.full_like(y, float(launches))):
        raise SystemExit("FAIL: y = %s, expected %d launches"
                         % (y[:4].tolist(), launches))
    lines = ["# %s, torch %s, Python %s; median of %d rounds of %d launches"
             % (torch.cuda.get_device_name(0), torch.__version__,
                sys.version.split()[0], ROUNDS, CALLS),
             "| launcher | host us/launch | events us/launch |",
             "|---|---:|---:|"]
    torch_h = [r[1] for r in rows if r[0].startswith("torch")][0]
    lines[1] = "| launcher | host us/launch | events us/launch | host / torch |"
    lines[2] = "|---|---:|---:|---:|"
    lines += ["| %s | %.2f | %.2f | %.2f |" % (r + (r[1] / torch_h,))
              for r in rows]
    # the Python share: converting and checking the arguments alone
    k = ptxtile.compile(SRC)
    buf = k._new_buffer()
    lines.append("| ptxtile: argument conversion alone (no launch) | %.2f "
                 "| - | - |" % host_us(lambda: k._pack((x, y, 1.0), None,
                                                       buf)))
    try:  # a diagnostic row: its failure must not hide the others
        lines.append("| ptxtile: fast path alone (a no-op for the launch) "
                     "| %.2f | - | - |" % fast_path_alone_us(x, y))
    except (Exception, SystemExit) as e:
        lines.append("| ptxtile: fast path alone: not measured (%s) | - | "
                     "- | - |" % e)
    try:  # diagnostic row
        cu = ctypes.PyDLL("libcuda.so.1")
        cur = ctypes.c_void_p()
        ref = ctypes.byref(cur)
        get = cu.cuCtxGetCurrent
        get.restype = ctypes.c_int
        if get(ref) != 0:
            raise RuntimeError("cuCtxGetCurrent failed")
        lines.append("| driver cuCtxGetCurrent alone (no launch) | %.2f "
                     "| - | - |" % host_us(lambda: get(ref)))
    except Exception as e:
        lines.append("| driver cuCtxGetCurrent alone: not measured (%s) "
                     "| - | - | - |" % e)
    torch_name = [r[0] for r in rows if r[0].startswith("torch")][0]
    per_round = [p / t for p, t in zip(host["ptxtile"], host[torch_name])]
    ratio = statistics.median(per_round)
    lines.append("")
    lines.append("ptxtile / torch per round (launchers interleaved): %s"
                 % " ".join("%.2f" % r for r in per_round))
    lines.append("target ptxtile <= 1.0x torch add_ per launch (host, "
                 "median of the per-round ratios): %.2fx %s"
                 % (ratio, "MET" if ratio <= 1.0 else "NOT MET"))
    lines += matmul_lines()
    text = "\n".join(lines)
    print(text)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
