"""The launch fast path (Kernel._fast: the argument buffer of the last
signature, only pointers and scalars rewritten) must pack exactly what
the general path packs, and step aside for any other signature.  Runs
with CPU tensors and a recording stand-in for ptrt_launch (torch
needed; no GPU): the GPU side is bench/python_launch.py and
tests/python_gpu."""
import ctypes
import os
import subprocess

import pytest

import ptxtile
from ptxtile import _compile, _lib

if subprocess.run([os.sys.executable, "-c", "import torch"],
                  capture_output=True).returncode != 0:
    pytest.skip("torch is not installed", allow_module_level=True)
import torch  # noqa: E402

SRC = '''
from ptxtile import tirx as T
n = T.dynamic("n")

@T.function
def axpy(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32"), a: T.float32, k: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 256), block=256))
    i = T.cuda.block_idx("x") * 256 + T.cuda.thread_idx("x")
    if i < n:
        Y[i] = Y[i] + a * X[i] + T.cast(k, "float32")
'''


class Recorder(object):
    """Stands in for libptxtile_rt's ptrt_launch: keeps the bytes of each
    argument array it is given."""

    def __init__(self):
        self.calls = []

    def ptrt_launch(self, handle, addr, n, stream):
        self.calls.append(ctypes.string_at(addr, n * 152))
        return 0


class FakeRt(object):
    import threading
    lock = threading.Lock()

    def error(self):
        return ptxtile.LaunchError("fake")


@pytest.fixture
def fast(monkeypatch):
    k = ptxtile.compile(SRC, target="sm_90a")
    packed(k, (torch.zeros(4), torch.zeros(4), 1.0, 2))  # dtype numbers
    rec = Recorder()
    monkeypatch.setattr(_lib, "runtime", lambda: rec)
    monkeypatch.setattr(_compile, "_current_stream_fn",
                        lambda: (lambda d: 0))
    x, y = torch.zeros(1000), torch.zeros(1000)
    buf = k._new_buffer()
    k._pack((x, y, 1.0, 2), None, buf, host=True)
    f = _compile._fast_path(k, (x, y, 1.0, 2), buf, 7, FakeRt(), -1)
    return k, f, rec


def packed(k, args):
    buf = k._new_buffer()
    k._pack(args, None, buf, host=True)
    return buf.raw


def test_same_bytes_as_the_general_path(fast):
    k, f, rec = fast
    for n, a, kk in [(1000, 0.5, 3), (1000, -2.0, 0), (1000, 7, -5)]:
        x, y = torch.randn(n), torch.randn(n)
        assert f((x, y, a, kk)) is True
        assert rec.calls[-1] == packed(k, (x, y, a, kk))


@pytest.mark.parametrize("args", [
    lambda: (torch.zeros(999), torch.zeros(999), 1.0, 2),     # shape
    lambda: (torch.zeros(1000, dtype=torch.float64), torch.zeros(1000),
             1.0, 2),                                         # dtype
    lambda: (torch.zeros(2000)[::2], torch.zeros(1000), 1.0, 2),  # stride
    lambda: (torch.zeros(1000), torch.zeros(1000), "1.0", 2),  # scalar kind
    lambda: (torch.zeros(1000), torch.zeros(1000), 1.0, 2 ** 31),  # range
    lambda: (torch.zeros(1000), torch.zeros(1000), 1.0, True),  # a bool
    lambda: (torch.zeros(1000), torch.zeros(1000), 1.0),      # count
    lambda: (torch.zeros(1000), [0.0] * 1000, 1.0, 2),        # not a tensor
])
def test_other_signatures_take_the_general_path(fast, args):
    k, f, rec = fast
    assert f(args()) is False
    assert rec.calls == []


def test_kernel_call_uses_it_after_a_general_launch(monkeypatch):
    # Kernel.__call__ tries _fast first and falls back to _launch
    k = ptxtile.compile(SRC, target="sm_90a")
    seen = []
    k._fast = lambda args: seen.append(("fast", len(args))) or len(args) == 4
    monkeypatch.setattr(k, "_launch", lambda args, stream: seen.append(
        ("general", stream)))
    k(1, 2, 3, 4)
    k(1, 2, 3)
    k(1, 2, 3, 4, stream=5)
    assert seen == [("fast", 4), ("fast", 3), ("general", None),
                    ("general", 5)]
