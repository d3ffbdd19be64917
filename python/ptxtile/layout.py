"""Layout names of the script language
(`from ptxtile.layout import S, R, TileLayout, ComposeLayout`).

Placeholders for plain Python (see ptxtile.tirx); the compiler binds each
imported name to its builtin, as for tvm_tirx.tirx.layout.  The names are
the library's (the layout builders of src/ir/imports.def, then the
tensor-memory axes, kind 3 of src/layout/axes.def), read on first use,
so that importing the package loads no library."""
from . import _lib
from .tirx import Placeholder


def _names():
    return tuple([n for n, module, _ in _lib.table("import") if module == 0]
                 + [n for n, kind, _ in _lib.table("axis") if kind == 3])


def __getattr__(name):
    if name == "NAMES":
        return _names()
    if name == "__all__":
        return list(_names())
    if name in _names():
        value = globals()[name] = Placeholder(name)
        return value
    raise AttributeError("module 'ptxtile.layout' has no attribute %r"
                         % name)
