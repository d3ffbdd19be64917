"""ptxtile.autotune on the CPU: an injected timer stands in for the GPU
(numpy arguments pass the launch check, which needs no GPU), so choice,
interleaving, medians, dropping, the disk record and forcing are all
checked here; tests/python_gpu/test_autotune_gpu.py times real launches."""
import json
import logging
import os
import subprocess
import sys
import textwrap

import pytest

import ptxtile
from ptxtile import _autotune, _compile
from conftest import ROOT

np = pytest.importorskip("numpy")

SRC = textwrap.dedent('''\
    from ptxtile import tirx as T
    n = T.dynamic("n")
    BLOCK = 128
    WIDTH = 4

    @T.function
    def scale(X: T.Tensor((n, WIDTH), "float32"), a: T.float32):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, BLOCK), block=BLOCK))
        i = T.cuda.block_idx("x") * BLOCK + T.cuda.thread_idx("x")
        if i < n:
            X[i, 0] = X[i, 0] * a
    ''')

CONFIGS = [{"BLOCK": 64}, {"BLOCK": 128}, {"BLOCK": 256},
           {"BLOCK": "wide"},          # does not compile (E2051)
           {"WIDTH": 8}]               # compiles; (n, 4) arrays fail the check


class FakeTimer(object):
    """Seconds per launch by BLOCK, recording the order of the calls."""

    def __init__(self, times):
        self.times = times            # BLOCK -> list of seconds, cycled
        self.calls = []

    def __call__(self, run, kernel):
        b = kernel.constants.get("BLOCK", 128)
        seq = self.times[b]
        self.calls.append(b)
        return seq[(len(self.calls) - 1) % len(seq)]


def args(n=1000):
    return np.ones((n, 4), np.float32), 2.0


@pytest.fixture
def src(tmp_path):
    p = tmp_path / "scale.py"
    p.write_text(SRC)
    return str(p)


def tuner(src, timer, **kw):
    kw.setdefault("key", ["n"])
    kw.setdefault("warmup", 2)
    kw.setdefault("rep", 5)
    return ptxtile.autotune(src, configs=CONFIGS, target="sm_90a",
                            timer=timer, **kw)


def test_fastest_median_wins_and_bad_configs_are_dropped(src, caplog):
    # BLOCK 64 has one slow outlier: its median (1 us) beats BLOCK 256's
    # steady 2 us though its mean (~20.8 us) does not
    t = FakeTimer({64: [1e-6, 1e-6, 100e-6, 1e-6, 1e-6, 1e-6, 1e-6],
                   128: [3e-6], 256: [2e-6]})
    tu = tuner(src, t)
    caplog.set_level(logging.DEBUG, logger="ptxtile.autotune")
    k = tu.best(*args())
    assert k.constants == {"BLOCK": 64}
    assert tu.best_config(*args()).constants == {"BLOCK": 64}
    # 3 valid configs x (2 warmup + 5 rounds); the dropped ones never run
    assert sorted(set(t.calls)) == [64, 128, 256]
    assert len(t.calls) == 3 * 7
    assert set(tu.timings) == {0, 1, 2}
    assert tu.timings[0] == 1e-6 and tu.timings[2] == 2e-6
    log = caplog.text
    assert "config 3 Config({'BLOCK': 'wide'}) dropped: does not compile" \
        in log and "E2051" in log
    assert "config 4 Config({'WIDTH': 8}) dropped: launch check" in log
    assert "E5012" in log or "WIDTH" in log or "dim 1" in log


def test_rounds_are_interleaved_in_a_rotating_order(src):
    t = FakeTimer({64: [1e-6], 128: [2e-6], 256: [3e-6]})
    tuner(src, t, rep=3).best(*args())
    timed = t.calls[3 * 2:]   # after the warmup launches
    assert timed == [64, 128, 256, 128, 256, 64, 256, 64, 128]


