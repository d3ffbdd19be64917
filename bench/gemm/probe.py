"""bench/gemm/probe.py - every swap-AB / sm90 candidate of one GEMM
shape timed, not just the tuner's winner: what bench/README.md's
"GEMM ring-index probe" tables come from (GPU host).

For each shape: the candidates of ptxtile.kernels._gemm.configs() plus,
for M <= 128, extra swap-AB ring depths and splits ([extra] in the
output), each timed as the tuner times them (a CUDA graph of launches
over weight copies rotated past the L2, median of 5 replays) beside
torch.matmul, its output checked against a float32 product (the
relative Frobenius error is printed; > 1e-2 is a failure, exit 1).
Usage: PYTHONPATH=python python3 bench/gemm/probe.py [MxNxK ...]
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import torch  # noqa: E402
from ptxtile.kernels import _gemm as G  # noqa: E402

DEFAULT = ["64x4096x4096", "128x4096x4096", "128x14336x4096", "1024x1024x1024"]
EXTRA = [(wg, split, st) for wg in (1, 2) for split in (1, 2)
         for st in (4, 6, 8, 12)]


def candidates(m, n, k):
    cands = G.configs(m, n, k)
    names = {G.config_name(s, c) for s, c in cands}
    if m <= 128:
        bt = min(128, max(8, -(-m // 8) * 8))
        for wg, split, st in EXTRA:
            c = G.swapab_consts(bt, wg, st, split)
            if G.swapab_smem(c) > G.SMEM_MAX or -(-k // 64) < split:
                continue
            if G.config_name("gemm_swapab.py", c) not in names:
                cands.append(("gemm_swapab.py", c))
    return cands, names


def probe(m, n, k, dev):
    a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
    w = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
    out = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
    ws = G.rotation(w)
    ref = a.float() @ w.float().t()
    cands, names = candidates(m, n, k)
    t0 = time.time()
    G.GEMM.prepare(cands)
    print("%dx%dx%d: %d candidates compiled in %.1f s"
          % (m, n, k, len(cands), time.time() - t0), flush=True)
    it = [0]

    def timed(fn):
        return G.time_graph(fn, iters=max(20, 2 * len(ws)), reps=5)[0]

    def torch_mm():
        it[0] += 1
        torch.matmul(a, ws[it[0] % len(ws)].t(), out=out)
    tms = timed(torch_mm)
    rows, bad = [], 0
    for s, c in cands:
        def go(s=s, c=c):
            it[0] += 1
            G.GEMM.launch(s, c, a, ws[it[0] % len(ws)], out)
        try:
            ms = timed(go)
        except Exception as e:  # noqa: BLE001 - report and go on
            print("  FAIL %s: %s" % (G.config_name(s, c), e))
            bad += 1
            continue
        G.GEMM.launch(s, c, a, w, out)
        torch.cuda.synchronize()
        err = ((out.float() - ref).norm() / ref.norm()).item()
        bad += err > 1e-2
        name = G.config_name(s, c)
        rows.append((ms, name, err, name in names))
    rows.sort()
    print("  torch %.1f us (%.2f TB/s of weights)"
          % (tms * 1e3, n * k * 2 / (tms * 1e-3) / 1e12))
    for ms, name, err, listed in rows:
        print("  %7.1f us  %.3f x torch  %s%s  err %.1e"
              % (ms * 1e3, tms / ms, name, "" if listed else "  [extra]",
                 err))
    return bad


def main():
    dev = torch.device("cuda")
    torch.manual_seed(0)
    bad = 0
    for spec in sys.argv[1:] or DEFAULT:
        m, n, k = (int(x) for x in spec.split("x"))
        bad += probe(m, n, k, dev)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
