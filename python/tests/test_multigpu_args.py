"""Multi-GPU launch arguments without a GPU: tensors on several devices,
raw device addresses (ptxtile.DevicePointer), the launch device
(kernel(..., device=)), and the error class of the runtime's peer
refusals.  The launch itself is a recording stand-in for ptrt_launch;
the runtime's pointer classification is tested in C against a fake
driver (tests/unit/test_rt_driver.c, rt_peer_*)."""
import ctypes
import threading

import pytest

import ptxtile
from ptxtile import _args, _compile, _errors, _lib, _runtime
from test_launch_args import CAI, DLPack, launch_error


@pytest.fixture
def add_one():
    import kernel_module as km
    return ptxtile.compile(km.add_one, target="sm_90a")


def tensor_slot(buf, i):
    """(kind, dtype, ptr, ndim, shape, strides) of packed argument i."""
    v = _args._TENSOR.unpack_from(buf, i * _args.ARG_SIZE)
    n = v[3]
    return v[0], v[1], v[2], n, v[4:4 + n], v[12:12 + n]


def test_device_pointer_packs_as_a_tensor(add_one):
    x = ptxtile.DevicePointer(0x7e0000001000, (8,), "float32", device=1)
    y = ptxtile.DevicePointer(0x7f0000002000, [8], "torch.float32")
    add_one.check(x, y, 1)
    buf = add_one._new_buffer()
    dev, _, _ = add_one._pack((x, y, 1), None, buf)
    assert dev == 1  # the first tensor's declared device
    kind, dt, ptr, n, shape, strides = tensor_slot(buf, 0)
    assert (kind, ptr, n, shape, strides) == (0, 0x7e0000001000, 1, (8,),
                                              (4,))
    assert dt == _args.dtype_enum("float32")
    # strides are given in elements, packed in bytes
    z = ptxtile.DevicePointer(0x7f0000003000, (4, 6), "bfloat16",
                              strides=(8, 1))
    v = _args.tensor_view(z, 0, add_one._user[0])
    assert v.strides == (16, 2) and v.shape == (4, 6) and v.device is None


def test_device_pointer_is_checked(add_one):
    y = CAI((8,))
    e = launch_error(add_one.check, ptxtile.DevicePointer(
        0x7f0000001000, (8,), "float64"), y, 1)
    assert e.code == 5010 and 'argument 1 ("X")' in str(e)
    e = launch_error(add_one.check, ptxtile.DevicePointer(
        0x7f0000001000, (8,), "float4_e2m1fn"), y, 1)
    assert e.code == 5010 and "whole bytes" in str(e)
    e = launch_error(add_one.check, ptxtile.DevicePointer(
        0x7f0000001000, (9,), "float32"), y, 1)
    assert e.code == 5013
    e = launch_error(add_one.check, ptxtile.DevicePointer(0, (8,),
                                                          "float32"), y, 1)
    assert e.code == 5011
    with pytest.raises(ValueError, match="64-bit"):
        ptxtile.DevicePointer(-1, (8,), "float32")
    with pytest.raises(ValueError, match="2 strides for 1 dims"):
        ptxtile.DevicePointer(16, (8,), "float32", strides=(1, 1))
    with pytest.raises(ValueError, match="CUDA ordinal"):
        ptxtile.DevicePointer(16, (8,), "float32", device="cpu")


class Dev(object):
    """A torch.device stand-in."""

    def __init__(self, type, index):
        self.type, self.index = type, index

    def __str__(self):
        return "%s:%s" % (self.type, self.index)


def test_device_ordinals():
    assert _args.device_ordinal(3) == 3
    assert _args.device_ordinal("cuda:2") == 2
    assert _args.device_ordinal(Dev("cuda", 5)) == 5
    for bad in (-1, True, "cuda", "cpu:0", Dev("cpu", 0), Dev("cuda", None),
                1.0):
        with pytest.raises(ValueError):
            _args.device_ordinal(bad)


class FakeRt(object):
    def __init__(self, device):
        self.device = device
        self.lock = threading.Lock()

    def error(self, what=None):
        return _errors.launch_error("refused", 5030)


@pytest.fixture
def recorded(monkeypatch, add_one):
    """add_one launched through stand-ins: the runtime of each device
    and ptrt_launch record (kernel handle, first pointer) per launch."""
    seen = []
    monkeypatch.setattr(_runtime, "get", lambda d: FakeRt(d))
    monkeypatch.setattr(_compile, "_launch", lambda k, buf, n, s: seen.append(
        (k, _args._TENSOR.unpack_from(ctypes.string_at(buf, 152))[2])) or 0)
    add_one._handles = {0: 100, 1: 101, 2: 102}
    return add_one, seen


def test_launch_device_is_the_first_tensors_or_device_kw(recorded):
    k, seen = recorded
    x1 = DLPack((8,), device=1, ptr=0x7e0000001000)
    y0 = DLPack((8,), device=0, ptr=0x7f0000002000)
    k(x1, y0, 1)                      # tensors on two devices: device 1
    k(x1, y0, 1, device=0)            # the caller's choice
    k(x1, y0, 1, device="cuda:2")
    k(x1, y0, 1, device=Dev("cuda", 0))
    k(ptxtile.DevicePointer(0x7d0000000000, (8,), "float32", device=2),
      y0, 1)
    assert seen == [(101, 0x7e0000001000), (100, 0x7e0000001000),
                    (102, 0x7e0000001000), (100, 0x7e0000001000),
                    (102, 0x7d0000000000)]
    with pytest.raises(TypeError, match="device=: .*CUDA ordinal"):
        k(x1, y0, 1, device="cpu")
    with pytest.raises(TypeError, match="late"):
        k(x1, y0, 1, late=True)


def test_a_refused_launch_is_a_peer_access_error(recorded, monkeypatch):
    k, seen = recorded
    monkeypatch.setattr(_compile, "_launch", lambda *a: 5030)
    with pytest.raises(ptxtile.PeerAccessError) as e:
        k(DLPack((8,), device=0), DLPack((8,), device=1), 1)
    assert e.value.code == 5030 and e.value.code_name == "E5030"
    assert isinstance(e.value, ptxtile.LaunchError)


def test_peer_codes_map_to_peer_access_error():
    for name in _errors.PEER_CODES:
        n = _lib.code(name)
        assert 5030 <= n <= 5039
        assert type(_errors.launch_error("m", n)) is ptxtile.PeerAccessError
    assert type(_errors.launch_error("m", _lib.code("RT_ARG_DTYPE"))) is \
        ptxtile.LaunchError
    assert type(_errors.launch_error("m", 0)) is ptxtile.LaunchError


def test_reach_pointer_is_bound():
    # the C function through its prototype: no context is a bad call
    rt = _lib.runtime()
    assert rt.ptrt_reach_pointer(None, 0x1000, b"x") == \
        _lib.code("RT_BAD_CALL")
    rt.ptrt_forget_pointers(None)  # a no-op, not a crash
