"""bench/fp8/run.py - FP8 GEMM on the H200, one process, one run:
torch._scaled_mm in each scaling mode this torch takes against ours
(examples/gemm_fp8.py, gemm_fp8_rowwise.py, gemm_fp8_block.py), D bf16 =
scale-applied A . B^T, A (M, K) and B (N, K) float8_e4m3fn K-major.

Shapes: M in {64, 128, 4096} x (N, K) in {(2112, 7168), (24576, 1536),
(32768, 512), (7168, 16384), (4096, 7168), (7168, 2048)}, plus 8192^3
(issue 25); `--quick` runs three of them, which the full suite runs
first; `--budget S` skips (and lists) the shapes not started S seconds
after the start.  The promotion study and the API table run before the
suite.  Per shape and mode the inputs
are float32 normals quantized here the way each mode defines its scales
(tensor-wise amax / 448, per row, per 1 x 128 of A and 128 x 128 of B);
both implementations get the same quantized tensors, and the reference
is the float32 product (TF32 off) of the dequantized inputs.  Ours runs in every
(BN, ST) configuration of ptxtile.kernels.fp8.CONFIGS (what fp8_matmul
tunes per shape), and at M <= fp8.SWAP_M (every mode) also in
the float8 swap-AB configuration that fp8_matmul's second tuner picks
(kernels/_gemm.py); each is checked, the fastest is reported.  Reported:
relative Frobenius error of each against it, and the median over
ROUNDS interleaved rounds (every implementation of the shape timed in
turn in each round, CUDA events around `iters` back-to-back calls) as
TFLOP/s.  Ours is launched with a pre-packed argument array (the C
runtime's ptrt_launch, as bench/python_launch.py's "prepacked"; a plain
kernel(...) call adds ~10 us of Python per launch), torch's _scaled_mm
from Python as users call it.  One shape also compares the per-tensor
kernel (one-level: the wgmma accumulator holds the whole K) with the
block kernel given uniform scales, promoting every PI = 1, 4, 16 K
blocks or once (two-level), on the same tensor-wise data:
"with/without promotion".
Exit status 1 when any of our results is wrong (relative error > 0.02)
or a kernel fails; torch modes that this torch refuses are reported as
such.  Usage, from the repository root on the GPU host after `make`:
  PYTHONPATH=python python3 bench/fp8/run.py [--quick] [--rounds N]
"""
import argparse
import ctypes
import os
import statistics
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402

import ptxtile  # noqa: E402
from ptxtile import _lib, _runtime  # noqa: E402
from ptxtile.kernels import fp8  # noqa: E402

E4 = torch.float8_e4m3fn
FMAX = 448.0
NK = [(2112, 7168), (24576, 1536), (32768, 512), (7168, 16384),
      (4096, 7168), (7168, 2048)]
QUICK = [(128, 2112, 7168), (4096, 7168, 16384), (8192, 8192, 8192)]
# the quick three first (a --budget run keeps them), then the rest
SHAPES = QUICK + [s for s in [(m, n, k) for m in (64, 128, 4096)
                              for n, k in NK] if s not in QUICK]
PROMO_SHAPE = (4096, 7168, 16384)
WRONG = 0.02


