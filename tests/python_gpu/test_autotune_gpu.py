"""ptxtile.autotune on the GPU: configs timed with CUDA events, the
winner correct and stored, a fresh process that reloads it from disk with
no compile and no timing, and restore= putting in-place outputs back."""
import os
import subprocess
import sys
import textwrap

import torch

import ptxtile
from conftest import ROOT

SRC = textwrap.dedent('''\
    from ptxtile import tirx as T
    n = T.dynamic("n")
    BLOCK = 256

    @T.function
    def axpy(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32"), a: T.float32):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, BLOCK), block=BLOCK))
        i = T.cuda.block_idx("x") * BLOCK + T.cuda.thread_idx("x")
        if i < n:
            Y[i] = Y[i] + a * X[i]
    ''')
CONFIGS = [{"BLOCK": b} for b in (32, 128, 256, 1024)] + [{"BLOCK": 2048}]


def test_autotune_times_stores_and_reloads(tmp_path, private_cache):
    src = tmp_path / "axpy.py"
    src.write_text(SRC)
    tu = ptxtile.autotune(str(src), configs=CONFIGS, key=["n"],
                          restore=["Y"], warmup=2, rep=10)
    x = torch.randn(1 << 22, device="cuda")
    y = torch.randn(1 << 22, device="cuda")
    y0 = y.clone()
    best = tu.best(x, y, 0.5)
    torch.cuda.synchronize()
    assert torch.equal(y, y0)                    # restore= undid the runs
    # BLOCK=2048 is over the 1024-thread limit: dropped
    assert set(tu.timings) == {0, 1, 2, 3}
    assert all(t > 0 for t in tu.timings.values())
    assert best.constants == CONFIGS[min(tu.timings, key=tu.timings.get)]
    tu(x, y, 0.5)
    torch.cuda.synchronize()
    torch.testing.assert_close(y, y0 + 0.5 * x)
    print("\nautotune axpy n=2^22: " + ", ".join(
        "BLOCK=%d %.2f us" % (CONFIGS[i]["BLOCK"], t * 1e6)
        for i, t in sorted(tu.timings.items())))
    code = textwrap.dedent('''\
        import sys, torch, ptxtile
        from ptxtile import _compile
        compiled = []
        real = _compile.compile_text
        def counting(*a, **kw):
            compiled.append(a[0])
            return real(*a, **kw)
        _compile.compile_text = counting
        def no_timing(run, kernel):
            raise SystemExit("timed in the fresh process")
        tu = ptxtile.autotune(sys.argv[1], configs=%r, key=["n"],
                              timer=no_timing)
        x = torch.randn(1 << 22, device="cuda")
        y = torch.zeros(1 << 22, device="cuda")
        tu(x, y, 2.0)
        torch.cuda.synchronize()
        assert torch.equal(y, 2.0 * x)
        assert compiled == [], compiled          # compile-cache hits only
        print(tu.best(x, y, 2.0).constants)
        ''' % (CONFIGS,))
    env = dict(os.environ, PTXTILE_CACHE_DIR=str(private_cache),
               PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, "-c", code, str(src)], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == repr(best.constants)
