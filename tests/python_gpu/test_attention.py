"""ptxtile.kernels.attention on the GPU (sm_90a): every output compared
with softmax(scale q k^T [+ causal]) v computed by torch in float32 from
the same bf16/fp16 inputs, and with torch SDPA's error on those inputs."""
import itertools
import math

import pytest
import torch

from conftest import capability

if capability() != (9, 0):
    pytest.skip("attention_fwd is an sm_90a kernel", allow_module_level=True)

import importlib  # noqa: E402

# the module (ptxtile.kernels.attention, the attribute, is the function)
attn = importlib.import_module("ptxtile.kernels.attention")

dev = "cuda"


@pytest.fixture(scope="module", autouse=True)
def prebuilt(tmp_path_factory):
    """The variants these tests launch, compiled and assembled in
    parallel threads first (ptxtile's C compiler and ptxas run outside
    the GIL)."""
    from concurrent.futures import ThreadPoolExecutor
    keys = [(d, "bfloat16", c, False, cfg) for d in (64, 128, 256)
            for c in (False, True) for cfg in attn._configs(d)]
    keys += [(128, "float16", True, False, cfg) for cfg in attn._configs(128)]
    keys += [(128, "bfloat16", True, True, cfg) for cfg in attn._configs(128)]
    # the session's cache folder, as conftest's private_cache names it
    d = tmp_path_factory.getbasetemp() / "ptxtile-cache"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PTXTILE_CACHE_DIR", str(d))
        with ThreadPoolExecutor(8) as ex:
            list(ex.map(lambda k: attn._kernel(*k).cubin, keys))


def inputs(b, sq, sk, h, hk, d, dtype=torch.bfloat16, seed=0):
    g = torch.Generator(device=dev).manual_seed(seed)
    q = torch.randn(b, sq, h, d, generator=g, device=dev).to(dtype)
    k = torch.randn(b, sk, hk, d, generator=g, device=dev).to(dtype)
    v = torch.randn(b, sk, hk, d, generator=g, device=dev).to(dtype)
    return q, k, v


def reference(q, k, v, causal, scale=None):
    """float32 (batch, seq, heads, dim) attention and its log-sum-exp."""
    d = q.shape[-1]
    scale = 1 / math.sqrt(d) if scale is None else scale
    rep = q.shape[2] // k.shape[2]
    qf = q.float().transpose(1, 2)
    kf = k.float().repeat_interleave(rep, dim=2).transpose(1, 2)
    vf = v.float().repeat_interleave(rep, dim=2).transpose(1, 2)
    s = qf @ kf.transpose(-1, -2) * scale
    if causal:
        sq, sk = s.shape[-2], s.shape[-1]
        mask = torch.ones(sq, sk, dtype=torch.bool, device=dev).tril()
        s = s.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    o = torch.softmax(s, dim=-1) @ vf
    return o.transpose(1, 2), lse


def check(o, lse, want_o, want_lse, tol=2e-2):
    err = (o.float() - want_o).abs().max().item()
    assert err < tol, "max |O - reference| = %g" % err
    if lse is not None:
        lerr = (lse - want_lse).abs().max().item()
        assert lerr < 1e-3, "max |LSE - reference| = %g" % lerr
    return err


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("config", range(len(attn._configs(128))))
def test_every_variant(causal, config):
    # each variant the autotuner chooses between, launched directly
    cfg = attn._configs(128)[config]
    q, k, v = inputs(2, 1000, 1000, 4, 4, 128)
    o, lse = attn._forward(q, k, v, causal, None, None, None, None, "bshd",
                           None, cfg=cfg)
    want_o, want_lse = reference(q, k, v, causal)
    err = check(o, lse, want_o, want_lse)
    # no worse than torch SDPA on the same inputs (with a little slack
    # for the bf16 rounding of the output)
    t = torch.nn.functional.scaled_dot_product_attention(
        q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
        is_causal=causal).transpose(1, 2)
    terr = (t.float() - want_o).abs().max().item()
    assert err <= 2 * terr + 4e-3, (err, terr)


def test_autotuned_public_function():
    q, k, v = inputs(2, 1000, 1000, 4, 4, 128, seed=1)
    for causal in (False, True):
        o, lse = attn.attention(q, k, v, causal=causal, return_lse=True)
        check(o, lse, *reference(q, k, v, causal))


@pytest.mark.parametrize("d", [64, 256])
def test_head_dims(d):
    q, k, v = inputs(1, 700, 900, 2, 2, d, seed=d)
    for causal in (False, True):
        for cfg in attn._configs(d):  # every variant of this head dim
            o, lse = attn._forward(q, k, v, causal, None, None, None, None,
                                   "bshd", None, cfg=cfg)
            check(o, lse, *reference(q, k, v, causal))


