"""bench/gemm/suite.py - issue 23's GEMM shape suite in one process on one
GPU: ptxtile.kernels matmul (the GEMM family of
python/ptxtile/kernels/scripts, the configuration per shape picked by
the tuner of kernels/_gemm.py over its per-shape list) against torch.

Rows (M x N x K, bf16 in, f32 accumulate, bf16 out unless stated):
  decode   M in {1, 16, 64, 128} x (N, K) in {(4096, 4096), (14336, 4096),
           (4096, 14336)}, weights W stored (N, K): x @ W^T
  prefill  M = 8192 x the same (N, K)
  square   1024^3 .. 8192^3, B stored (N, K)
  majors   4096^3 and 16 x 4096 x 4096 with B stored (K, N): a @ b
  fp16     4096^3, float16 in and out
  fused    gelu_tanh(x @ W^T + bias) at 8192 x 14336 x 4096 and
           16 x 14336 x 4096, against torch.addmm + gelu(tanh) and
           against ptxtile's plain GEMM of the same shape
Per row: the tuner times each candidate (CUDA graphs), then the winner
and torch run in 7 interleaved rounds, each a CUDA graph of `iters`
launches replayed between two events (so host launch overhead is not
timed; eager timing when capture fails, marked *); the median round.
Every output is checked against a float32 product of the same inputs
(relative Frobenius error < 1e-2, the output poisoned with NaN first;
torch's own error is printed beside it).  Decode rows print weight
bytes/s (N K 2 bytes read once per launch) beside TFLOP/s, and the D2D
copy bandwidth of this run (torch copy_ of 1 GiB, eager, events: 2 GiB
moved per copy, read + write) for the 80 % target.  Weights smaller
than 160 MB are rotated among copies (W copies column; together past
160 MB, so neither side finds them in the 60 MB L2), for the tuner's
timing, ours and torch alike.  "tune ms" is the tuner's timing of the
row's candidates (cands; compiled and assembled before, for all rows).

Usage (GPU host, repository root, after make):
  PYTHONPATH=python python3 bench/gemm/suite.py [--quick] [--rows decode,...]
Exit status 1 when any output fails its check.
"""
import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from ptxtile.kernels import _gemm  # noqa: E402

DECODE_NK = [(4096, 4096), (14336, 4096), (4096, 14336)]


def rows(quick=False):
    out = []
    for n, k in DECODE_NK:
        for m in (1, 16, 64, 128):
            out.append(dict(kind="decode", m=m, n=n, k=k))
    for n, k in DECODE_NK:
        out.append(dict(kind="prefill", m=8192, n=n, k=k))
    for s in (1024, 2048, 4096, 8192):
        out.append(dict(kind="square", m=s, n=s, k=s))
    out.append(dict(kind="B(K,N)", m=4096, n=4096, k=4096, kn=True))
    out.append(dict(kind="B(K,N)", m=16, n=4096, k=4096, kn=True))
    out.append(dict(kind="fp16", m=4096, n=4096, k=4096, dt="float16"))
    out.append(dict(kind="fused", m=8192, n=14336, k=4096, fused=True))
    out.append(dict(kind="fused", m=16, n=14336, k=4096, fused=True))
    if quick:
        out = [r for r in out if r["m"] * r["n"] * r["k"] <= 4096 ** 3]
    return out


def capture(fns, iters):
    """A replay callable running iters calls, fns[i % len(fns)] for call
    i (the weight copies in turn): a CUDA graph, or eager calls when
    capture fails; (callable, captured)."""
    import torch
    fns = fns if isinstance(fns, (list, tuple)) else [fns]

    def fn(it=[0]):
        it[0] += 1
        fns[it[0] % len(fns)]()
    for f in fns:
        f()
    torch.cuda.synchronize()
    try:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            fn()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            for _ in range(iters):
                fn()
        g.replay()
        torch.cuda.synchronize()
        return g.replay, True
    except Exception as e:  # noqa: BLE001 - eager timing still measures
        print("# capture failed (%s): eager timing" % (str(e)[:80],))
        torch.cuda.synchronize()
        return (lambda: [fn() for _ in range(iters)]), False


