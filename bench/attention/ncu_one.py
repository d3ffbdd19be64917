"""bench/attention/ncu_one.py - one launch of one attention variant, for
ncu (the GPU batch's profile of the d128 row that is under cuDNN):

  ncu --clock-control none -k regex:attention_fwd -c 1 --section ... \\
      python3 bench/attention/ncu_one.py [B H S D BLOCK_N PINGPONG CAUSAL [STAGES]]

Two launches (the first one compiles and warms up); ncu's -c 1 with
--launch-skip 1 profiles the second.  (Not named profile.py: run.py's
folder is first on sys.path, and that name shadowed the standard
library's profile module, which torch imports through cProfile.)"""
import importlib
import sys

import torch

# the module (ptxtile.kernels.attention is also the exported function)
attn = importlib.import_module("ptxtile.kernels.attention")


def main():
    a = [int(x) for x in sys.argv[1:]] or [8, 16, 4096, 128, 128, 1, 0]
    b, h, s, d, bn, pp, causal = a[:7]
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn((b, s, h, d), device="cuda", generator=g)
               .to(torch.bfloat16) for _ in range(3))
    cfg = {"block_n": bn, "pingpong": bool(pp)}
    if len(a) > 7:
        cfg["stages"] = a[7]
    for _ in range(2):
        attn._forward(q, k, v, bool(causal), None, None, None, None,
                      "bshd", None, cfg=cfg)
    torch.cuda.synchronize()
    print("profiled %s causal=%d %s" % (tuple(a[:4]), causal, attn._tag(cfg)))


if __name__ == "__main__":
    main()
