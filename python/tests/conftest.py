"""Shared fixtures of the CPU tests of the ptxtile package: a private
cache folder per test (so tests never see each other's or the user's
cache) and paths into the repository."""
import os
import sys

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # kernel_module.py
# the package of this tree (PYTHONPATH may name it too)
sys.path.insert(0, os.path.join(ROOT, "python"))


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("PTXTILE_CACHE_DIR", str(d))
    monkeypatch.delenv("PTXTILE_CACHE", raising=False)
    monkeypatch.delenv("PTXTILE_TARGET", raising=False)
    return d


def cli():
    """The ptxtile CLI of the build under test."""
    d = os.environ.get("PTXTILE_LIB_DIR")
    if d and os.path.isfile(os.path.join(d, "ptxtile")):
        return os.path.join(d, "ptxtile")
    return os.path.join(ROOT, "build", "ptxtile")


def example(name):
    return os.path.join(ROOT, "examples", name)
