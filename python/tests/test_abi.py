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
