"""Compile-time constants: compile(constants=), `ptxtile -D`, and module
globals a @T.function module computes in Python (captured at compile
time)."""
import importlib.util
import subprocess
import sys
import textwrap

import pytest

import ptxtile
from ptxtile import _constants
from conftest import cli, example

SAXPY = example("saxpy_relu.py")   # GRID = 132, BLOCK = 256 in the file


def launch(k):
    return k.meta["kernels"][0]["launch"]


def test_override_changes_the_launch_shape():
    base = ptxtile.compile(SAXPY, target="sm_90a")
    assert launch(base)["block"] == [256, 1, 1]
    k = ptxtile.compile(SAXPY, target="sm_90a",
                        constants={"BLOCK": 128, "GRID": 7})
    assert launch(k)["block"] == [128, 1, 1]
    assert launch(k)["grid"] == [7, 1, 1]
    assert ".reqntid 128, 1, 1" in k.ptx
    # the grid-stride step is GRID * BLOCK = 896, folded into the PTX
    assert "896" in k.ptx and "896" not in base.ptx
    assert k.constants == {"BLOCK": 128, "GRID": 7}
    assert base.constants == {}


def test_constants_are_part_of_the_cache_key():
    a = ptxtile.compile(SAXPY, target="sm_90a", constants={"BLOCK": 128})
    b = ptxtile.compile(SAXPY, target="sm_90a", constants={"BLOCK": 64})
    c = ptxtile.compile(SAXPY, target="sm_90a")
    assert not a.cache_hit and not b.cache_hit and not c.cache_hit
    assert len({a.cache_key, b.cache_key, c.cache_key}) == 3
    again = ptxtile.compile(SAXPY, target="sm_90a", constants={"BLOCK": 128})
    assert again.cache_hit and again.ptx == a.ptx
    assert again.constants == {"BLOCK": 128}


def test_cli_minus_d_gives_the_same_ptx():
    k = ptxtile.compile(SAXPY, target="sm_90a", constants={"BLOCK": 128})
    out = subprocess.run([cli(), "compile", "-q", "--target", "sm_90a",
                          "-D", "BLOCK=128", SAXPY], capture_output=True,
                         text=True, check=True).stdout
    assert out == k.ptx


SCRIPT = textwrap.dedent('''\
    from ptxtile import tirx as T
    DT = "float32"
    SCALE = 1.5
    PAIR = (2, 1)
    ON = True
    BLOCK = 64

    @T.function
    def k(A: T.Tensor((BLOCK,), DT)):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=PAIR, block=BLOCK))
        if ON:
            A[T.cuda.thread_idx("x")] = T.cast(SCALE, DT)
    ''')


def param_dtype(k):
    return k.meta["kernels"][0]["params"][0]["dtype"]


def test_typed_values():
    k = ptxtile.compile(SCRIPT, target="sm_90a",
                        constants={"DT": "float16", "SCALE": 2,
                                   "PAIR": (3, 2, 1), "ON": False})
    assert param_dtype(k) == "float16"
    assert launch(k)["grid"] == [3, 2, 1]
    np = pytest.importorskip("numpy")
    k = ptxtile.compile(SCRIPT, target="sm_90a",
                        constants={"DT": np.float16})
    assert param_dtype(k) == "float16"


@pytest.mark.parametrize("constants,code", [
    ({"BLOCK": "wide"}, "E2051"),
    ({"BLOCK": 1.5}, "E2051"),
    ({"ON": 1}, "E2051"),
    ({"DT": "float33"}, "E2051"),
    ({"PAIR": (1, "x")}, "E2051"),
    ({"BLOK": 64}, "E2050"),
])
def test_refused_overrides(constants, code):
    with pytest.raises(ptxtile.CompileError) as e:
        ptxtile.compile(SCRIPT, target="sm_90a", constants=constants)
    assert e.value.codes[0] == code
    if code == "E2050":
        assert "did you mean 'BLOCK'" in str(e.value)


