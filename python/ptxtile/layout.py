"""Layout names of the script language
(`from ptxtile.layout import S, R, TileLayout, ComposeLayout`).

Placeholders for plain Python (see ptxtile.tirx); the compiler binds each
imported name to its builtin, as for tvm_tirx.tirx.layout."""
from .tirx import Placeholder

NAMES = ("S", "R", "TileLayout", "ComposeLayout", "TLane", "TCol")
for _n in NAMES:
    globals()[_n] = Placeholder(_n)
del _n
__all__ = list(NAMES)
