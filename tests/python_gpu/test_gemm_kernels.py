"""The GEMM family of python/ptxtile/kernels (kernels/_gemm.py: swap-AB
with split-K, gemm_sm90 with both majors of B, fused epilogues) on the
GPU against float32 products computed by torch from the same inputs.
Every candidate configuration of a shape is run (not only the tuner's
pick), so a configuration the tuner might choose later is checked too."""
import pytest
import torch
import torch.nn.functional as F

from ptxtile.kernels import _gemm
from conftest import capability

dev = "cuda"
pytestmark = pytest.mark.skipif(capability()[0] != 9,
                                reason="the GEMM family is sm_90a")


def sms():
    return torch.cuda.get_device_properties(0).multi_processor_count


def close(got, ref):
    # 16-bit output: one rounding (2^-8 relative for bf16) of the float32
    # value, plus 1e-2 absolute for the different summation order at
    # K up to 4096 of N(0, 1) inputs (sums of magnitude ~64)
    d = (got.float() - ref).abs()
    return bool((d <= ref.abs() * 2 ** -7 + 1e-2).all())


def inputs(m, n, k, kn=False, dt=torch.bfloat16, seed=0):
    g = torch.Generator(device=dev).manual_seed(seed)
    a = torch.randn(m, k, generator=g, device=dev).to(dt)
    if kn:
        b = torch.randn(k, n, generator=g, device=dev).to(dt)
    else:
        b = torch.randn(n, k, generator=g, device=dev).to(dt).t()
    return a, b


@pytest.mark.parametrize("m,n,k,kn", [
    (1, 4096, 4096, False), (16, 4096, 4096, False), (13, 1000, 520, False),
    (64, 14336, 4096, False), (128, 4096, 14336, False),
    (16, 4096, 4096, True), (100, 264, 200, True)])
def test_every_candidate_of_decode_shapes(m, n, k, kn):
    a, b = inputs(m, n, k, kn, seed=m + n)
    ref = a.float() @ b.float()
    cands = _gemm.configs(m, n, k, sms=sms(), b_kmajor=0 if kn else 1)
    assert any(s == "gemm_swapab.py" for s, _ in cands)
    _gemm.GEMM.prepare(cands)  # ptxas in parallel threads
    for cfg in cands:
        out = torch.full((m, n), float("nan"), device=dev,
                         dtype=torch.bfloat16)
        for _ in range(2):  # the split-K counters are reset by launch 1
            _gemm.matmul(a, b, out=out, config=cfg)
        torch.cuda.synchronize()
        assert close(out, ref), _gemm.config_name(*cfg)


@pytest.mark.parametrize("m,n,k,kn,dt", [
    (1000, 1000, 1000, False, torch.bfloat16),
    (300, 520, 136, True, torch.bfloat16),
    (2048, 2048, 2048, True, torch.bfloat16),
    (1024, 1024, 1024, False, torch.float16),
    (777, 264, 512, True, torch.float16)])
def test_every_candidate_of_sm90_shapes(m, n, k, kn, dt):
    if n % 8 or k % 8:
        pytest.skip("TMA strides")
    a, b = inputs(m, n, k, kn, dt=dt, seed=m)
    ref = a.float() @ b.float()
    name = str(dt).replace("torch.", "")
    cands = _gemm.configs(m, n, k, sms=sms(), dt=name, out=name,
                          b_kmajor=0 if kn else 1)
    assert cands
    _gemm.GEMM.prepare(cands)
    for cfg in cands:
        cc = torch.full((m + 1, n), float("nan"), device=dev, dtype=dt)
        out = cc[:m]
        _gemm.GEMM.launch(cfg[0], cfg[1], a, b if kn else b.t(), out,
                          sms=sms())
        torch.cuda.synchronize()
        assert close(out, ref), _gemm.config_name(*cfg)
        assert torch.isnan(cc[m].float()).all()  # nothing past M


@pytest.mark.parametrize("m,n,k", [(16, 14336, 4096), (512, 1024, 512),
                                   (100, 264, 136)])
@pytest.mark.parametrize("act", ["gelu", "relu", "silu"])
def test_fused_bias_activation_residual(m, n, k, act):
    a, b = inputs(m, n, k, seed=n)
    g = torch.Generator(device=dev).manual_seed(1)
    bias = torch.randn(n, generator=g, device=dev)
    res = torch.randn(m, n, generator=g, device=dev).bfloat16()
    fn = {"gelu": lambda v: F.gelu(v, approximate="tanh"),
          "relu": torch.relu, "silu": F.silu}[act]
    ref = fn(0.5 * (a.float() @ b.float()) + bias) + 2.0 * res.float()
    got = _gemm.matmul(a, b, bias=bias, activation=act, alpha=0.5,
                       residual=res, beta=2.0, tune=False)
    torch.cuda.synchronize()
    assert close(got, ref)


def test_float32_output_and_the_tuner():
    a, b = inputs(16, 4096, 4096, seed=5)
    ref = a.float() @ b.float()
    got = _gemm.matmul(a, b, out_dtype=torch.float32)  # tuned
    again = _gemm.matmul(a, b, out_dtype=torch.float32)  # the cache
    torch.cuda.synchronize()
    assert got.dtype == torch.float32
    assert torch.allclose(got, ref, rtol=1e-4, atol=1e-3)
    assert torch.equal(got, again)  # fixed summation order


def test_strided_views_without_a_copy():
    # K = 60 as column slices of K = 64 rows: the tensor maps take the
    # row strides (128 bytes), so no copy and no refusal
    a, b = inputs(16, 64, 64)
    got = _gemm.matmul(a[:, :60], b[:60], tune=False)
    torch.cuda.synchronize()
    assert close(got, a[:, :60].float() @ b[:60].float())


def test_refusals_name_the_problem():
    a, b = inputs(16, 64, 64)
    a2 = torch.randn(16, 66, device=dev).bfloat16()
    with pytest.raises(ValueError, match="stride"):
        _gemm.matmul(a2[:, :64], b)      # row stride 66 (132 bytes)
    with pytest.raises(TypeError):
        _gemm.matmul(a.float(), b)
    with pytest.raises(ValueError, match="K differs"):
        _gemm.matmul(a, b[:32])
    with pytest.raises(ValueError, match="activation"):
        _gemm.matmul(a, b, activation="tanh")


def test_public_matmul_epilogue_majors_and_dtypes():
    # ptxtile.kernels.matmul (the custom op): C = a @ b.T with b stored
    # (N, K), and with b the transpose of a (K, N) tensor (no copy); bias
    # + gelu, float32 output; decode and prefill-like M
    import ptxtile.kernels as K
    for m, n, k in ((16, 4096, 4096), (300, 520, 136)):
        a, b_nk = inputs(m, n, k, seed=m)        # b_nk: (K, N) view of (N, K)
        w_nk = b_nk.t()                          # (N, K) contiguous
        w_kn = b_nk.contiguous()                 # (K, N) contiguous
        ref = a.float() @ w_nk.float().t()
        assert close(K.matmul(a, w_nk), ref)
        assert close(K.matmul(a, w_kn.t()), ref)
        g = torch.Generator(device=dev).manual_seed(2)
        bias = torch.randn(n, generator=g, device=dev)
        got = K.matmul(a, w_nk, bias=bias, activation="gelu")
        assert close(got, F.gelu(ref + bias, approximate="tanh"))
        if m <= 128:
            got32 = K.matmul(a, w_nk, out_dtype=torch.float32)
            assert got32.dtype == torch.float32
            assert torch.allclose(got32, ref, rtol=1e-4, atol=1e-3)
    torch.cuda.synchronize()
