"""Session 7 probe: tile order GM and the paired DB block kernel (FP8),
GM on gemm_sm90 (bf16).  Ratios within this one run."""
import os, sys, time, statistics
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench", "fp8"))
import torch
import run as R
from ptxtile.kernels import fp8
from ptxtile.kernels import _gemm as G

sms = torch.cuda.get_device_properties(0).multi_processor_count
ROUNDS = int(os.environ.get("ROUNDS", "5"))
t0 = time.time()
print("# probe: %s, %d SMs, rounds %d" % (torch.cuda.get_device_name(0), sms, ROUNDS), flush=True)

def fp8_fn(mode, qa, qb, sa, sb, bn, st, db=None, gm=None):
    m, n = qa.shape[0], qb.shape[0]
    c = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
    if mode == "tensor":
        args = (qa, qb, c, sa.reshape(1), sb.reshape(1), sms)
    else:
        sa_k, sb_k = fp8.scale_args("block", sa, sb, m, n, qa.shape[1])
        args = (qa, qb, c, sa_k, sb_k, sms)
    fn, _ = R.prepacked(fp8.kernel(mode, BN=bn, ST=st, DB=db, GM=gm), args)
    torch.cuda.synchronize()
    return fn, c

FP8_SHAPES = [(4096, 7168, 16384), (8192, 8192, 8192), (4096, 4096, 7168),
              (4096, 2112, 7168), (4096, 24576, 1536), (4096, 7168, 2048)]
tq = R.Torch()
print("\n## FP8 block (TFLOP/s; err rel. Frobenius)")
for (m, n, k) in FP8_SHAPES:
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    xa = torch.randn(m, k, generator=g, device="cuda")
    xb = torch.randn(n, k, generator=g, device="cuda")
    flop = 2.0 * m * n * k
    impls, outs = {}, {}
    qa, qb, sa, sb, ref = R.quantize("block", xa, xb)
    t = tq.call("block", qa, qb, sa, sb)
    if t:
        impls["torch-block"], outs["torch-block"] = t
    for name, bn, st, db, gm in (("b128/5", 128, 5, None, None), ("b128/5 GM4", 128, 5, None, 4),
                                 ("b128/5 GM8", 128, 5, None, 8), ("b128/5 GM16", 128, 5, None, 16),
                                 ("b128/5 DB", 128, 5, 1, None), ("b128/5 DB GM8", 128, 5, 1, 8),
                                 ("b64/7 DB GM8", 64, 7, 1, 8)):
        try:
            impls[name], outs[name] = fp8_fn("block", qa, qb, sa, sb, bn, st, db, gm)
        except Exception as e:
            print("FAIL", name, e)
    tqa, tqb, tsa, tsb, tref = R.quantize("tensor", xa, xb)
    t = tq.call("tensor", tqa, tqb, tsa, tsb)
    if t:
        impls["torch-tensor"], outs["torch-tensor"] = t
    for name, gm in (("t256/4", None), ("t256/4 GM8", 8)):
        impls[name], outs[name] = fp8_fn("tensor", tqa, tqb, tsa, tsb, 256, 4, None, gm)
    ms = R.measure(impls, ROUNDS)
    line = []
    for name in impls:
        r = tref if name.startswith("t") and name != "torch-block" else ref
        err = R.rel_err(outs[name], r)
        line.append("%s %.0f (%.2e)" % (name, flop / ms[name] / 1e9, err))
    print("%dx%dx%d: " % (m, n, k) + " | ".join(line), flush=True)
    del xa, xb, qa, qb, tqa, tqb, impls, outs, ref, tref
    torch.cuda.empty_cache()

print("\n## bf16 gemm_sm90 256x256 S4 (TFLOP/s)", flush=True)
for (m, n, k) in ((4096, 4096, 4096), (8192, 8192, 8192), (8192, 14336, 4096), (2048, 2048, 2048)):
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    ref = a.float() @ w.float().t()
    ws = G.rotation(w)
    it = [0]
    impls = {}
    def tmm():
        it[0] += 1
        torch.matmul(a, ws[it[0] % len(ws)].t(), out=out)
    impls["torch"] = tmm
    bns = (256, 128) if m <= 2048 else (256,)
    cfgs = []
    for bn in bns:
        for gm in (1, 4, 8, 16):
            c = dict(G.sm90_consts(bn, 4 if bn == 256 else 6), GM=gm)
            cfgs.append(("sm90 %d GM%d" % (bn, gm), c))
    G.GEMM.prepare([("gemm_sm90.py", c) for _, c in cfgs])
    errs = {}
    for name, c in cfgs:
        G.GEMM.launch("gemm_sm90.py", c, a, w, out)
        torch.cuda.synchronize()
        errs[name] = ((out.float() - ref).norm() / ref.norm()).item()
        def go(c=c):
            it[0] += 1
            G.GEMM.launch("gemm_sm90.py", c, a, ws[it[0] % len(ws)], out)
        impls[name] = go
    times = {n_: [] for n_ in impls}
    for _ in range(ROUNDS):
        for n_, fn in impls.items():
            times[n_].append(G.time_graph(fn, iters=20, reps=3)[0])
    flop = 2.0 * m * n * k
    tt = statistics.median(times["torch"])
    print("%dx%dx%d: torch %.0f | " % (m, n, k, flop / tt / 1e9) + " | ".join(
        "%s %.0f %.3f (%.1e)" % (n_, flop / statistics.median(times[n_]) / 1e9,
                                 tt / statistics.median(times[n_]), errs[n_])
        for n_ in impls if n_ != "torch"), flush=True)
    del a, w, ws, out, ref
    torch.cuda.empty_cache()
print("# %.0f s" % (time.time() - t0))
