"""The package derives from the library (issue 21): the ABI version is
checked at load (a mismatch is an ImportError naming both versions), and
code numbers are read by name from the library, checked here against the
codes/*.def files read independently."""
import glob
import os
import re

import pytest

from ptxtile import _lib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def def_codes():
    out = {}
    for p in glob.glob(os.path.join(ROOT, "include", "ptxtile", "codes",
                                    "*.def")):
        for m in re.finditer(r"^DIAG\((\d+), (\w+),", open(p).read(), re.M):
            out[m.group(2)] = int(m.group(1))
    return out


def test_abi_version_is_the_header_s():
    h = open(os.path.join(ROOT, "include", "ptxtile.h")).read()
    m = re.search(r"#define PT_ABI_VERSION (\d+)", h)
    assert m and int(m.group(1)) == _lib.ABI_VERSION
    assert _lib.compiler().pt_abi_version() == _lib.ABI_VERSION


def test_codes_by_name_match_the_def_files():
    codes = def_codes()
    assert codes["RT_ARG_COUNT"] == 5008 and codes["UNKNOWN_NAME"] == 2001
    for name, num in codes.items():
        assert _lib.code(name) == num, name
    with pytest.raises(KeyError):
        _lib.code("RT_ARG_DTYPO")


def test_abi_mismatch_is_an_import_error(monkeypatch):
    monkeypatch.setattr(_lib, "ABI_VERSION", _lib.ABI_VERSION + 1)
    monkeypatch.setattr(_lib, "_loaded", {})
    with pytest.raises(ImportError) as e:
        _lib.compiler()
    assert isinstance(e.value, _lib.AbiMismatch)
    assert "ABI version %d" % (_lib.ABI_VERSION - 1) in str(e.value)
    assert "needs %d" % _lib.ABI_VERSION in str(e.value)


def def_rows(path, macro):
    text = open(os.path.join(ROOT, path)).read()
    return re.findall(r"^%s\((.*)\)$" % macro, text, re.M)


def test_tables_are_the_def_files():
    targets = [r.split(", ") for r in def_rows("src/base/targets.def",
                                               "TARGET")]
    assert [(n, a, b) for n, a, b in _lib.table("target")] == [
        (t[1].strip('"'), int(t[2]), int(t[3])) for t in targets]
    axes = [r.split(", ")[1].strip('"')
            for r in def_rows("src/layout/axes.def", "AXIS")]
    assert [n for n, _, _ in _lib.table("axis")] == axes
    dtypes = [r.split(", ") for r in def_rows("src/ir/dtypes.def", "DTYPE")]
    assert [(n, a) for n, a, _ in _lib.table("dtype")] == [
        (d[1].strip('"'), int(d[2])) for d in dtypes]
    imports = [r.split(", ")[0].strip('"')
               for r in def_rows("src/ir/imports.def", "IMPORT")]
    assert [n for n, _, _ in _lib.table("import")] == imports
    assert _lib.table("no such table") == []


def test_axis_and_layout_names_come_from_the_library():
    from ptxtile import axis, layout
    axes = [r.split(", ")[1].strip('"')
            for r in def_rows("src/layout/axes.def", "AXIS")]
    assert axis.NAMES == tuple(axes + ["Axis"])
    assert layout.NAMES == ("S", "R", "TileLayout", "ComposeLayout",
                            "TLane", "TCol")
    assert axis.laneid.__class__.__name__ == "Placeholder"


def test_struct_layouts_are_checked():
    import ctypes
    from ptxtile import _compile, _emulate  # noqa: F401 (checked on import)
    _lib.compiler()

    class Short(ctypes.Structure):  # ptem_arg without its size field
        _fields_ = [("data", ctypes.c_void_p)]

    with pytest.raises(ImportError) as e:
        _lib.c_struct("ptem_arg")(Short)
    assert isinstance(e.value, _lib.AbiMismatch)
    assert "ptem_arg" in str(e.value)

    class Good(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]

    assert _lib.c_struct("ptem_arg")(Good) is Good
    _lib._structs.pop()
