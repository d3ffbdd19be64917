"""Axis names of the script language (`from ptxtile.axis import laneid`).

Placeholders for plain Python (see ptxtile.tirx); the compiler binds each
imported name to its builtin axis, as for tvm_tirx.backend.cuda.axis.
The names are the library's (its axis table, src/layout/axes.def, then
the axis namespace of src/ir/imports.def), read on first use, so that
importing the package loads no library."""
from . import _lib
from .tirx import Placeholder


def _names():
    return tuple([n for n, _, _ in _lib.table("axis")] +
                  [n for n, module, _ in _lib.table("import") if module == 1])


def __getattr__(name):
    if name == "NAMES":
        return _names()
    if name == "__all__":
        return list(_names())
    if name in _names():
        value = globals()[name] = Placeholder(name)
        return value
    raise AttributeError("module 'ptxtile.axis' has no attribute %r" % name)