@pytest.mark.parametrize("value", [object(), float("nan"), 1 << 64,
                                   "two\nlines", {"a": 1}])
def test_values_without_a_literal_are_type_errors(value):
    with pytest.raises(TypeError, match="BLOCK"):
        ptxtile.compile(SCRIPT, target="sm_90a", constants={"BLOCK": value})


def test_bad_names_and_mappings():
    with pytest.raises(ValueError, match="not a script name"):
        ptxtile.compile(SCRIPT, target="sm_90a", constants={"B-1": 1})
    with pytest.raises(TypeError, match="dict"):
        ptxtile.compile(SCRIPT, target="sm_90a", constants=[("BLOCK", 1)])


def test_literals():
    assert _constants.literal(True) == "True"
    assert _constants.literal(-3) == "-3"
    assert _constants.literal(1e-5) == "1e-05"
    assert _constants.literal((1,)) == "(1,)"
    assert _constants.literal([1, (2, "a")]) == '(1, (2, "a"))'
    assert _constants.literal('q"\\') == '"q\\"\\\\"'
    import enum

    class Mode(enum.IntEnum):
        FAST = 2
    assert _constants.literal(Mode.FAST) == "2"
    np = pytest.importorskip("numpy")
    assert _constants.literal(np.float64(1.5)) == "1.5"
    assert _constants.literal(np.int32(4)) == "4"
    assert _constants.literal(np.bool_(True)) == "True"
    assert _constants.literal((np.int64(3), 1)) == "(3, 1)"
    assert _constants.literal(np.float32) == '"float32"'
    # the text reads back, in Python's syntax too, as the value
    for v in [(1,), (1, (2, "a")), 'q"\\', 1e-5, -3, 0.1]:
        assert eval(_constants.literal(v)) == v


MODULE = textwrap.dedent('''\
    import os
    from ptxtile import tirx as T

    BLOCK = int(os.environ.get("PTXTILE_TEST_BLOCK", "64"))
    TILE = BLOCK * 2
    SHAPE = tuple(int(x) for x in "4,2".split(","))
    HANDLE = object()

    @T.function
    def k(A: T.Tensor((1024,), "float32")):
        T.device_entry(launch=T.cuda.LaunchConfig(grid=SHAPE, block=BLOCK))
        A[T.cuda.thread_idx("x")] = T.cast(TILE, "float32")
    ''')


def load_module(tmp_path, name, text):
    p = tmp_path / (name + ".py")
    p.write_text(text)
    spec = importlib.util.spec_from_file_location(name, str(p))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_module_constants_computed_in_python(tmp_path, monkeypatch):
    monkeypatch.setenv("PTXTILE_TEST_BLOCK", "96")
    mod = load_module(tmp_path, "ptxtile_envmod", MODULE)
    k = ptxtile.compile(mod.k, target="sm_90a")
    assert launch(k)["block"] == [96, 1, 1]
    assert launch(k)["grid"] == [4, 2, 1]
    # TILE = BLOCK * 2 = 192 stays an expression of the captured BLOCK:
    # the store writes 192.0f (0x43400000, not 128.0f = 0x43000000)
    assert "0f43400000" in k.ptx
    # an override replaces a captured value like a written one
    k = ptxtile.compile(mod.k, target="sm_90a", constants={"BLOCK": 32})
    assert launch(k)["block"] == [32, 1, 1]


def test_uncapturable_global_says_why(tmp_path):
    mod = load_module(tmp_path, "ptxtile_badglobal", MODULE.replace(
        'T.cast(TILE, "float32")', 'T.cast(HANDLE, "float32")'))
    with pytest.raises(ptxtile.CompileError) as e:
        ptxtile.compile(mod.k, target="sm_90a")
    assert e.value.codes == ["E2001"]
    msg = str(e.value)
    assert "unknown name 'HANDLE'" in msg
    assert "'HANDLE' is a Python global computed at line 7" in msg
    assert "type 'object'" in msg
