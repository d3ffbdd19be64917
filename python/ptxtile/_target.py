"""Choosing the target when compile() is given none."""
from __future__ import annotations

import os
from typing import Optional



def _targets():
    """(by capability, portable): from the library's target table
    (src/base/targets.def, in capability order): each arch-specific 'a'
    target is the one for its exact compute capability (every instruction
    the architecture has); the portable (not specific) targets, oldest
    first, serve their major version and, the newest, later families."""
    from . import _lib
    rows = _lib.table("target")
    exact = {(sm // 10, sm % 10): n for n, sm, spec in rows
             if spec and n.endswith("a")}
    portable = [(sm, n) for n, sm, spec in rows if not spec]
    return exact, portable


def target_for_capability(major: int, minor: int) -> str:
    """The target for a device of compute capability major.minor: 9.0 ->
    sm_90a, 10.0 -> sm_100a, 10.3 -> sm_103a, 8.x -> sm_80; any other
    (a later family, whose 'a' features differ) -> sm_90, plain PTX the
    driver compiles for it.  Below 8.0 ptxtile has no target: ValueError."""
    exact, portable = _targets()
    t = exact.get((major, minor))
    if t:
        return t
    for sm, name in portable:
        if sm // 10 == major:
            return name
    oldest_sm, oldest = portable[0]
    if major < oldest_sm // 10:
        raise ValueError("compute capability %d.%d is below %s, the "
                         "oldest ptxtile target" % (major, minor, oldest))
    return portable[-1][1]


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