def test_one_winner_per_key_and_the_disk_record(src, private_cache):
    t = FakeTimer({64: [3e-6], 128: [1e-6], 256: [2e-6]})
    tu = tuner(src, t)
    assert tu.best(*args(1000)).constants == {"BLOCK": 128}
    n_calls = len(t.calls)
    assert tu.best(*args(1000)).constants == {"BLOCK": 128}
    assert len(t.calls) == n_calls       # same key: no second tuning
    tu.best(*args(2000))
    assert len(t.calls) == 2 * n_calls   # a new n: tuned again
    files = [os.path.join(d, f) for d, _, fs in
             os.walk(os.path.join(str(private_cache), "autotune"))
             for f in fs]
    assert len(files) == 2
    doc = json.load(open(files[0]))
    assert doc["config"] == 1 and doc["constants"] == {"BLOCK": 128}
    assert doc["device"] == "no-gpu"


def test_a_new_tuner_reads_the_disk_and_compiles_only_the_winner(
        src, monkeypatch):
    t = FakeTimer({64: [3e-6], 128: [2e-6], 256: [1e-6]})
    tuner(src, t).best(*args())
    compiled = []
    real = _compile.compile

    def counting(*a, **kw):
        compiled.append(kw.get("constants"))
        return real(*a, **kw)
    monkeypatch.setattr(_compile, "compile", counting)

    def no_timing(run, kernel):
        raise AssertionError("timed although the choice is on disk")
    k = tuner(src, no_timing).best(*args())
    assert k.constants == {"BLOCK": 256}
    assert compiled == [{"BLOCK": 64}, {"BLOCK": 256}]  # key params, winner
    assert k.cache_hit                                  # no compiler run


def test_a_fresh_process_tunes_nothing(src, private_cache):
    t = FakeTimer({64: [3e-6], 128: [2e-6], 256: [1e-6]})
    tuner(src, t).best(*args())
    code = textwrap.dedent('''\
        import sys, numpy as np, ptxtile
        def no_timing(run, kernel):
            raise SystemExit("timed in the fresh process")
        tu = ptxtile.autotune(sys.argv[1], configs=%r, key=["n"],
                              target="sm_90a", timer=no_timing, warmup=2,
                              rep=5)
        k = tu.best(np.ones((1000, 4), np.float32), 2.0)
        assert k.constants == {"BLOCK": 256}, k.constants
        assert k.cache_hit
        print("ok")
        ''' % (CONFIGS,))
    env = dict(os.environ, PTXTILE_CACHE_DIR=str(private_cache),
               PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, "-c", code, src], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_the_source_and_the_configs_are_part_of_the_record(src, tmp_path):
    t = FakeTimer({64: [3e-6], 128: [2e-6], 256: [1e-6]})
    tuner(src, t).best(*args())
    other = tmp_path / "other.py"
    other.write_text(SRC.replace("X[i, 0] * a", "X[i, 0] * a + a"))
    t2 = FakeTimer({64: [1e-6], 128: [2e-6], 256: [3e-6]})
    assert tuner(str(other), t2).best(*args()).constants == {"BLOCK": 64}
    assert t2.calls
    t3 = FakeTimer({64: [1e-6], 128: [2e-6]})
    tu = ptxtile.autotune(src, configs=CONFIGS[:2], key=["n"],
                          target="sm_90a", timer=t3, warmup=0, rep=1)
    assert tu.best(*args()).constants == {"BLOCK": 64} and t3.calls


