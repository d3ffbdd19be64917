"""Axis names of the script language (`from ptxtile.axis import laneid`).

Placeholders for plain Python (see ptxtile.tirx); the compiler binds each
imported name to its builtin axis, as for tvm_tirx.backend.cuda.axis."""
from .tirx import Placeholder

NAMES = ("m", "laneid", "warpid", "wid_in_wg", "tid_in_wg", "wgid", "tx",
         "bx", "by", "bz", "cbx", "cby", "cbz", "TLane", "TCol", "Axis")
for _n in NAMES:
    globals()[_n] = Placeholder(_n)
del _n
__all__ = list(NAMES)
