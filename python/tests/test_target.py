"""Which target compile() uses when given none."""
import pytest

import ptxtile
from ptxtile import _target
from conftest import example


@pytest.mark.parametrize("cap,target", [
    ((9, 0), "sm_90a"), ((10, 0), "sm_100a"), ((10, 3), "sm_103a"),
    ((8, 0), "sm_80"), ((8, 6), "sm_80"), ((8, 9), "sm_80"),
    ((12, 0), "sm_90"), ((11, 0), "sm_90")])
def test_target_for_capability(cap, target):
    assert ptxtile.target_for_capability(*cap) == target


def test_old_devices_have_no_target():
    with pytest.raises(ValueError, match="below sm_80"):
        ptxtile.target_for_capability(7, 5)


def test_no_gpu_gives_the_compilers_default(monkeypatch):
    monkeypatch.setattr(_target, "device_capability", lambda d=None: None)
    assert ptxtile.default_target() == "sm_90a"
    k = ptxtile.compile(example("saxpy_relu.py"))
    assert k.target == "sm_90a" and ".target sm_90a" in k.ptx


def test_the_device_decides(monkeypatch):
    monkeypatch.setattr(_target, "device_capability", lambda d=None: (10, 0))
    k = ptxtile.compile(example("saxpy_relu.py"))
    assert k.target == "sm_100a" and ".target sm_100a" in k.ptx
    monkeypatch.setattr(_target, "device_capability", lambda d=None: (8, 6))
    assert ".target sm_80" in ptxtile.compile(example("saxpy_relu.py")).ptx


def test_environment_overrides(monkeypatch):
    monkeypatch.setattr(_target, "device_capability", lambda d=None: (9, 0))
    monkeypatch.setenv("PTXTILE_TARGET", "sm_100a")
    assert ptxtile.default_target() == "sm_100a"


def test_explicit_target_wins(monkeypatch):
    monkeypatch.setattr(_target, "device_capability", lambda d=None: (10, 0))
    assert ptxtile.compile(example("saxpy_relu.py"),
                           target="sm_80").target == "sm_80"


def test_real_probe_without_a_gpu_is_none():
    from ptxtile import _runtime
    try:
        _runtime.get(0)
    except ptxtile.LaunchError:
        assert _target.device_capability() is None
    else:
        pytest.skip("a GPU is present")