def ceil(x, d):
    return -(-x // d)


def quant_tensor(x):
    s = (x.abs().max() / FMAX).clamp(min=1e-12).float()
    return (x / s).to(E4), s


def quant_rows(x):
    s = (x.abs().amax(1, keepdim=True) / FMAX).clamp(min=1e-12).float()
    return (x / s).to(E4), s  # s (rows, 1)


def quant_blocks(x, br):
    """x (rows, k) in br x 128 blocks: (q, s) with s (ceil(rows/br),
    ceil(k/128))."""
    r, k = x.shape
    rp, kp = ceil(r, br) * br, ceil(k, 128) * 128
    xp = torch.zeros(rp, kp, device=x.device)
    xp[:r, :k] = x
    v = xp.view(rp // br, br, kp // 128, 128)
    s = (v.abs().amax(dim=(1, 3)) / FMAX).clamp(min=1e-12)
    q = (v / s[:, None, :, None]).view(rp, kp)[:r, :k].to(E4)
    return q, s.float().contiguous()


def expand(s, rows, k, br):
    return s.repeat_interleave(br, 0)[:rows].repeat_interleave(128, 1)[:, :k]


def rel_err(d, ref):
    return ((d.float() - ref).norm() / ref.norm()).item()


def prepacked(k, args):
    """A no-argument launcher of k(*args) with the argument array packed
    once; falls back to k(*args) when the private launch path is not
    available.  Returns (fn, how)."""
    k(*args)  # loads the module, checks the arguments
    try:
        buf = k._new_buffer()
        dev, keep, _ = k._pack(args, None, buf)
        h = k._handle(_runtime.get(dev))
        launch = _lib.runtime().ptrt_launch
        addr, n = ctypes.addressof(buf), len(args)
        stream = torch.cuda.current_stream().cuda_stream
        if launch(h, addr, n, stream) != 0:
            raise RuntimeError("ptrt_launch failed")

        # the packed array holds raw pointers: the closure keeps the
        # tensors (args) and the array alive while it is timed
        def fn(buf=buf, keep=keep, args=args):
            launch(h, addr, n, stream)
        return fn, "prepacked"
    except Exception as e:  # noqa: BLE001 - report and time the plain call
        print("# prepacked launch unavailable (%s); timing k(...)" % e)
        return (lambda: k(*args)), "call"


def time_round(fn, iters):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / iters


def measure(impls, rounds):
    """{name: median ms/call} over interleaved rounds."""
    iters = {}
    for name, fn in impls.items():
        fn()
        torch.cuda.synchronize()
        t = time_round(fn, 3)
        iters[name] = max(3, min(200, int(2.0 / max(t, 1e-4))))
    times = {name: [] for name in impls}
    for _ in range(rounds):
        for name, fn in impls.items():
            times[name].append(time_round(fn, iters[name]))
    return {name: statistics.median(v) for name, v in times.items()}


class Torch(object):
    """torch._scaled_mm per mode; the modes it ran and the first refusal
    of each mode (tried again on every shape: a refusal may depend on the
    shape)."""

    def __init__(self):
        self.ok = set()
        self.refused = {}

    def call(self, mode, qa, qb, sa, sb):
        if mode == "tensor":
            ta, tb = sa, sb
        elif mode == "row":
            ta, tb = sa, sb.t().contiguous()          # (M, 1), (1, N)
        else:
            ta = sa.t().contiguous().t()              # (M, KB), strides (1, M)
            tb = sb.t()                               # its .t() is (NB, KB) row-major
        fn = (lambda: torch._scaled_mm(qa, qb.t(), scale_a=ta, scale_b=tb,
                                       out_dtype=torch.bfloat16))
        try:
            d = fn()
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - this torch lacks the mode
            self.refused.setdefault(mode, "%dx%dx%d: %s" % (
                qa.shape[0], qb.shape[0], qa.shape[1],
                str(e).split("\n")[0][:160]))
            return None
        self.ok.add(mode)
        return fn, d


def ours(mode, qa, qb, sa, sb, sms, bn, st, db=None):
    m, n = qa.shape[0], qb.shape[0]
    c = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
    if mode == "tensor":
        args = (qa, qb, c, sa.reshape(1), sb.reshape(1), sms)
    elif mode == "row":
        args = (qa, qb, c, sa.reshape(m).contiguous(), sb.reshape(n).contiguous(), sms)
    else:
        sa_k, sb_k = fp8.scale_args("block", sa, sb, m, n, qa.shape[1])
        args = (qa, qb, c, sa_k, sb_k, sms)
    fn, how = prepacked(fp8.kernel(mode, BN=bn, ST=st, DB=db), args)
    torch.cuda.synchronize()
    return fn, c, how


def ours_swap(mode, qa, qb, sa, sb):
    """The float8 swap-AB configuration fp8_matmul would time against its
    own kernel at M <= fp8.SWAP_M (every mode): the fastest of
    _gemm.configs(fp8=...) by _gemm's CUDA-graph timing, then launched
    prepacked like the others.  Returns (name, fn, c) or None."""
    from ptxtile.kernels import _gemm
    m, k = qa.shape
    n = qb.shape[0]
    if m > fp8.SWAP_M:
        return None
    sx, sw = fp8._swap_scales(*fp8.scale_args(mode, sa, sb, m, n, k))
    cands = _gemm.configs(m, n, k, fp8=("float8_e4m3fn", "float8_e4m3fn",
                                        fp8._SWAP_SCALE[mode]))
    _gemm.GEMM.prepare(cands)
    out = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
    ws = _gemm.rotation(qb)
    it = [0]
    best = None
    for script, c in cands:
        def go(c=c):
            it[0] += 1
            _gemm.GEMM.launch(script, c, qa, ws[it[0] % len(ws)], out,
                              sx=sx, sw=sw)
        t = _gemm.time_graph(go, iters=max(10, 2 * len(ws)))[0]
        if best is None or t < best[0]:
            best = (t, c)
    del ws
    c = best[1]
    kern = _gemm.GEMM.kernel("gemm_swapab.py", c)
    wsp, cnt = _gemm.GEMM.workspace(qa.device,
                                    torch.cuda.current_stream().cuda_stream,
                                    c["SPLIT"], m, n)
    args = (qa, qb, out, _gemm._dummy(qa.device, n), out, wsp, cnt, sx, sw,
            1.0, 0.0)
    fn, _ = prepacked(kern, args)
    torch.cuda.synchronize()
    name = _gemm.config_name("gemm_swapab.py", c).replace(" fp8", "")
    return name, fn, out


def quantize(mode, xa, xb):
    m, k = xa.shape
    n = xb.shape[0]
    if mode == "tensor":
        (qa, sa), (qb, sb) = quant_tensor(xa), quant_tensor(xb)
        ref = (qa.float() @ qb.float().t()) * (sa * sb)
    elif mode == "row":
        (qa, sa), (qb, sb) = quant_rows(xa), quant_rows(xb)
        ref = (qa.float() * sa) @ (qb.float() * sb).t()
    else:
        (qa, sa), (qb, sb) = quant_blocks(xa, 1), quant_blocks(xb, 128)
        ref = (qa.float() * expand(sa, m, k, 1)) @ (
            qb.float() * expand(sb, n, k, 128)).t()
    return qa, qb, sa, sb, ref


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--budget", type=float, default=0.0,
                    help="seconds: the shapes not started by then are "
                    "skipped (and listed); 0: no limit")
    opt = ap.parse_args()
    t_start = time.time()
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.cuda.get_device_properties(0)
    sms = dev.multi_processor_count
    print("# %s, %d SMs, torch %s, ptxtile %s; median of %d interleaved "
          "rounds, CUDA events" % (dev.name, sms, torch.__version__,
                                   ptxtile.__version__, opt.rounds))
    tq = Torch()
    bad, rows = [], []
    # the promotion study and the API's overhead first: they are what a
    # time-limited run must not lose
    promotion(sms, opt.rounds, bad)
    api(opt.rounds, bad)
    print()
    skipped = []
    print("Shape suite (ours: the fastest of fp8.CONFIGS and fp8.UNTUNED, "
          "BN/ST[/DB], and at M <= %d tensor- and row-wise the float8 "
          "swap-AB configuration fp8_matmul's tuner picks, 'swapab ...'):"
          % fp8.SWAP_M)
    print("| M | N | K | mode | torch TFLOP/s | ours TFLOP/s | ours BN/ST "
          "| ours/torch | torch err | ours err |")
    print("|---:|---:|---:|---|---:|---:|---|---:|---:|---:|")
    for (m, n, k) in (QUICK if opt.quick else SHAPES):
        if opt.budget and time.time() - t_start > opt.budget:
            skipped.append("%dx%dx%d" % (m, n, k))
            continue
        g = torch.Generator(device="cuda").manual_seed(m * 7 + n * 3 + k)
        xa = torch.randn(m, k, generator=g, device="cuda")
        xb = torch.randn(n, k, generator=g, device="cuda")
        flop = 2.0 * m * n * k
        tflops = {}
        for mode in ("tensor", "row", "block"):
            qa, qb, sa, sb, ref = quantize(mode, xa, xb)
            impls, errs = {}, {}
            t = tq.call(mode, qa, qb, sa, sb)
            if t is not None:
                impls["torch"] = t[0]
                errs["torch"] = rel_err(t[1], ref)
            for cfg in fp8.CONFIGS[mode] + fp8.UNTUNED[mode]:
                name = fp8.config_name(cfg)
                try:
                    fn, c, how = ours(mode, qa, qb, sa, sb, sms, *fp8.config_values(cfg))
                    impls[name] = fn
                    errs[name] = rel_err(c, ref)
                except Exception as e:  # noqa: BLE001 - a failing kernel is a FAIL
                    errs[name] = float("nan")
                    print("# FAIL %dx%dx%d %s BN/ST %s: %s" % (m, n, k, mode, name, e))
                if not errs[name] <= WRONG:
                    bad.append("%dx%dx%d %s BN/ST %s (err %s)" % (m, n, k, mode, name, errs[name]))
                    impls.pop(name, None)
            sw_ = ours_swap(mode, qa, qb, sa, sb)
            if sw_ is not None:
                name, fn, c = sw_
                impls[name], errs[name] = fn, rel_err(c, ref)
                if not errs[name] <= WRONG:
                    bad.append("%dx%dx%d %s %s (err %s)" % (m, n, k, mode, name, errs[name]))
                    impls.pop(name)
            ms = measure(impls, opt.rounds)
            tt = flop / ms["torch"] / 1e9 if "torch" in ms else None
            mine = [(ms[x], x) for x in ms if x != "torch"]
            best = min(mine)[1] if mine else None
            to = flop / ms[best] / 1e9 if best else None
            tflops[mode] = to
            rows.append((m, n, k, mode, tt, to))
            print("| %d | %d | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                m, n, k, mode, "%.0f" % tt if tt else "n/a",
                "%.0f" % to if to else "FAIL", best or "-",
                "%.3f" % (to / tt) if tt and to else "-",
                "%.2e" % errs["torch"] if "torch" in errs else "n/a",
                "%.2e" % errs[best] if best else "-"))
            sys.stdout.flush()
            del qa, qb, sa, sb, ref, impls
        if tflops.get("block") and tflops.get("tensor"):
            print("|  |  |  | block/tensor (ours) |  | %.3f |  |  |  |  |"
                  % (tflops["block"] / tflops["tensor"]))
        del xa, xb
        torch.cuda.empty_cache()
    for mode in ("tensor", "row", "block"):
        print("# torch._scaled_mm %s-wise: %s%s" % (
            mode, "ran" if mode in tq.ok else "never ran",
            "; refused at " + tq.refused[mode] if mode in tq.refused else ""))
    if skipped:
        print("# not run (past --budget %.0f s): %s" % (opt.budget, ", ".join(skipped)))
    print("# run.py took %.0f s" % (time.time() - t_start))
    if bad:
        print("FAIL: wrong results: " + "; ".join(bad))
        return 1
    print("PASS: every result within %.2f relative error" % WRONG)
    return 0


