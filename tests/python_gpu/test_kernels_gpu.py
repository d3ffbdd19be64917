"""ptxtile.kernels on the GPU: matmul against a float32 product computed
by torch from the same inputs, the out= form, torch.compile(fullgraph=
True) and CUDA graph capture and replay (both through the torch.library
custom op)."""
import pytest
import torch

import ptxtile.kernels as K

hopper = pytest.mark.skipif(torch.cuda.get_device_capability()[0] != 9,
                            reason="matmul's kernel is sm_90a")


def operands(m, n, k, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", generator=g).to(torch.bfloat16)
    b = torch.randn(n, k, device="cuda", generator=g).to(torch.bfloat16)
    return a, b


def rel_err(c, a, b):
    ref = a.float() @ b.float().T
    return ((c.float() - ref).norm() / ref.norm()).item()


@hopper
@pytest.mark.parametrize("m,n,k", [(4096, 4096, 4096), (1000, 264, 200),
                                   (1, 8, 8), (777, 1032, 4104)])
def test_matmul_matches_a_float32_product(m, n, k):
    a, b = operands(m, n, k)
    c = K.matmul(a, b)
    assert c.shape == (m, n) and c.dtype == torch.bfloat16
    assert rel_err(c, a, b) < 1e-2


@hopper
def test_out_argument():
    a, b = operands(512, 256, 128)
    out = torch.full((512, 256), float("nan"), device="cuda",
                     dtype=torch.bfloat16)
    r = K.matmul(a, b, out=out)
    assert r is out
    assert rel_err(out, a, b) < 1e-2


@hopper
def test_torch_compile_fullgraph():
    a, b = operands(1024, 512, 256)

    def f(a, b):
        return K.matmul(a, b) * 2 + 1

    cf = torch.compile(f, fullgraph=True)
    got = cf(a, b)
    want = (a.float() @ b.float().T) * 2 + 1
    assert ((got.float() - want).norm() / want.norm()).item() < 1e-2
    a2, b2 = operands(1024, 512, 256, seed=1)    # the same graph, new data
    got2 = cf(a2, b2)
    assert rel_err((got2.float() - 1) / 2, a2, b2) < 1e-2


@hopper
def test_cuda_graph_capture_and_replay():
    a, b = operands(2048, 1024, 512)
    out = torch.empty(2048, 1024, device="cuda", dtype=torch.bfloat16)
    K.matmul(a, b, out=out)                      # warm-up: compile, load,
    c = K.matmul(a, b)                           # tune each shape
    K.matmul(b[:1024, :], a[:1024, :], out=out[:1024, :])
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        c = K.matmul(a, b)
        K.matmul(b[:1024, :], a[:1024, :], out=out[:1024, :])
    a2, b2 = operands(2048, 1024, 512, seed=2)
    a.copy_(a2)
    b.copy_(b2)
    g.replay()
    torch.cuda.synchronize()
    assert rel_err(c, a2, b2) < 1e-2             # ran on the new inputs
    assert rel_err(out[:1024, :], b2[:1024, :], a2[:1024, :]) < 1e-2


@hopper
def test_argument_errors_name_the_argument():
    a, b = operands(64, 64, 64)
    with pytest.raises(TypeError, match="b is torch.float32"):
        K.matmul(a, b.float())
    with pytest.raises(ValueError, match="K differ"):
        K.matmul(a, b[:, :32].contiguous())
    with pytest.raises(ValueError, match="out is"):
        K.matmul(a, b, out=torch.empty(64, 8, device="cuda",
                                       dtype=torch.bfloat16))
