"""The benchmark scripts that launch ptxtile kernels from Python
(bench/gemm/bench.py, bench/gemm/sizes.py) on a CPU machine: they import
without torch, parse their command line, and sizes.py compiles the examples
through ptxtile.compile (constants= for the sizes) to kernels of the
asked sizes.  (Running them needs the GPU host: bench/README.md.)"""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

SCRIPTS = {"bench/gemm/bench.py": ["tile_script", "twin_cubin", "iters"],
           "bench/gemm/sizes.py": ["build_dir", "twin_cubin",
                                   "twin_direct_cubin", "iters"]}


def run(args, **kw):
    return subprocess.run([sys.executable] + args, cwd=ROOT, text=True,
                          capture_output=True, timeout=120, **kw)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_help_without_gpu(script):
    r = run([script, "--help"])
    assert r.returncode == 0, r.stderr
    usage = r.stdout.splitlines()[0]
    assert usage.startswith("usage: " + os.path.basename(script))
    for arg in SCRIPTS[script]:
        assert arg in usage


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_bad_command_line_is_rejected(script):
    # the positional arguments before iters: "a", "b" (and "c")
    files = ["a", "b", "c"][:len(SCRIPTS[script]) - 1]
    for args in ([], files + ["not-a-number"], files + ["1", "extra"]):
        r = run([script] + args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert "usage:" in r.stderr


def test_sizes_compiles_each_size(tmp_path):
    """compile_example compiles gemm_bf16.py with M, N, K as constants=
     (the kernel's tensor shapes and grid follow the asked size);
    gemm_wgmma.py is compiled as it is: symbolic sizes, a grid of
    clusters from the SM count."""
    code = r'''
import json, sys
sys.path.insert(0, "bench/gemm")
import sizes
out = {}
for src, tag, size in (("examples/gemm_wgmma.py", "w", (None,) * 3),
                       ("examples/gemm_bf16.py", "m", (2048, 1024, 512))):
    k = sizes.compile_example(sys.argv[1], src, *size, tag=tag)
    out[tag] = [k.name, k.params, k.launch_config["grid"]]
print(json.dumps(out))
'''
    (tmp_path / "bench").mkdir()
    r = run(["-c", code, str(tmp_path)])
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    kname, params, grid = got["m"]
    assert kname == "gemm_bf16"
    shapes = {p[0]: p[3] for p in params if p[1] == "tensor"}
    assert shapes == {"A": [2048, 512], "B": [1024, 512],
                      "C": [2048, 1024]}, params
    # the script as it is, its constants on a first line
    text = (tmp_path / "bench" / "m_2048_1024_512.py").read_text()
    first, rest = text.split("\n", 1)
    assert first == ("# ptxtile.compile(constants={'M': 2048, 'N': 1024, "
                     "'K': 512})")
    with open(os.path.join(ROOT, "examples", "gemm_bf16.py")) as f:
        assert rest == f.read()
    assert (tmp_path / "bench" / "m_2048_1024_512.ptx") \
        .read_text().lstrip().startswith("//")
    # mma.sync: one 128 x 128 tile of C per CTA (grid x over N)
    assert grid[:2] == [1024 // 128, 2048 // 128]
    kname, params, grid = got["w"]
    assert kname == "gemm_wgmma"
    shapes = {p[0]: p[3] for p in params if p[1] == "tensor"}
    assert shapes == {"A": ["M", "K"], "B": ["N", "K"],
                      "C": ["M", "N"]}, params
    assert [p[0] for p in params if p[1] == "scalar"] == ["sms"]
    # 2 x min(max(sms // 2, 1), pairs): whole clusters of 2 CTAs
    assert grid[0]["op"] == "mul" and grid[0]["args"][0] == 2
    assert grid[0]["args"][1]["op"] == "min"
    assert (tmp_path / "bench" / "w_0_0_0.ptx").read_text().lstrip() \
        .startswith("//")


def test_mgpu_run_without_torch_or_gpus():
    # bench/mgpu/run.py: --help and a bad command line need no torch;
    # without torch (or with fewer than 2 GPUs) it says so and exits 0
    r = run(["bench/mgpu/run.py", "--help"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: run.py")
    for opt in ("--gpus", "--iters", "--parts", "--max-bytes"):
        assert opt in r.stdout
    for bad in (["--iters", "0"], ["--parts", "allreduce,nope"],
                ["--gpus", "x"]):
        r = run(["bench/mgpu/run.py"] + bad)
        assert r.returncode == 2 and "usage:" in r.stderr, bad
    r = run(["-c", "import runpy, sys; sys.modules['torch'] = None\n"
             "sys.argv = ['run.py']\n"
             "runpy.run_path('bench/mgpu/run.py', run_name='__main__')"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("SKIP mgpu: torch is not installed")


def test_mgpu_run_sets_no_multicast_before_torch():
    code = ("import os, sys\n"
            "sys.path.insert(0, 'bench/mgpu')\n"
            "import run\n"
            "assert 'torch' not in sys.modules\n"
            "for k, v in (('NCCL_NVLS_ENABLE', '0'), "
            "('TORCH_SYMM_MEM_DISABLE_MULTICAST', '1'), "
            "('NVSHMEM_DISABLE_NVLS', '1')):\n"
            "    assert os.environ[k] == v, k\n"
            "a = run.parse(['--gpus', '4', '--parts', 'gemm'])\n"
            "assert a.gpus == 4 and a.parts == 'gemm'\n")
    r = run(["-c", code])
    assert r.returncode == 0, r.stderr
    with open(os.path.join(ROOT, "bench", "mgpu", "run.py")) as f:
        assert "cuMulticast" not in f.read()