def promotion(sms, rounds, bad):
    """Tensor-wise data at PROMO_SHAPE: the one-level per-tensor kernel
    (the wgmma accumulator sums all of K) against the block kernel with
    uniform scales promoting every PI K blocks (PI = K / 128: one
    interval, the block kernel's one-level control), errors side by side
    with torch's tensor-wise mode."""
    m, n, k = PROMO_SHAPE
    g = torch.Generator(device="cuda").manual_seed(1)
    xa = torch.randn(m, k, generator=g, device="cuda")
    xb = torch.randn(n, k, generator=g, device="cuda")
    (qa, sa), (qb, sb) = quant_tensor(xa), quant_tensor(xb)
    ref = (qa.float() @ qb.float().t()) * (sa * sb)
    impls, errs = {}, {}
    name = "one-level: gemm_fp8.py BN 256"
    impls[name], c, _ = ours("tensor", qa, qb, sa, sb, sms, 256, 4)
    errs[name] = rel_err(c, ref)
    bsa = sa.expand(m, ceil(k, 128))
    bsb = sb.expand(ceil(n, 128), ceil(k, 128))
    sa_k, sb_k = fp8.scale_args("block", bsa, bsb, m, n, k)
    for pi, db in ((1, 0), (1, 1), (4, 0), (16, 0), (ceil(k, 128), 0)):
        name = "two-level: gemm_fp8_block.py BN 128, PI %d (%d of K)%s" % (
            pi, 128 * pi, ", DB 1 (two accumulators)" if db else "")
        c = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
        impls[name], _ = prepacked(fp8.kernel("block", BN=128, ST=5, PI=pi, DB=db),
                                   (qa, qb, c, sa_k, sb_k, sms))
        torch.cuda.synchronize()
        errs[name] = rel_err(c, ref)
    t = Torch().call("tensor", qa, qb, sa, sb)
    if t is not None:
        impls["torch tensor-wise"] = t[0]
        errs["torch tensor-wise"] = rel_err(t[1], ref)
    ms = measure(impls, rounds)
    print()
    print("Promotion, %dx%dx%d, tensor-wise data:" % (m, n, k))
    print("| kernel | TFLOP/s | rel. Frobenius err |")
    print("|---|---:|---:|")
    for name in impls:
        print("| %s | %.0f | %.2e |" % (name, 2.0 * m * n * k / ms[name] / 1e9,
                                       errs[name]))
        if name != "torch tensor-wise" and not errs[name] <= WRONG:
            bad.append("promotion %s (err %s)" % (name, errs[name]))


