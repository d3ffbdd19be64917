"""bench/attention/run.py - attention forward on the H200, one process.

Per configuration of issue 24's suite (B x H x S x D, bf16 unless noted):
torch.nn.functional.scaled_dot_product_attention with each backend this
torch has (flash, cuDNN, efficient; one that is missing or refuses the
inputs is printed as n/a with the reason) and ptxtile.kernels.attention
with each of its variants forced (nN: N keys per block; pp0: the
consumer warpgroups issue freely, pp1: ping-pong), on the same inputs.  Inputs are (batch,
seq, heads, dim) tensors; torch gets their (batch, heads, seq, dim)
transposed views (FlashAttention's native layout: no copy for either).

Timing: CUDA events on torch's stream, interleaved rounds (each round
times `iters` calls of every implementation in turn after a warm-up),
the median round reported.  TFLOP/s = 4 B H Sq Sk D / t, halved for
causal (for varlen the sum over sequences).  Every output is checked
against a float32 reference computed here (chunked matmuls, no TF32):
the max abs error of ours and of each torch backend are printed side by
side; a wrong result (non-finite, or ours above 2 x torch's best error +
0.008) makes the exit status 1.

Usage, from the repository root on the GPU host (after `make`):
  PYTHONPATH=python python3 bench/attention/run.py [--rounds 5] [--iters 5]
      [--only NAME,...]
"""
import argparse
import itertools
import math
import os
import statistics
import sys
import time

try:
    import ptxtile  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "python"))
import torch
import torch.nn.functional as F
import importlib

# the module (ptxtile.kernels.attention, the attribute, is the function)
attn = importlib.import_module("ptxtile.kernels.attention")

dev = "cuda"
# name, batch, heads, kv_heads, seq, dim, causal, dtype
CONFIGS = [
    ("8x16x4096x128", 8, 16, 16, 4096, 128, False, torch.bfloat16),
    ("8x16x4096x128 causal", 8, 16, 16, 4096, 128, True, torch.bfloat16),
    ("4x32x8192x128", 4, 32, 32, 8192, 128, False, torch.bfloat16),
    ("4x32x8192x128 causal", 4, 32, 32, 8192, 128, True, torch.bfloat16),
    ("16x16x2048x64", 16, 16, 16, 2048, 64, False, torch.bfloat16),
    ("4x16x4096x256", 4, 16, 16, 4096, 256, False, torch.bfloat16),
    ("2x32x16384x128 causal", 2, 32, 32, 16384, 128, True, torch.bfloat16),
    ("GQA 8x32/8x4096x128", 8, 32, 8, 4096, 128, False, torch.bfloat16),
    ("varlen 16x[100,4000]x16 d128 causal", 16, 16, 16, None, 128, True,
     torch.bfloat16),
    ("fp16 8x16x4096x128", 8, 16, 16, 4096, 128, False, torch.float16),
]


