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
    """Stands in for libptxtile_rt's ptrt_launch_packed: does what the C
    function does to the argument array (each slot copied to its offset)
    and keeps the bytes of the array and the stream of each call."""

    def __init__(self):
        self.calls, self.streams = [], []

    def ptrt_launch_packed(self, pplan):
        p = pplan._obj  # the structure of a ctypes.byref()
        assert p.kernel == 7 and p.nslots <= _compile.PACKED_SLOTS
        for j in range(p.nslots):
            assert p.slot_size[j] in (4, 8)
            assert p.slot_offset[j] + p.slot_size[j] <= p.nargs * 152
            ctypes.memmove(p.args + p.slot_offset[j],
                           ctypes.addressof(p.slot) + 8 * j,
                           p.slot_size[j])
        self.calls.append(ctypes.string_at(p.args, p.nargs * 152))
        self.streams.append(p.stream)
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
    monkeypatch.setattr(_lib, "launch_packed",
                        lambda: rec.ptrt_launch_packed)
    monkeypatch.setattr(_compile, "_current_stream_fn",
                        lambda: (lambda d: 0x5000 + d))
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
    for n, a, kk in [(1000, 0.5, 3), (1000, -2.0, 0), (1000, 7, -5),
                     (1000, 1e30, 2 ** 31 - 1), (1000, 0, -2 ** 31)]:
        x, y = torch.randn(n), torch.randn(n)
        assert f((x, y, a, kk)) is True
        assert rec.calls[-1] == packed(k, (x, y, a, kk))
    assert rec.streams == [0x5000 - 1] * 5  # raw(device), device -1


def test_packed_layout_is_the_c_one():
    # the ctypes mirror of ptrt_packed_launch against the C header's
    # field order and array sizes (offsets by the C rules of x86-64)
    P = _compile._Packed
    assert (P.kernel.offset, P.args.offset, P.nargs.offset,
            P.nslots.offset, P.slot_offset.offset, P.slot_size.offset,
            P.stream.offset, P.slot.offset) == (0, 8, 16, 20, 24, 152,
                                                280, 288)
    assert ctypes.sizeof(P) == 544
    with open(os.path.join(os.path.dirname(__file__), "..", "..",
                           "include", "ptxtile_rt.h")) as f:
        assert "#define PTRT_PACKED_SLOTS 32\n" in f.read()


def test_packed_launch_without_a_kernel_is_a_bad_call():
    # the real C entry: no kernel -> PT_E_RT_BAD_CALL (5019), nothing run
    p = _compile._Packed()
    assert _lib.launch_packed()(ctypes.pointer(p)) == 5019


def test_a_strided_signature_compares_strides(fast, monkeypatch):
    # a non-contiguous first signature: the generated test is stride()
    k, f, rec = fast
    x, y = torch.zeros(2000)[::2], torch.zeros(1000)
    buf = k._new_buffer()
    k._pack((x, y, 1.0, 2), None, buf, host=True)
    g = _compile._fast_path(k, (x, y, 1.0, 2), buf, 7, FakeRt(), -1)
    assert g((torch.zeros(2000)[::2], y, 1.0, 2)) is True
    assert rec.calls[-1] == packed(k, (torch.zeros(2000)[::2], y, 1.0, 2))
    assert g((torch.zeros(3000)[::3], y, 1.0, 2)) is False
    assert g((torch.zeros(1000), y, 1.0, 2)) is False


def test_call_takes_the_fast_path_and_rechecks_a_new_signature(
        fast, monkeypatch):
    # through Kernel.__call__: the same signature launches from the fast
    # path (the general path is not entered); a changed one goes through
    # the general path, whose full checks run again (here the host
    # checks of ptrt_check_launch: float64 for a float32 parameter)
    k, f, rec = fast
    k._fast = f
    general = []

    def full_path(args, stream):
        general.append(len(args))
        k.check(*args)
    monkeypatch.setattr(k, "_launch", full_path)
    x, y = torch.randn(1000), torch.randn(1000)
    k(x, y, 2.0, 1)
    k(x, y, 3.0, 4)
    assert general == [] and len(rec.calls) == 2
    assert rec.calls[-1] == packed(k, (x, y, 3.0, 4))
    with pytest.raises(ptxtile.LaunchError) as e:
        k(x.double(), y, 2.0, 1)
    assert e.value.code == 5010 and general == [4] and len(rec.calls) == 2
    k(torch.randn(77), torch.randn(77), 2.0, 1)  # a new size n: checked
    assert general == [4, 4] and len(rec.calls) == 2


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
    lambda: (torch.zeros(1000), torch.zeros(1000), 1e39, 2),  # f32 range
    lambda: (torch.zeros(1000), torch.zeros(1000), 1.0, 2.0),  # int: float
    lambda: (torch.zeros(1000), torch.zeros(1000), torch.tensor(1.0), 2),
    lambda: (torch.zeros(1000), torch.zeros(1000, 2)[:, 1], 1.0, 2),
    lambda: (torch.zeros(1000), torch.zeros(1000), 1.0, 2, 3),  # count
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


@pytest.mark.parametrize("t, test", [
    (torch.zeros(8, 4), "not a0.is_contiguous()"),
    (torch.zeros(8, 1), "a0.stride() != st0"),   # a size-1 stride is free
    (torch.zeros(0, 4), "a0.stride() != st0"),   # so is any of a 0 size
    (torch.zeros(8, 4).t(), "a0.stride() != st0"),
    (torch.zeros(()), "a0.stride() != st0"),
])
def test_contiguity_stands_for_strides_only_when_exact(t, test):
    assert _compile._strides_differ(t, 0) == test
