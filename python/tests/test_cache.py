"""The on-disk cache: miss then hit, what invalidates an entry (source,
target, compiler identity), switching it off, a broken entry, and a
second process that reuses the PTX and the cubin without compiling."""
import os
import subprocess
import sys

import pytest

import ptxtile
from ptxtile import _cache, _compile
from conftest import ROOT, example

SAXPY = example("saxpy_relu.py")


def entries(d):
    out = []
    for root, dirs, files in os.walk(str(d)):
        if "kernel.ptx" in files:
            out.append(root)
    return out


@pytest.fixture
def count_compiles(monkeypatch):
    calls = []
    real = _compile.compile_text

    def counting(*a):
        calls.append(a)
        return real(*a)
    monkeypatch.setattr(_compile, "compile_text", counting)
    return calls


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("PTXTILE_CACHE_DIR", str(tmp_path / "x"))
    assert ptxtile.cache_dir() == str(tmp_path / "x")
    monkeypatch.delenv("PTXTILE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert ptxtile.cache_dir() == str(tmp_path / "xdg" / "ptxtile")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert ptxtile.cache_dir() == str(tmp_path / "home" / ".cache" /
                                      "ptxtile")


def test_miss_then_hit(private_cache, count_compiles):
    a = ptxtile.compile(SAXPY, target="sm_90a")
    assert not a.cache_hit and len(count_compiles) == 1
    assert len(entries(private_cache)) == 1
    b = ptxtile.compile(SAXPY, target="sm_90a")
    assert b.cache_hit and len(count_compiles) == 1
    assert (b.ptx, b.meta) == (a.ptx, a.meta)


def test_source_target_and_compiler_invalidate(private_cache,
                                               count_compiles, monkeypatch):
    with open(SAXPY) as f:
        text = f.read()
    ptxtile.compile(text, target="sm_90a")
    assert ptxtile.compile(text + "\n# edited\n", target="sm_90a").cache_hit \
        is False
    assert ptxtile.compile(text, target="sm_80").cache_hit is False
    assert ptxtile.compile(text, target="sm_90a").cache_hit is True
    # another compiler build (version or library bytes) is another key
    monkeypatch.setattr(_cache, "_identity", ["0.1.0+another-build"])
    assert ptxtile.compile(text, target="sm_90a").cache_hit is False
    assert len(count_compiles) == 4
    assert len(entries(private_cache)) == 4


def test_identity_hashes_the_library():
    ident = _cache.compiler_identity()
    assert ident.startswith(ptxtile.__version__ + "+")
    assert len(ident.split("+")[1]) == 16


def test_cache_can_be_switched_off(private_cache, count_compiles,
                                   monkeypatch):
    ptxtile.compile(SAXPY, target="sm_90a", cache=False)
    ptxtile.compile(SAXPY, target="sm_90a", cache=False)
    assert len(count_compiles) == 2 and not entries(private_cache)
    monkeypatch.setenv("PTXTILE_CACHE", "0")
    k = ptxtile.compile(SAXPY, target="sm_90a")
    assert not k.cache_hit and not entries(private_cache)


def test_broken_entry_is_a_miss_and_is_replaced(private_cache,
                                                count_compiles):
    ptxtile.compile(SAXPY, target="sm_90a")
    (entry,) = entries(private_cache)
    os.remove(os.path.join(entry, "kernel.meta.json"))
    k = ptxtile.compile(SAXPY, target="sm_90a")
    assert not k.cache_hit and len(count_compiles) == 2
    assert os.path.isfile(os.path.join(entry, "kernel.meta.json"))
    assert ptxtile.compile(SAXPY, target="sm_90a").cache_hit


def test_unwritable_cache_is_skipped(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("PTXTILE_CACHE_DIR", str(blocker / "cache"))
    k = ptxtile.compile(SAXPY, target="sm_90a")
    assert not k.cache_hit and ".entry saxpy_relu" in k.ptx


def test_clear_cache(private_cache):
    ptxtile.compile(SAXPY, target="sm_90a")
    ptxtile.clear_cache()
    assert not entries(private_cache)


SECOND = """
import sys
sys.path.insert(0, {python!r})
import ptxtile
from ptxtile import _compile
def refuse(*a):
    raise AssertionError("compiled again")
_compile.compile_text = refuse
k = ptxtile.compile({path!r}, target="sm_90a")
assert k.cache_hit
cubin = k.cubin
print("cubin", None if cubin is None else len(cubin))
"""


def test_second_process_reuses_ptx_and_cubin(private_cache):
    k = ptxtile.compile(SAXPY, target="sm_90a")
    first = k.cubin
    env = dict(os.environ, PTXAS="/nonexistent/ptxas")  # no assembling
    r = subprocess.run([sys.executable, "-c", SECOND.format(
        python=os.path.join(ROOT, "python"), path=SAXPY)], env=env,
        capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    if first is None:
        assert r.stdout.strip() == "cubin None"
    else:
        assert r.stdout.strip() == "cubin %d" % len(first)
