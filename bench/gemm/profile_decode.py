"""bench/gemm/profile_decode.py - one decode-shaped launch of ptxtile's
GEMM (the tuned configuration) and one of torch.matmul, for ncu:
  ncu --clock-control none -k regex:'gemm|nvjet|sm90' -c 4 \\
      python3 bench/gemm/profile_decode.py M N K
Each profiled launch reads a weight copy not read before (six copies of
N x K, past the L2 for 4096 x 4096).  Run it once without ncu first:
the tuner's choice is kept in the cache (gemm_tune.json), so the
profiled run launches only the chosen configuration."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
from ptxtile.kernels import _gemm  # noqa: E402


def main():
    import torch
    m, n, k = (int(x) for x in (sys.argv[1:4] or (64, 4096, 4096)))
    a = torch.randn(m, k, device="cuda").bfloat16()
    ws = [torch.randn(n, k, device="cuda").bfloat16() for _ in range(6)]
    cfg = _gemm.choose(m, n, k, ws[0], a, sms=132, dt="bfloat16",
                       out="bfloat16", b_kmajor=1, bias=0, act=0, resid=0)
    print("# %dx%dx%d config %s" % (m, n, k, _gemm.config_name(*cfg)),
          flush=True)
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    for i in (1, 2):
        _gemm.matmul(a, ws[i].t(), out=out, config=cfg)
    for i in (3, 4):
        torch.matmul(a, ws[i].t())
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