def backends():
    """SDPA backends of this torch: name -> SDPBackend (or the reason)."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError as e:
        return {}, str(e)
    out = {}
    for name, attr in (("flash", "FLASH_ATTENTION"),
                       ("cudnn", "CUDNN_ATTENTION"),
                       ("efficient", "EFFICIENT_ATTENTION")):
        b = getattr(SDPBackend, attr, None)
        if b is not None:
            out[name] = b
    return out, sdpa_kernel


def reference(q, k, v, causal):
    """float32 attention of (b, s, h, d) tensors, 1024 query rows at a
    time (the full score matrix of the largest case is 68 GB)."""
    b, sq, h, d = q.shape
    rep = h // k.shape[2]
    out = torch.empty(q.shape, dtype=torch.float32, device=dev)
    scale = 1 / math.sqrt(d)
    for bi, hi in itertools.product(range(b), range(h)):
        kf = k[bi, :, hi // rep].float()
        vf = v[bi, :, hi // rep].float()
        for r in range(0, sq, 1024):
            qf = q[bi, r:r + 1024, hi].float()
            s = (qf @ kf.t()) * scale
            if causal:
                rows = torch.arange(r, r + qf.shape[0], device=dev)[:, None]
                cols = torch.arange(kf.shape[0], device=dev)[None, :]
                s.masked_fill_(cols > rows, float("-inf"))
            out[bi, r:r + 1024, hi] = torch.softmax(s, dim=-1) @ vf
    return out


def make_inputs(cfg, seed):
    name, b, h, hk, s, d, causal, dtype = cfg
    g = torch.Generator(device=dev).manual_seed(seed)
    if s is not None:
        q = torch.randn(b, s, h, d, generator=g, device=dev).to(dtype)
        k = torch.randn(b, s, hk, d, generator=g, device=dev).to(dtype)
        v = torch.randn(b, s, hk, d, generator=g, device=dev).to(dtype)
        flop = 4.0 * b * h * s * s * d / (2 if causal else 1)
        return q, k, v, None, flop
    gen = torch.Generator().manual_seed(seed)
    lens = torch.randint(100, 4001, (b,), generator=gen).tolist()
    total = sum(lens)
    q = torch.randn(total, h, d, generator=g, device=dev).to(dtype)
    k = torch.randn(total, hk, d, generator=g, device=dev).to(dtype)
    v = torch.randn(total, hk, d, generator=g, device=dev).to(dtype)
    flop = sum(4.0 * h * n * n * d / (2 if causal else 1) for n in lens)
    return q, k, v, lens, flop


def implementations(cfg, q, k, v, lens, sdpa):
    """name -> (callable returning the output in q's layout) or reason."""
    name, b, h, hk, s, d, causal, dtype = cfg
    table, sdpa_kernel = sdpa
    impls = {}
    if lens is None:
        qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
        gqa = {"enable_gqa": True} if hk != h else {}
        for bn, be in table.items():
            def run(be=be):
                with sdpa_kernel(be):
                    return F.scaled_dot_product_attention(
                        qt, kt, vt, is_causal=causal, **gqa).transpose(1, 2)
            impls["torch " + bn] = run
    else:
        # torch SDPA has no packed form: one call per sequence
        offs = [0] + list(itertools.accumulate(lens))
        for bn, be in table.items():
            def run(be=be):
                o = torch.empty_like(q)
                with sdpa_kernel(be):
                    for i in range(len(lens)):
                        a, z = offs[i], offs[i + 1]
                        o[a:z] = F.scaled_dot_product_attention(
                            q[None, a:z].transpose(1, 2),
                            k[None, a:z].transpose(1, 2),
                            v[None, a:z].transpose(1, 2),
                            is_causal=causal)[0].transpose(0, 1)
                return o
            impls["torch " + bn] = run
    cu = None
    if lens is not None:
        cu = torch.tensor([0] + list(itertools.accumulate(lens)),
                          dtype=torch.int32, device=dev)
        maxlen = max(lens)
    for c in attn._configs(d):
        tag = "ours " + attn._tag(c)

        def ours(c=c):
            if cu is None:
                return attn._forward(q, k, v, causal, None, None, None,
                                     None, "bshd", None, cfg=c)[0]
            return attn._forward(q, k, v, causal, None, cu, cu, maxlen,
                                 "bshd", None, cfg=c)[0]
        impls[tag] = ours

    # the public function: the autotuned choice, through the custom op
    # (tuned on its first call, the correctness run, before the timing)
    def tuned():
        if cu is None:
            return attn.attention(q, k, v, causal=causal)
        return attn.attention(q, k, v, causal=causal, cu_seqlens_q=cu,
                              cu_seqlens_k=cu, max_seqlen_q=maxlen)
    impls["ours autotuned"] = tuned
    return impls


def full_reference(cfg, q, k, v, lens):
    """The float32 reference in q's layout (packed for varlen)."""
    causal = cfg[6]
    if lens is None:
        return reference(q, k, v, causal)
    ref = torch.empty(q.shape, dtype=torch.float32, device=dev)
    a = 0
    for n in lens:
        ref[a:a + n] = reference(q[None, a:a + n], k[None, a:a + n],
                                 v[None, a:a + n], causal)[0]
        a += n
    return ref


def max_error(out, ref):
    e = (out.float() - ref).abs().max().item()
    return e if math.isfinite(e) else float("nan")


def prebuild(configs, workers=8):
    """Every variant the run will launch, compiled and assembled by ptxas
    in parallel threads (the C compiler and ptxas run outside the GIL),
    so the measured loop only loads modules."""
    from concurrent.futures import ThreadPoolExecutor
    todo = set()
    for cfg in configs:
        name, b, h, hk, s, d, causal, dtype = cfg
        dt = str(dtype).replace("torch.", "")
        for c in attn._configs(d):
            todo.add((d, dt, causal, s is None, tuple(sorted(c.items()))))

    def build(key):
        d, dt, causal, varlen, c = key
        attn._kernel(d, dt, causal, varlen, dict(c)).cubin
    with ThreadPoolExecutor(workers) as ex:
        list(ex.map(build, sorted(todo)))
    return len(todo)


def time_rounds(impls, rounds, iters):
    times = {n: [] for n in impls}
    for _ in range(rounds):
        for n, fn in impls.items():
            a = torch.cuda.Event(enable_timing=True)
            z = torch.cuda.Event(enable_timing=True)
            a.record()
            for _ in range(iters):
                fn()
            z.record()
            z.synchronize()
            times[n].append(a.elapsed_time(z) / iters)
    return {n: statistics.median(t) for n, t in times.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    dn = torch.cuda.get_device_name()
    print("device: %s, torch %s" % (dn, torch.__version__))
    sdpa = backends()
    if not sdpa[0]:
        print("torch SDPA backends: none (%s)" % sdpa[1])
    else:
        print("torch SDPA backends in this torch: %s" % ", ".join(sdpa[0]))
    chosen = [c for c in CONFIGS
              if not a.only or c[0] in a.only.split(",")]
    t0 = time.time()
    n = prebuild(chosen)
    print("compiled %d kernel variants in %.1f s" % (n, time.time() - t0))
    bad = 0
    rows = []
    for ci, cfg in enumerate(CONFIGS):
        if a.only and cfg[0] not in a.only.split(","):
            continue
        q, k, v, lens, flop = make_inputs(cfg, ci)
        impls = implementations(cfg, q, k, v, lens, sdpa)
        ref = full_reference(cfg, q, k, v, lens)
        err, live = {}, {}
        for n, fn in impls.items():
            try:
                out = fn()
                torch.cuda.synchronize()
            except Exception as e:  # a backend refusing these inputs
                print("  %-40s %-16s n/a: %s" % (cfg[0], n,
                      str(e).splitlines()[0][:100]))
                continue
            err[n] = max_error(out, ref)
            live[n] = fn
            del out
        t = time_rounds(live, a.rounds, a.iters)
        tflops = {n: flop / (t[n] * 1e-3) / 1e12 for n in t}
        torch_n = [n for n in t if n.startswith("torch")]
        ours_n = [n for n in t if n.startswith("ours")]
        best_t = max(torch_n, key=lambda n: tflops[n]) if torch_n else None
        best_o = max(ours_n, key=lambda n: tflops[n]) if ours_n else None
        terr = min((err[n] for n in torch_n if math.isfinite(err[n])),
                   default=float("inf"))
        for n in ours_n:
            ok = math.isfinite(err[n]) and err[n] <= 2 * terr + 8e-3
            if not ok:
                bad += 1
                print("FAIL %s %s: max error %g (torch best %g)"
                      % (cfg[0], n, err[n], terr))
        for n in t:
            print("  %-40s %-16s %8.3f ms %7.1f TFLOP/s  max err %.3g"
                  % (cfg[0], n, t[n], tflops[n], err[n]))
        ratio = (tflops[best_o] / tflops[best_t]) if best_o and best_t \
            else float("nan")
        auto = tflops.get("ours autotuned", float("nan"))
        rows.append((cfg[0], best_t, tflops.get(best_t, float("nan")),
                     err.get(best_t, float("nan")), best_o,
                     tflops.get(best_o, float("nan")),
                     err.get(best_o, float("nan")), ratio, auto,
                     auto / tflops[best_t] if best_t else float("nan")))
        del q, k, v, ref
        torch.cuda.empty_cache()
    print()
    print("| config | best torch | TFLOP/s | max err | best ours | TFLOP/s "
          "| max err | ratio | ours autotuned | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %.1f | %.3g | %s | %.1f | %.3g | %.3f | %.1f | "
              "%.3f |" % r)
    print("%s: %d wrong result(s)" % ("FAIL" if bad else "PASS", bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