def api(rounds, bad):
    """fp8_matmul as users call it (Python checks, the custom op, the
    autotuner's dispatch: tuned on the first call) against torch, per
    mode at one small and one large shape."""
    print()
    print("fp8_matmul (the Python API, tuned) against torch._scaled_mm; "
          "TFLOP/s of back-to-back calls (at small shapes the host's cost "
          "per call shows):")
    print("  eager: fp8_matmul(...); op: torch.ops.ptxtile.fp8_matmul (the "
          "custom op, as torch.compile calls it); kernel: the tuned "
          "Kernel called directly (its fast launch path); packed: "
          "ptrt_launch of a pre-packed argument array")
    print("| M | N | K | mode | torch | eager | op | kernel | packed | err |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for (m, n, k) in ((128, 2112, 7168), (4096, 7168, 16384)):
        g = torch.Generator(device="cuda").manual_seed(2)
        xa = torch.randn(m, k, generator=g, device="cuda")
        xb = torch.randn(n, k, generator=g, device="cuda")
        for mode in ("tensor", "row", "block"):
            qa, qb, sa, sb, ref = quantize(mode, xa, xb)
            if mode == "block":
                tsa = sa.t().contiguous().t()  # torch's (1, M) strides: no copy
            else:
                tsa = sa
            d = fp8.fp8_matmul(qa, qb, tsa, sb)  # tunes this shape
            torch.cuda.synchronize()
            err = rel_err(d, ref)
            if not err <= WRONG:
                bad.append("fp8_matmul %dx%dx%d %s (err %s)" % (m, n, k, mode, err))
            d2 = torch.ops.ptxtile.fp8_matmul(qa, qb, tsa, sb, False)
            torch.cuda.synchronize()
            if not rel_err(d2, ref) <= WRONG:
                bad.append("ptxtile::fp8_matmul %dx%dx%d %s" % (m, n, k, mode))
            sa_k, sb_k = fp8.scale_args(mode, tsa, sb, m, n, k)
            c = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
            args = (qa, qb, c, sa_k, sb_k, torch.cuda.get_device_properties(0).multi_processor_count)
            kern = fp8.tuner(mode).best(*args)
            impls = {"eager": lambda: fp8.fp8_matmul(qa, qb, tsa, sb),
                     "op": lambda: torch.ops.ptxtile.fp8_matmul(qa, qb, tsa, sb, False),
                     "kernel": lambda: kern(*args)}
            impls["packed"], _ = prepacked(kern, args)
            t = Torch().call(mode, qa, qb, sa, sb)
            if t is not None:
                impls["torch"] = t[0]
            ms = measure(impls, rounds)
            f = 2.0 * m * n * k / 1e9
            print("| %d | %d | %d | %s | %s | %s | %.2e |" % (
                m, n, k, mode, "%.0f" % (f / ms["torch"]) if "torch" in ms
                else "n/a", " | ".join("%.0f" % (f / ms[x]) for x in
                                       ("eager", "op", "kernel", "packed")),
                err))
            sys.stdout.flush()

if __name__ == "__main__":
    sys.exit(main())
