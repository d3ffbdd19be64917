"""compile() from a path, a .json IR path, script text and a @T.function;
Kernel's artifacts; CompileError with every diagnostic; the shim."""
import json
import os
import re
import subprocess

import pytest

import ptxtile
from conftest import ROOT, cli, example

SAXPY = example("saxpy_relu.py")


def entry_params(k):
    return [(p["name"], p["kind"]) for p in k.meta["kernels"][0]["params"]]


def test_import_needs_only_the_standard_library():
    code = ("import sys, ptxtile, ptxtile.tirx, ptxtile.axis, "
            "ptxtile.layout, ptxtile.testing\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'numpy')]\n"
            "assert not bad, bad\n"
            "assert '_ctypes' in sys.modules\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    subprocess.run([os.sys.executable, "-c", code], check=True, env=env)


def test_version_matches_the_c_header():
    with open(os.path.join(ROOT, "include", "ptxtile.h")) as f:
        m = re.search(r'#define PT_VERSION "([^"]+)"', f.read())
    assert ptxtile.__version__ == m.group(1)


def test_compile_path():
    k = ptxtile.compile(SAXPY, target="sm_90a")
    assert k.name == "saxpy_relu" and k.target == "sm_90a"
    assert ".visible .entry saxpy_relu(" in k.ptx
    assert ".target sm_90a" in k.ptx
    assert entry_params(k) == [("X", "tensor"), ("Y", "tensor"),
                               ("a", "scalar"), ("n$dim", "dim")]
    assert k.params == [("X", "tensor", "float32", ["n"]),
                        ("Y", "tensor", "float32", ["n"]),
                        ("a", "scalar", "float32", None)]
    assert k.meta["kernels"][0]["launch"]["block"] == [256, 1, 1]


def test_compile_pathlike_and_json_ir(tmp_path):
    ir = subprocess.run([cli(), "json",
                         SAXPY], capture_output=True, text=True,
                        check=True).stdout
    p = tmp_path / "saxpy.json"
    p.write_text(ir)
    from_json = ptxtile.compile(p, target="sm_90a")
    from_py = ptxtile.compile(SAXPY, target="sm_90a")
    assert from_json.ptx == from_py.ptx
    assert from_json.meta == from_py.meta


def test_compile_string_matches_the_cli():
    with open(SAXPY) as f:
        text = f.read()
    k = ptxtile.compile(text, target="sm_80")
    out = subprocess.run([cli(), "compile", SAXPY, "--target", "sm_80"],
                         capture_output=True, text=True, check=True).stdout
    assert k.ptx == out
    assert k.source_name == "<string>"


def test_missing_path_is_file_not_found():
    with pytest.raises(FileNotFoundError):
        ptxtile.compile("no/such/kernel.py")


def test_compile_decorated_function():
    import kernel_module as km
    assert isinstance(km.scale2, ptxtile.tirx.Function)
    k = ptxtile.compile(km.scale2, target="sm_90a")
    assert k.name == "scale2"
    assert "ld.global.v4.b32" in k.ptx and "st.global.v4.b32" in k.ptx
    assert set(k.kernel_names) == {"scale2", "add_one"}
    assert k.params == [("A", "tensor", "float32", [128, 4]),
                        ("B", "tensor", "float32", [128, 4])]
    other = ptxtile.compile(km.add_one, target="sm_90a")
    assert other.name == "add_one"
    assert other.params[2] == ("k", "scalar", "int32", None)
    # the module's own Python is not part of the script
    assert "helper" not in k.source and "os.getcwd" not in k.source
    assert "FRAG = TileLayout" in k.source
    # every kept line stays at its line number
    with open(km.__file__) as f:
        lines = f.read().splitlines()
    for i, line in enumerate(k.source.splitlines()):
        assert line == "" or line == lines[i]


def test_decorated_function_is_not_callable():
    import kernel_module as km
    with pytest.raises(TypeError, match="ptxtile.compile"):
        km.scale2(1, 2)


def test_scalar_function_is_not_a_kernel():
    import kernel_module as km
    with pytest.raises(ValueError, match="no kernel 'twice'"):
        ptxtile.compile(km.twice, target="sm_90a")


def test_function_without_source():
    ns = {}
    exec("from ptxtile import tirx as T\n"
         "@T.function\ndef k(A: T.Tensor((4,), 'float32')):\n    pass\n", ns)
    with pytest.raises(ValueError, match="not available"):
        ptxtile.compile(ns["k"], target="sm_90a")


def test_compile_error_carries_every_diagnostic():
    import bad_module
    with pytest.raises(ptxtile.CompileError) as e:
        ptxtile.compile(bad_module.fine, target="sm_90a")
    err = e.value
    assert len(err.diagnostics) >= 2
    d = err.diagnostics[0]
    assert (d.code, d.number, d.line, d.column) == ("E2001", 2001, 15, 12)
    assert d.file == bad_module.__file__
    assert d.message == "unknown name 'foo'"
    assert err.diagnostics[1].line == 16
    assert err.codes[1] != "E2001"
    # the rendered text names the place and quotes the source line
    assert "%s:15:12: error[E2001]" % bad_module.__file__ in err.text
    assert "    A[0] = foo" in str(err)


def test_bad_script_text():
    with pytest.raises(ptxtile.CompileError) as e:
        ptxtile.compile("from tvm_tirx.script import tirx as T\nprint(1)\n",
                        target="sm_90a")
    assert e.value.codes == ["E2029"]
    assert e.value.diagnostics[0].file == "<string>"
    assert e.value.diagnostics[0].line == 2


def test_syntax_error_in_text():
    with pytest.raises(ptxtile.CompileError) as e:
        ptxtile.compile("def (:\n  x\n", target="sm_90a")
    assert e.value.diagnostics and e.value.codes[0].startswith("E1")


def test_unknown_target_and_option():
    with pytest.raises(ptxtile.CompileError, match="unknown target 'sm_42'"):
        ptxtile.compile(SAXPY, target="sm_42")
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        ptxtile.compile(SAXPY, target="sm_90a", opt_level=3)
    with pytest.raises(TypeError):
        ptxtile.compile(42)


def test_target_rule_is_the_compilers():
    # tcgen05 needs sm_100a: an error on sm_90a, fine on sm_100a
    ex = example("tcgen05_ld_16x32bx2.py")
    with pytest.raises(ptxtile.CompileError):
        ptxtile.compile(ex, target="sm_90a")
    assert ".target sm_100a" in ptxtile.compile(ex, target="sm_100a").ptx


def test_explain_lists_tile_calls():
    k = ptxtile.compile(example("ld_st.py"), target="sm_90a")
    text = k.explain()
    assert "ld.global.v4.b32" in text and "st.shared.v4.b32" in text


def test_several_kernels_need_a_name(tmp_path):
    src = ("from tvm_tirx.script import tirx as T\n"
           "@T.function\ndef a(A: T.Tensor((4,), 'float32')):\n"
           "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n"
           "    A[0] = T.float32(1.0)\n"
           "@T.function\ndef b(A: T.Tensor((4,), 'float32'), s: T.int32):\n"
           "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n"
           "    A[1] = T.float32(2.0)\n")
    k = ptxtile.compile(src, target="sm_90a")
    assert k.name is None and k.kernel_names == ["a", "b"]
    with pytest.raises(TypeError, match="several kernels"):
        k(1)
    assert k.kernel("b").params[1] == ("s", "scalar", "int32", None)
    assert k.b.name == "b" and k.a.params == [("A", "tensor", "float32",
                                               [4])]
    assert "b" in dir(k)
    with pytest.raises(AttributeError, match="kernels: a, b"):
        k.c
    with pytest.raises(ValueError, match="no kernel 'c'"):
        k.kernel("c")
    with pytest.warns(DeprecationWarning, match="kernel.kernel"):
        assert k["b"].name == "b"
    assert ptxtile.compile(src, target="sm_90a", name="a").name == "a"
    with pytest.raises(ValueError, match="no kernel 'c'"):
        ptxtile.compile(src, target="sm_90a", name="c")


@pytest.mark.skipif(ptxtile.find_ptxas() is None, reason="no ptxas")
def test_cubin_is_an_elf_for_the_target():
    k = ptxtile.compile(SAXPY, target="sm_90a")
    assert k.cubin[:4] == b"\x7fELF"


def test_cubin_is_none_without_ptxas(monkeypatch):
    monkeypatch.setenv("PTXAS", "/nonexistent/ptxas")
    k = ptxtile.compile(SAXPY, target="sm_90a", cache=False)
    assert k.cubin is None


def test_shim_placeholders():
    T = ptxtile.tirx
    from ptxtile.axis import laneid, warpid
    from ptxtile.layout import S, R, TileLayout
    v = TileLayout(S[8:4@laneid] + R[4:1@laneid] + 2@warpid + 64)
    assert "TileLayout" in repr(v)
    assert T.cuda.tile.apply(T.ptx["x"], 1, scope="cta") is not None
    with pytest.raises(TypeError):
        bool(T.dynamic("n") < 3)
    assert T.function(lambda: 0).__name__ == "<lambda>"


def test_public_api_has_type_hints_and_py_typed():
    import typing
    hints = typing.get_type_hints(ptxtile.compile)
    assert set(hints) == {"kernel", "target", "name", "constants", "cache",
                          "lineinfo", "return"}
    assert hints["return"] is ptxtile.Kernel
    assert "configs" in typing.get_type_hints(ptxtile.autotune)
    assert typing.get_type_hints(ptxtile.Kernel.emulate)["return"] is int
    assert os.path.isfile(os.path.join(os.path.dirname(ptxtile.__file__),
                                       "py.typed"))


def test_one_base_error_class():
    assert issubclass(ptxtile.CompileError, ptxtile.Error)
    assert issubclass(ptxtile.LaunchError, ptxtile.Error)
    assert issubclass(ptxtile.EmulatorError, ptxtile.LaunchError)
    assert issubclass(ptxtile.ArgumentCountError, TypeError)
    with pytest.raises(ptxtile.Error):
        ptxtile.compile("x = 1 +\n", target="sm_90a")