def time_rounds(runs, iters, rounds=7):
    """Median ms per launch of each replay callable, rounds interleaved."""
    import torch
    t = {k: [] for k in runs}
    for _ in range(rounds):
        for k, run in runs.items():
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            run()
            e1.record()
            e1.synchronize()
            t[k].append(e0.elapsed_time(e1) / iters)
    return {k: sorted(v)[len(v) // 2] for k, v in t.items()}


def rel_err(got, ref):
    d = got.float() - ref
    return (d.norm() / ref.norm()).item()


def d2d_bandwidth():
    """Device-to-device copy bandwidth (bytes read + written per second)
    of 1 GiB buffers: cudaMemcpyAsync (torch copy_) launched eagerly 10
    times between two events, the median of 5 such rounds, after two
    warm-up copies (the buffers are 17x the L2, so this is HBM)."""
    import torch
    n = 1 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    src.fill_(1)
    for _ in range(2):
        dst.copy_(src)
    torch.cuda.synchronize()
    times = []
    for _ in range(5):
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(10):
            dst.copy_(src)
        e1.record()
        e1.synchronize()
        times.append(e0.elapsed_time(e1) / 10)
    ms = sorted(times)[len(times) // 2]
    del src, dst
    return 2.0 * n / (ms * 1e-3)


def bench_row(r, sms):
    import torch
    import torch.nn.functional as F
    m, n, k = r["m"], r["n"], r["k"]
    dt = getattr(torch, r.get("dt", "bfloat16"))
    g = torch.Generator(device="cuda").manual_seed(m + 3 * n + 7 * k)
    a = torch.randn(m, k, device="cuda", generator=g).to(dt)
    if r.get("kn"):
        b = torch.randn(k, n, device="cuda", generator=g).to(dt)  # (K, N)
        bmat = b
    else:
        w = torch.randn(n, k, device="cuda", generator=g).to(dt)  # (N, K)
        bmat = w.t()
    bias = (torch.randn(n, device="cuda", generator=g).to(dt)
            if r.get("fused") else None)
    # the same values in float32 for ptxtile (no conversion per launch)
    bias32 = bias.float() if bias is not None else None
    act = "gelu" if r.get("fused") else None
    t0 = time.time()
    script, c = _gemm.choose(
        m, n, k, bmat.t() if not r.get("kn") else bmat, a, sms=sms,
        dt=_gemm._name(dt), out=_gemm._name(dt),
        b_kmajor=0 if r.get("kn") else 1, bias=1 if bias is not None else 0,
        act=2 if act else 0, resid=0,
        bias32=bias32)
    tune_s = time.time() - t0
    # decode-sized weights fit in the 60 MB L2: rotate copies (together
    # past 160 MB) so both sides read weights from HBM in the timed loop
    bmats = _gemm.rotation(bmat)
    out = torch.empty(m, n, device="cuda", dtype=dt)

    def ours_i(bm):
        return lambda: _gemm.matmul(a, bm, bias=bias32, activation=act,
                                    out=out, config=(script, c))
    ours = ours_i(bmat)
    if r.get("fused"):
        def ref_i(bm):
            return lambda: F.gelu(torch.addmm(bias, a, bm),
                                  approximate="tanh")
        plain_out = torch.empty_like(out)
        plain_cfg = _gemm.choose(m, n, k, bmat.t(), a, sms=sms,
                                 dt=_gemm._name(dt), out=_gemm._name(dt),
                                 b_kmajor=1, bias=0, act=0, resid=0)

        def plain_i(bm):
            return lambda: _gemm.matmul(a, bm, out=plain_out,
                                        config=plain_cfg)
    else:
        def ref_i(bm):
            return lambda: torch.matmul(a, bm)
    ref_fn = ref_i(bmat)
    # correctness first: the output poisoned, then one launch
    out.fill_(float("nan"))
    ours()
    ref32 = a.float() @ bmat.float()
    if r.get("fused"):
        ref32 = F.gelu(ref32 + bias.float(), approximate="tanh")
    tref = ref_fn()
    torch.cuda.synchronize()
    err, terr = rel_err(out, ref32), rel_err(tref, ref32)
    est = 2.0 * m * n * k / 400e12 * 1e3 + 0.005  # ms, a rough guess
    iters = max(5, min(200, int(math.ceil(2.0 / est))))
    runs, caps = {}, []
    iters = max(iters, 2 * len(bmats))
    for name, mk in (("ours", ours_i), ("torch", ref_i)) + (
            (("plain", plain_i),) if r.get("fused") else ()):
        runs[name], cap = capture([mk(bm) for bm in bmats], iters)
        caps.append(cap)
    med = time_rounds(runs, iters)
    del ref32
    return dict(med=med, err=err, terr=terr, cfg=_gemm.config_name(script, c),
                tune_s=tune_s, eager=not all(caps), copies=len(bmats),
                cands=len(_gemm.configs(
                    m, n, k, sms=sms, dt=_gemm._name(dt),
                    out=_gemm._name(dt), b_kmajor=0 if r.get("kn") else 1,
                    bias=1 if bias is not None else 0,
                    act=2 if act else 0)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="only rows up to 4096^3 work")
    p.add_argument("--rows", default="", help="comma list of row kinds")
    args = p.parse_args()
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.cuda.synchronize()
    t_start = time.time()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    # tune every row in this run: a tuner in memory, not the cache file
    _gemm._tuner[:] = [_gemm.Tuner(None)]
    bw = d2d_bandwidth()
    sel = rows(args.quick)
    if args.rows:
        kinds = set(args.rows.split(","))
        sel = [r for r in sel if r["kind"] in kinds]
    print("# %s, %d SMs, torch %s, %s UTC; D2D copy bandwidth %.2f TB/s "
          "(read + write); median of 7 interleaved rounds"
          % (torch.cuda.get_device_name(0), sms, torch.__version__,
             time.strftime("%Y-%m-%d %H:%M", time.gmtime()), bw / 1e12))
    # every candidate of every row, assembled by ptxas in parallel first
    t0 = time.time()
    cands = []
    for r in sel:
        cands += _gemm.configs(
            r["m"], r["n"], r["k"], sms=sms, dt=r.get("dt", "bfloat16"),
            out=r.get("dt", "bfloat16"), b_kmajor=0 if r.get("kn") else 1,
            bias=1 if r.get("fused") else 0, act=2 if r.get("fused") else 0)
        if r.get("fused"):
            cands += _gemm.configs(r["m"], r["n"], r["k"], sms=sms)
    uniq = {(s, tuple(sorted(c.items()))): (s, c) for s, c in cands}
    _gemm.GEMM.prepare(list(uniq.values()))
    print("# %d configurations compiled and assembled in %.1f s"
          % (len(uniq), time.time() - t0))
    print("| row | M x N x K | ptxtile TFLOP/s | torch TFLOP/s "
          "| ptxtile/torch | weight TB/s (of D2D) | vs plain "
          "| rel err ptxtile / torch | config | cands | tune ms | W copies |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|")
    ok, ratios = True, []
    for r in sel:
        m, n, k = r["m"], r["n"], r["k"]
        try:
            res = bench_row(r, sms)
        except Exception as e:  # noqa: BLE001 - report the row, go on
            print("| %s | %dx%dx%d | FAIL: %s |" % (r["kind"], m, n, k,
                                                   str(e)[:200]))
            ok = False
            continue
        med = res["med"]
        tf = lambda ms: 2.0 * m * n * k / ms / 1e9  # noqa: E731
        ratio = med["torch"] / med["ours"]
        ratios.append(ratio)
        wbw = ""
        if r["kind"] in ("decode", "fused", "B(K,N)") and m <= 128:
            wb = 2.0 * n * k / (med["ours"] * 1e-3)
            wbw = "%.2f (%.0f%%)" % (wb / 1e12, 100.0 * wb / bw)
        vs_plain = ("%.3f" % (med["plain"] / med["ours"])
                    if "plain" in med else "")
        good = res["err"] < 1e-2
        ok = ok and good
        print("| %s | %dx%dx%d | %.1f%s | %.1f | %.3f | %s | %s | %.1e / "
              "%.1e%s | %s | %d | %.0f | %d |" % (
                  r["kind"], m, n, k, tf(med["ours"]),
                  "*" if res["eager"] else "", tf(med["torch"]), ratio, wbw,
                  vs_plain, res["err"], res["terr"],
                  "" if good else " FAIL", res["cfg"], res["cands"],
                  1e3 * res["tune_s"], res["copies"]),
              flush=True)
    if ratios:
        gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print("# geometric mean ptxtile/torch %.3f over %d rows, min %.3f; "
              "%.0f s" % (gm, len(ratios), min(ratios),
                          time.time() - t_start))
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