def test_key_by_parameter_and_by_callable(src):
    t = FakeTimer({64: [3e-6], 128: [2e-6], 256: [1e-6]})
    tu = tuner(src, t, key=["X", "a"])
    tu.best(*args())
    assert list(tu._chosen) == [(((1000, 4), "float32"), 2.0)]
    tu = tuner(src, FakeTimer({64: [1e-6], 128: [2e-6], 256: [3e-6]}),
               key=lambda x, a: x.shape[0] // 512)
    tu.best(*args(1000))
    tu.best(*args(1023))                 # the same bucket
    assert list(tu._chosen) == [(1,)]
    with pytest.raises(ValueError, match="neither a parameter"):
        tuner(src, t, key=["M"]).best(*args())


def test_force_by_argument_and_environment(src, monkeypatch):
    def no_timing(run, kernel):
        raise AssertionError("timed a forced config")
    assert tuner(src, no_timing, force=2).best(*args()).constants == \
        {"BLOCK": 256}
    assert tuner(src, no_timing, force={"BLOCK": 32}).best(
        *args()).constants == {"BLOCK": 32}        # not among the configs
    monkeypatch.setenv("PTXTILE_AUTOTUNE_CONFIG", "1")
    assert tuner(src, no_timing).best(*args()).constants == {"BLOCK": 128}
    monkeypatch.setenv("PTXTILE_AUTOTUNE_CONFIG", '{"BLOCK": 64}')
    assert tuner(src, no_timing).best(*args()).constants == {"BLOCK": 64}
    monkeypatch.setenv("PTXTILE_AUTOTUNE_CONFIG", "9")
    with pytest.raises(ValueError, match="9"):
        tuner(src, no_timing).best(*args())


def test_without_a_gpu_the_first_valid_config_is_used(src, private_cache):
    tu = ptxtile.autotune(src, configs=[{"BLOCK": "wide"}, {"BLOCK": 64},
                                        {"BLOCK": 128}], key=["n"],
                          target="sm_90a")
    with pytest.warns(RuntimeWarning, match="no GPU.*config 1"):
        k = tu.best(*args())
    assert k.constants == {"BLOCK": 64}
    assert not os.path.exists(os.path.join(str(private_cache), "autotune"))


def test_timings_printed_on_request_and_progress(src, monkeypatch, capsys):
    monkeypatch.setenv("PTXTILE_AUTOTUNE_PRINT", "1")
    monkeypatch.setattr(_autotune, "_PROGRESS_AFTER_S", -1.0)
    t = FakeTimer({64: [3e-6], 128: [2e-6], 256: [1e-6]})
    tuner(src, t).best(*args())
    err = capsys.readouterr().err
    assert "config 2 Config({'BLOCK': 256}) wins" in err
    assert "config 0 Config({'BLOCK': 64}): median 3.000 us" in err
    assert "round 5/5 of 3 configs" in err


def test_prune_and_no_valid_config(src):
    seen = []

    def prune(configs, a):
        seen.append(len(configs))
        return [c for c in configs if c.constants.get("BLOCK") != 64]
    t = FakeTimer({64: [1e-6], 128: [2e-6], 256: [3e-6]})
    assert tuner(src, t, prune=prune).best(*args()).constants == \
        {"BLOCK": 128}
    assert seen == [5] and 64 not in t.calls
    tu = ptxtile.autotune(src, configs=[{"WIDTH": 8}], key=["n"],
                          target="sm_90a", timer=t)
    with pytest.raises(ptxtile.LaunchError, match="no config is valid"):
        tu.best(*args())


def test_restore_puts_in_place_outputs_back(src):
    x, a = args(8)

    def launch(kernel, x, a):
        x *= a                           # what the kernel would do

    def timer(run, kernel):
        run()
        return 1e-6 * kernel.constants["BLOCK"]
    tu = ptxtile.autotune(src, configs=CONFIGS[:3], key=["n"],
                          target="sm_90a", timer=timer, launch=launch,
                          restore=["X"], warmup=1, rep=2)
    assert tu.best(x, a).constants == {"BLOCK": 64}
    assert np.all(x == 1)                # 9 runs undone
    tu(x, a)                             # the launch itself is not undone
    assert np.all(x == 2)


def test_decorator_form_and_config_objects():
    import kernel_module
    tu = ptxtile.autotune(configs=[ptxtile.Config({"ROWS": 128})],
                          target="sm_90a")(kernel_module.scale2)
    assert isinstance(tu, ptxtile.Autotuner)
    with pytest.raises(TypeError, match="dicts of constants"):
        ptxtile.autotune(SRC, configs=[3])
    with pytest.raises(ValueError, match="at least one"):
        ptxtile.autotune(SRC, configs=[])
