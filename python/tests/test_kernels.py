"""ptxtile.kernels without a GPU: the shipped scripts, the op registration
(fake implementation on meta tensors, one opaque node under tracing) and
matmul's argument rules.  The torch parts skip when torch is absent; the
GPU behaviour is tests/python_gpu/test_kernels_gpu.py."""
import os
import subprocess
import sys

import pytest

import ptxtile
import ptxtile.kernels as K
from conftest import ROOT

MM = sys.modules["ptxtile.kernels.matmul"]   # the module; K.matmul is the
                                            # function


def test_import_needs_neither_torch_nor_the_compiler():
    code = ("import sys, ptxtile.kernels\n"
            "assert 'torch' not in sys.modules\n"
            "assert not any(m.startswith('ptxtile._lib') and "
            "sys.modules[m]._loaded for m in ['ptxtile._lib'])\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    subprocess.run([os.sys.executable, "-c", code], check=True, env=env)


def test_scripts_ship_as_readable_files():
    assert "gemm_wgmma" in K.scripts()
    p = K.script_path("gemm_wgmma")
    assert p.endswith(os.path.join("kernels", "scripts", "gemm_wgmma.py"))
    with open(p) as f:
        assert "C = A @ B.T" in f.read()
    with pytest.raises(FileNotFoundError, match="gemm_wgmma"):
        K.script_path("nope")


def test_the_matmul_script_has_the_signature_matmul_calls():
    k = ptxtile.compile(K.script_path("gemm_wgmma"), target="sm_90a")
    assert k.params == [("A", "tensor", "bfloat16", ["M", "K"]),
                        ("B", "tensor", "bfloat16", ["N", "K"]),
                        ("C", "tensor", "bfloat16", ["M", "N"]),
                        ("sms", "scalar", "int32", None)]


def test_pyproject_ships_the_scripts_and_py_typed():
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        text = f.read()
    assert '"ptxtile.kernels" = ["scripts/*.py"]' in text
    assert '"ptxtile" = ["py.typed"]' in text
    assert os.path.isfile(os.path.join(ROOT, "python", "ptxtile",
                                       "py.typed"))


torch_only = pytest.mark.skipif(
    subprocess.run([os.sys.executable, "-c", "import torch"],
                   capture_output=True).returncode != 0,
    reason="torch is not installed")


@torch_only
def test_fake_implementation_on_meta_tensors():
    import torch
    a = torch.empty(300, 64, dtype=torch.bfloat16, device="meta")
    b = torch.empty(136, 64, dtype=torch.bfloat16, device="meta")
    c = MM._op()(a, b)
    assert c.shape == (300, 136) and c.dtype == torch.bfloat16
    assert c.device.type == "meta"
    assert torch.ops.ptxtile.matmul.default is not None
    out = torch.empty(300, 136, dtype=torch.bfloat16, device="meta")
    assert MM._out_op()(a, b, out) is None
    assert torch.ops.ptxtile.matmul_out.default._schema.arguments[2] \
        .alias_info.is_write


@torch_only
def test_traced_as_one_opaque_op():
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx
    op = MM._op()

    def f(a, b):
        return op(a, b) * 2
    g = make_fx(f, tracing_mode="fake")(
        torch.empty(16, 8, dtype=torch.bfloat16),
        torch.empty(8, 8, dtype=torch.bfloat16))
    targets = [str(n.target) for n in g.graph.nodes
               if n.op == "call_function"]
    assert targets == ["ptxtile.matmul.default", "aten.mul.Tensor"]


@torch_only
def test_matmul_argument_rules():
    import torch
    bf = torch.bfloat16
    a, b = torch.zeros(64, 32, dtype=bf), torch.zeros(16, 32, dtype=bf)
    with pytest.raises(TypeError, match="b is torch.float32"):
        K.matmul(a, b.float())
    with pytest.raises(TypeError, match="a must be a torch.Tensor"):
        K.matmul([1], b)
    with pytest.raises(ValueError, match="3 dimensions"):
        K.matmul(a[None], b)
    with pytest.raises(ValueError, match="K differ"):
        K.matmul(a, torch.zeros(16, 24, dtype=bf))
    with pytest.raises(ValueError, match="multiples of 8"):
        K.matmul(a, torch.zeros(12, 32, dtype=bf))
    with pytest.raises(ValueError, match="contiguous"):
        K.matmul(torch.zeros(32, 64, dtype=bf).T, b)
    with pytest.raises(ValueError, match=r"out is \(64, 8\)"):
        K.matmul(a, b, out=torch.zeros(64, 8, dtype=bf))
    with pytest.raises(ValueError, match="a is on cpu; it takes CUDA"):
        K.matmul(a, b)


@torch_only
def test_torch_compile_fullgraph_traces_it_on_meta_tensors():
    # dynamo traces matmul() to one custom-op node (fullgraph=True fails
    # on any graph break); the fake implementation runs on meta tensors,
    # so no GPU is needed to see the graph is whole
    import torch
    import torch._dynamo

    def f(a, b):
        return K.matmul(a, b) * 2 + 1

    def g(a, b, out):
        K.matmul(a, b, out=out)
        return out + 1
    bf = torch.bfloat16
    a = torch.empty(64, 32, dtype=bf, device="meta")
    b = torch.empty(16, 32, dtype=bf, device="meta")
    o = torch.empty(64, 16, dtype=bf, device="meta")
    torch._dynamo.reset()
    c = torch.compile(f, fullgraph=True, backend="aot_eager")(a, b)
    assert c.shape == (64, 16) and c.dtype == bf
    assert torch.compile(g, fullgraph=True, backend="aot_eager")(
        a, b, o).shape == (64, 16)
    torch._dynamo.reset()
    with pytest.raises(Exception, match="K differ"):
        torch.compile(f, fullgraph=True, backend="eager")(
            a, torch.empty(16, 24, dtype=bf, device="meta"))
