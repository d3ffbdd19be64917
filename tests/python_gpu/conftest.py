"""GPU tests of the Python package (pytest, torch, a CUDA device).  Run
by tests/python_gpu/run.sh from `make test-gpu` (tests/gpu/run.sh); the
whole folder is skipped without torch or a CUDA device.  References are
computed with torch (or from the documented hardware mapping) on the
inputs, never from ptxtile's output."""
import os

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))

try:
    import torch
    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    torch, HAVE_GPU = None, False
if not HAVE_GPU:  # run.sh says SKIP before this; plain pytest collects none
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    # one cache for the session: the leak and bench tests reuse kernels
    d = tmp_path_factory.getbasetemp() / "ptxtile-cache"
    monkeypatch.setenv("PTXTILE_CACHE_DIR", str(d))
    return d


def example(name):
    return os.path.join(ROOT, "examples", name)


def capability():
    return torch.cuda.get_device_capability()