def test_gqa_ragged_seq_q_ne_seq_k_custom_scale():
    q, k, v = inputs(3, 333, 1029, 8, 2, 128, seed=5)
    o, lse = attn.attention(q, k, v, scale=0.05, return_lse=True)
    check(o, lse, *reference(q, k, v, False, 0.05))
    o = attn.attention(q, k, v, causal=True)
    check(o, None, *reference(q, k, v, True))


def test_float16():
    q, k, v = inputs(2, 513, 513, 2, 1, 128, dtype=torch.float16, seed=7)
    o = attn.attention(q, k, v, causal=True)
    assert o.dtype == torch.float16
    check(o, None, *reference(q, k, v, True))


def test_sdpa_layout_by_strides():
    # (batch, heads, seq, dim) contiguous tensors, read through their
    # transposed strides: no copy, and out comes back in the same layout
    g = torch.Generator(device=dev).manual_seed(11)
    qh = torch.randn(2, 4, 600, 128, generator=g, device=dev).bfloat16()
    kh = torch.randn(2, 4, 800, 128, generator=g, device=dev).bfloat16()
    vh = torch.randn(2, 4, 800, 128, generator=g, device=dev).bfloat16()
    o = attn.attention(qh, kh, vh, causal=True, layout="bhsd")
    assert o.shape == qh.shape
    want = torch.nn.functional.scaled_dot_product_attention(
        qh.float(), kh.float(), vh.float(), is_causal=True)
    err = (o.float() - want).abs().max().item()
    assert err < 2e-2, err


def test_varlen():
    lens = [100, 1, 777, 2048, 129]
    cu = torch.tensor([0] + list(itertools.accumulate(lens)),
                      dtype=torch.int32, device=dev)
    total = int(cu[-1])
    g = torch.Generator(device=dev).manual_seed(3)
    q = torch.randn(total, 4, 128, generator=g, device=dev).bfloat16()
    k = torch.randn(total, 2, 128, generator=g, device=dev).bfloat16()
    v = torch.randn(total, 2, 128, generator=g, device=dev).bfloat16()
    o, lse = attn.attention(q, k, v, causal=True, return_lse=True,
                            cu_seqlens_q=cu, cu_seqlens_k=cu)
    assert o.shape == q.shape and lse.shape == (4, total)
    for i in range(len(lens)):
        a, b = int(cu[i]), int(cu[i + 1])
        want_o, want_lse = reference(q[None, a:b], k[None, a:b],
                                     v[None, a:b], True)
        check(o[None, a:b], lse[None, :, a:b], want_o, want_lse)


def test_out_argument():
    q, k, v = inputs(1, 256, 256, 2, 2, 128, seed=9)
    out = torch.full_like(q, float("nan"))
    r = attn.attention(q, k, v, out=out)
    assert r.data_ptr() == out.data_ptr()
    check(out, None, *reference(q, k, v, False))


def test_torch_compile():
    q, k, v = inputs(1, 512, 512, 2, 2, 128, seed=13)
    attn._op()  # registered before tracing (import does it with torch)

    @torch.compile(fullgraph=True)
    def f(q, k, v):
        return attn.attention(q, k, v, causal=True) * 2

    o = f(q, k, v)
    want, _ = reference(q, k, v, True)
    check(o / 2, None, want, None)


def test_unsupported_inputs_are_named():
    q, k, v = inputs(1, 128, 128, 2, 2, 128)
    with pytest.raises(ValueError, match="head dim 96"):
        attn.attention(*(t[..., :96].contiguous() for t in (q, k, v)))
    with pytest.raises(TypeError, match="float32"):
        attn.attention(q.float(), k.float(), v.float())
    with pytest.raises(ValueError, match="CUDA"):
        attn.attention(q.cpu(), k.cpu(), v.cpu())
    with pytest.raises(ValueError, match="divide"):
        attn.attention(q, k[:, :, :1].repeat(1, 1, 3, 1),
                       v[:, :, :1].repeat(1, 1, 3, 1))
    with pytest.raises(ValueError, match="layout"):
        attn.attention(q, k, v, layout="sbhd")


def test_eager_plain_tensors_skip_the_op_and_grad_inputs_take_it(
        monkeypatch):
    # plain tensors eagerly: launched without torch.ops.ptxtile.attention
    # (its dispatch cost 2-3% at 8x16x4096x128); inputs that record an
    # autograd graph go through the op, whose missing backward autograd
    # reports, instead of a result silently cut from the graph
    import inspect
    q, k, v = inputs(1, 256, 256, 2, 2, 128, seed=17)
    want, _ = reference(q, k, v, False)
    real, via_op = attn._forward, []

    def recording(*a, **kw):
        via_op.append(any(f.function == "_impl" for f in inspect.stack()))
        return real(*a, **kw)
    monkeypatch.setattr(attn, "_forward", recording)
    check(attn.attention(q, k, v), None, want, None)
    assert via_op == [False]
    qg = q.clone().requires_grad_(True)
    with pytest.raises(RuntimeError):
        o = attn.attention(qg, k, v)
        check(o.detach(), None, want, None)
        o.float().sum().backward()
    assert via_op == [False, True]
