"""Choosing the target when compile() is given none."""
from __future__ import annotations

import os
from typing import Optional

# compute capability -> the target whose PTX runs there with every
# instruction the architecture has: the arch-specific 'a' targets for the
# architectures ptxtile knows, sm_80 for the Ampere/Ada family.
_BY_CAPABILITY = {(9, 0): "sm_90a", (10, 0): "sm_100a", (10, 3): "sm_103a"}


def target_for_capability(major: int, minor: int) -> str:
    """The target for a device of compute capability major.minor: 9.0 ->
    sm_90a, 10.0 -> sm_100a, 10.3 -> sm_103a, 8.x -> sm_80; any other
    (a later family, whose 'a' features differ) -> sm_90, plain PTX the
    driver compiles for it.  Below 8.0 ptxtile has no target: ValueError."""
    t = _BY_CAPABILITY.get((major, minor))
    if t:
        return t
    if major == 8:
        return "sm_80"
    if major < 8:
        raise ValueError("compute capability %d.%d is below sm_80, the "
                         "oldest ptxtile target" % (major, minor))
    return "sm_90"


def device_capability(device=None):
    """(major, minor) of the CUDA device the next launch would use, or
    None on a machine without a usable driver and device."""
    from . import _runtime
    try:
        rt = _runtime.get(_runtime.default_device() if device is None
                          else device)
    except Exception:
        return None
    sm = rt.sm
    return sm // 10, sm % 10


def default_target(device: Optional[int] = None) -> str:
    """$PTXTILE_TARGET, else the target of the current device, else the
    compiler's default (sm_90a) on a machine without a GPU."""
    env = os.environ.get("PTXTILE_TARGET")
    if env:
        return env
    cap = device_capability(device)
    if cap is not None:
        return target_for_capability(*cap)
    from . import _lib
    return _lib.compiler().pt_default_target().decode()
