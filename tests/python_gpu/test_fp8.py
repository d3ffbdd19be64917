"""GPU tests of the FP8 GEMM scripts (examples/gemm_fp8.py,
gemm_fp8_rowwise.py, gemm_fp8_block.py) and of
ptxtile.kernels.fp8.fp8_matmul: every result against a float32 product of
the dequantized inputs computed by torch (TF32 off), never against our
own output.  Hopper's FP8 wgmma sums with fewer mantissa bits than
float32 and D is bf16, so the bound is a relative Frobenius error (a
wrong tile or scale gives an error near 1) plus NaN sentinels around D."""
import os
import sys

import pytest
import torch

import ptxtile
from conftest import ROOT, capability

sys.path.insert(0, os.path.join(ROOT, "python"))
from ptxtile.kernels import fp8  # noqa: E402

dev = "cuda"
E4, E5 = torch.float8_e4m3fn, torch.float8_e5m2
REL = 1e-2  # relative Frobenius error bound (bf16 output: ~2e-3)


@pytest.fixture(autouse=True)
def hopper():
    if capability()[0] != 9:
        pytest.skip("wgmma is sm_90a only")
    torch.backends.cuda.matmul.allow_tf32 = False


def sms():
    return torch.cuda.get_device_properties(0).multi_processor_count


def fp8_data(rows, k, dtype, seed):
    g = torch.Generator(device=dev).manual_seed(seed)
    return (torch.randn(rows, k, generator=g, device=dev) * 2).to(dtype)


def uniform(shape, lo, hi, seed):
    g = torch.Generator(device=dev).manual_seed(seed)
    return torch.rand(*shape, generator=g, device=dev) * (hi - lo) + lo


def expand_blocks(s, rows, k, block_rows):
    """(ceil(rows/block_rows), ceil(k/128)) block scales -> (rows, k)."""
    return s.repeat_interleave(block_rows, 0)[:rows].repeat_interleave(
        128, 1)[:, :k]


def rel_err(d, ref):
    return ((d.float() - ref).norm() / ref.norm()).item()


def out_with_sentinel(m, n):
    cc = torch.full((m + 1, n), float("nan"), device=dev, dtype=torch.bfloat16)
    return cc, cc[:m]


SHAPES = [(128, 256, 256), (1, 8, 16), (129, 264, 144), (300, 520, 400),
          (1000, 1000, 1008), (4096, 4096, 4096)]


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_fp8(m, n, k):
    a, b = fp8_data(m, k, E4, 1), fp8_data(n, k, E4, 2)
    sa = torch.tensor([0.75], device=dev)
    sb = torch.tensor([0.125], device=dev)
    cc, c = out_with_sentinel(m, n)
    fp8.kernel("tensor")(a, b, c, sa, sb, sms())
    ref = (a.float() @ b.float().t()) * (0.75 * 0.125)
    torch.cuda.synchronize()
    assert rel_err(c, ref) < REL
    assert torch.isnan(cc[m].float()).all()


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_fp8_rowwise(m, n, k):
    a, b = fp8_data(m, k, E4, 3), fp8_data(n, k, E4, 4)
    sa, sb = uniform((m,), 0.25, 2.0, 5), uniform((n,), 0.01, 0.1, 6)
    cc, c = out_with_sentinel(m, n)
    fp8.kernel("row")(a, b, c, sa, sb, sms())
    ref = (a.float() * sa[:, None]) @ (b.float() * sb[:, None]).t()
    torch.cuda.synchronize()
    assert rel_err(c, ref) < REL
    assert torch.isnan(cc[m].float()).all()


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_fp8_block(m, n, k):
    kb, nb, ms = -(-k // 128), -(-n // 128), -(-m // 4) * 4
    a, b = fp8_data(m, k, E4, 7), fp8_data(n, k, E4, 8)
    sa = uniform((kb, ms), 0.25, 4.0, 9)      # (KB, MS), M contiguous
    sb = uniform((nb, kb), 2.0 ** -8, 2.0 ** -4, 10)
    cc, c = out_with_sentinel(m, n)
    fp8.kernel("block")(a, b, c, sa, sb, sms())
    da = a.float() * expand_blocks(sa[:, :m].t(), m, k, 1)
    db = b.float() * expand_blocks(sb, n, k, 128)
    ref = da @ db.t()
    torch.cuda.synchronize()
    assert rel_err(c, ref) < REL
    assert torch.isnan(cc[m].float()).all()


def test_block_one_cta_many_tiles():
    # sms = 1: one cluster walks every 256 x 128 block, the ring of ST
    # stages continuing across them
    m, n, k = 300, 504, 1024
    a, b = fp8_data(m, k, E4, 11), fp8_data(n, k, E4, 12)
    sa = uniform((8, 300), 0.5, 2.0, 13)
    sb = uniform((4, 8), 0.5, 2.0, 14)
    c = torch.full((m, n), float("nan"), device=dev, dtype=torch.bfloat16)
    fp8.kernel("block")(a, b, c, sa, sb, 1)
    ref = (a.float() * expand_blocks(sa.t(), m, k, 1)) @ (
        b.float() * expand_blocks(sb, n, k, 128)).t()
    torch.cuda.synchronize()
    assert rel_err(c, ref) < REL


@pytest.mark.parametrize("ta,tb", [(E5, E4), (E4, E5), (E5, E5)])
@pytest.mark.parametrize("mode", ["tensor", "row", "block"])
def test_e5m2_operands(mode, ta, tb):
    m, n, k = 256, 512, 512
    a, b = fp8_data(m, k, ta, 15), fp8_data(n, k, tb, 16)
    if mode == "tensor":
        sa, sb = torch.tensor(0.5, device=dev), torch.tensor(0.25, device=dev)
        ref = a.float() @ b.float().t() * 0.125
    elif mode == "row":
        sa, sb = uniform((m, 1), 0.5, 2, 17), uniform((1, n), 0.5, 2, 18)
        ref = (a.float() * sa) @ (b.float() * sb.t()).t()
    else:
        sa = uniform((k // 128, m), 0.5, 2, 19).t()   # torch's (M, KB), strides (1, M)
        sb = uniform((n // 128, k // 128), 0.5, 2, 20)
        ref = (a.float() * expand_blocks(sa, m, k, 1)) @ (
            b.float() * expand_blocks(sb, n, k, 128)).t()
    d = fp8.fp8_matmul(a, b, sa, sb)
    torch.cuda.synchronize()
    assert d.dtype == torch.bfloat16 and d.shape == (m, n)
    assert rel_err(d, ref) < REL


@pytest.mark.parametrize("m", [64, 130, 4096])
def test_fp8_matmul_block_layouts(m):
    # scale_a in torch's column-major (1, M) layout (no copy when M % 4
    # == 0) and row-major (a copy into (KB, MS)); ragged M (MS = M + 2)
    n, k = 2112, 7168
    a, b = fp8_data(m, k, E4, 21), fp8_data(n, k, E4, 22)
    sb = uniform((17, 56), 0.5, 2, 23)
    ref_b = b.float() * expand_blocks(sb, n, k, 128)
    for sa in (uniform((56, m), 0.5, 2, 24).t(),
               uniform((m, 56), 0.5, 2, 25)):
        d = fp8.fp8_matmul(a, b, sa, sb)
        ref = (a.float() * expand_blocks(sa, m, k, 1)) @ ref_b.t()
        torch.cuda.synchronize()
        assert rel_err(d, ref) < REL


def test_fp8_matmul_out_and_modes():
    m, n, k = 200, 264, 384
    a, b = fp8_data(m, k, E4, 26), fp8_data(n, k, E4, 27)
    af, bf = a.float(), b.float()
    sa1, sb1 = torch.tensor([2.0], device=dev), torch.tensor([0.5], device=dev)
    out = torch.full((m, n), float("nan"), device=dev, dtype=torch.bfloat16)
    r = fp8.fp8_matmul(a, b, sa1, sb1, out=out)
    torch.cuda.synchronize()
    assert r.data_ptr() == out.data_ptr()
    assert rel_err(out, af @ bf.t()) < REL
    # one tensor-wise side broadcast against a row-wise one
    sb = uniform((n,), 0.5, 2, 28)
    d = fp8.fp8_matmul(a, b, sa1, sb)
    torch.cuda.synchronize()
    assert rel_err(d, 2.0 * af @ (bf * sb[:, None]).t()) < REL


@pytest.mark.parametrize("what,exc,msg", [
    ("a_dtype", TypeError, "float8_e4m3fn"),
    ("k", ValueError, "multiple of 16"),
    ("n", ValueError, "multiple of 8"),
    ("kmismatch", ValueError, "same K"),
    ("stride", ValueError, "K-contiguous"),
    ("scale_dtype", TypeError, "float32"),
    ("scale_shape", ValueError, "match no scaling mode"),
    ("out_dtype", ValueError, "out_dtype"),
    ("out_shape", ValueError, "out must be"),
])
def test_fp8_matmul_errors(what, exc, msg):
    m, n, k = 128, 256, 256
    a, b = fp8_data(m, k, E4, 29), fp8_data(n, k, E4, 30)
    sa, sb = torch.tensor([1.0], device=dev), torch.tensor([1.0], device=dev)
    kw = {}
    if what == "a_dtype":
        a = a.to(torch.bfloat16)
    elif what == "k":
        a, b = a[:, :200].contiguous(), b[:, :200].contiguous()
    elif what == "n":
        b = b[:250]
    elif what == "kmismatch":
        b = b[:, :128].contiguous()
    elif what == "stride":
        a = fp8_data(k, m, E4, 31).t()
    elif what == "scale_dtype":
        sa = sa.double()
    elif what == "scale_shape":
        sa = torch.ones(m, 3, device=dev)
    elif what == "out_dtype":
        kw["out_dtype"] = torch.float16
    elif what == "out_shape":
        kw["out"] = torch.empty(m, n + 8, device=dev, dtype=torch.bfloat16)
    with pytest.raises(exc) as e:
        fp8.fp8_matmul(a, b, sa, sb, **kw)
    assert msg in str(e.value)


def test_fp8_matmul_torch_compile():
    # the custom op ptxtile::fp8_matmul inside a compiled function
    m, n, k = 256, 256, 512
    a, b = fp8_data(m, k, E4, 32), fp8_data(n, k, E4, 33)
    sa, sb = uniform((m, 1), 0.5, 2, 34), uniform((1, n), 0.5, 2, 35)

    @torch.compile(fullgraph=True)
    def f(a, b, sa, sb):
        return fp8.fp8_matmul(a, b, sa, sb).float() * 2.0

    d = f(a, b, sa, sb)
    ref = 2.0 * (a.float() * sa) @ (b.float() * sb.t()).t()
    torch.cuda.synchronize()
    assert rel_err(d, ref) < REL


@pytest.mark.parametrize("mode", ["tensor", "row", "block"])
def test_against_torch_scaled_mm(mode):
    # where this torch's _scaled_mm takes the mode, both results are
    # within the bound of the float32 reference and of each other
    m, n, k = 512, 1024, 1024
    a, b = fp8_data(m, k, E4, 36), fp8_data(n, k, E4, 37)
    if mode == "tensor":
        sa, sb = torch.tensor(0.5, device=dev), torch.tensor(0.25, device=dev)
        tsa, tsb = sa, sb
    elif mode == "row":
        sa, sb = uniform((m, 1), 0.5, 2, 38), uniform((1, n), 0.5, 2, 39)
        tsa, tsb = sa, sb
    else:
        sa = uniform((k // 128, m), 0.5, 2, 40).t()
        sb = uniform((n // 128, k // 128), 0.5, 2, 41)
        tsa, tsb = sa, sb.t()
    try:
        t = torch._scaled_mm(a, b.t(), scale_a=tsa, scale_b=tsb,
                             out_dtype=torch.bfloat16)
    except (RuntimeError, NotImplementedError, ValueError) as e:
        pytest.skip("torch._scaled_mm has no %s mode here: %s" % (mode, e))
    d = fp8.fp8_matmul(a, b, sa, sb)
    torch.cuda.synchronize()
    assert rel_err(d, t.float()) < REL


@pytest.mark.parametrize("mode", ["tensor", "row", "block"])
def test_every_config_and_float32_out(mode):
    # every (BN, ST) that fp8_matmul may pick, bf16 and float32 C, at a
    # ragged shape, against the float32 reference
    m, n, k = 1000, 1000, 1008
    kb, nb = -(-k // 128), -(-n // 128)
    a, b = fp8_data(m, k, E4, 42), fp8_data(n, k, E4, 43)
    if mode == "tensor":
        sa, sb = torch.tensor([0.5], device=dev), torch.tensor([2.0], device=dev)
        ref = a.float() @ b.float().t()
    elif mode == "row":
        sa, sb = uniform((m,), 0.5, 2, 44), uniform((n,), 0.5, 2, 45)
        ref = (a.float() * sa[:, None]) @ (b.float() * sb[:, None]).t()
    else:
        sa = uniform((kb, m), 0.5, 2, 46)
        sb = uniform((nb, kb), 0.5, 2, 47)
        ref = (a.float() * expand_blocks(sa.t(), m, k, 1)) @ (
            b.float() * expand_blocks(sb, n, k, 128)).t()
    for cfg in fp8.CONFIGS[mode] + fp8.UNTUNED[mode]:
        bn, st, db = fp8.config_values(cfg)
        for out, dt, bound in (("bfloat16", torch.bfloat16, REL),
                               ("float32", torch.float32, 2e-3)):
            c = torch.full((m, n), float("nan"), device=dev, dtype=dt)
            fp8.kernel(mode, BN=bn, ST=st, DB=db, out=out)(a, b, c, sa, sb, sms())
            torch.cuda.synchronize()
            assert rel_err(c, ref) < bound, (cfg, dt)


def test_fp8_matmul_float32_out():
    m, n, k = 300, 520, 400
    a, b = fp8_data(m, k, E4, 48), fp8_data(n, k, E4, 49)
    sa, sb = uniform((m, 1), 0.5, 2, 50), uniform((1, n), 0.5, 2, 51)
    d = fp8.fp8_matmul(a, b, sa, sb, out_dtype=torch.float32)
    ref = (a.float() * sa) @ (b.float() * sb.t()).t()
    torch.cuda.synchronize()
    assert d.dtype == torch.float32
    assert rel_err(d, ref) < 2e-3
    out = torch.empty(m, n, device=dev)
    fp8.fp8_matmul(a, b, sa, sb, out_dtype=torch.float32, out=out)
    torch.cuda.synchronize()
    assert torch.equal(out, d)


@pytest.mark.parametrize("mode,ta,tb", [("tensor", E4, E4), ("row", E4, E5),
                                        ("block", E4, E4)])
def test_fp8_swapab_every_candidate(mode, ta, tb):
    # every float8 swap-AB configuration fp8_matmul may time (M <=
    # fp8.SWAP_M), launched directly at a ragged shape (N past the last
    # 64-row weight tile, K past the last 128-wide k-tile), split-K
    # included, bf16 C with a NaN sentinel row below it
    from ptxtile.kernels import _gemm
    m, n, k = 40, 200, 656
    a, b = fp8_data(m, k, ta, 50), fp8_data(n, k, tb, 51)
    if mode == "tensor":
        sa, sb = torch.tensor([0.5], device=dev), torch.tensor([0.25], device=dev)
        ref = a.float() @ b.float().t() * 0.125
    elif mode == "row":
        sa, sb = uniform((m,), 0.5, 2, 52), uniform((n,), 0.5, 2, 53)
        ref = (a.float() * sa[:, None]) @ (b.float() * sb[:, None]).t()
    else:
        # per 1 x 128 of A and 128 x 128 of B (K = 656: 6 K blocks, the
        # last 16 wide; N = 200: 2 row blocks), as fp8_matmul passes them
        ba, bb = uniform((m, 6), 0.5, 2, 52), uniform((2, 6), 0.5, 2, 53)
        ref = (a.float() * expand_blocks(ba, m, k, 1)) @ \
            (b.float() * expand_blocks(bb, n, k, 128)).t()
        sa, sb = fp8._swap_scales(*fp8.scale_args("block", ba, bb, m, n, k))
    names = {E4: "float8_e4m3fn", E5: "float8_e5m2"}
    cands = _gemm.configs(m, n, k, fp8=(names[ta], names[tb],
                                        fp8._SWAP_SCALE[mode]))
    assert cands
    _gemm.GEMM.prepare(cands)  # ptxas in parallel threads
    for script, c in cands:
        cc, c_out = out_with_sentinel(m, n)
        _gemm.GEMM.launch(script, c, a, b, c_out, sx=sa, sw=sb)
        torch.cuda.synchronize()
        assert rel_err(c_out, ref) < REL, _gemm.config_name(script, c)
        assert torch.isnan(cc[m]).all(), _gemm.config_name(script, c)


@pytest.mark.parametrize("mode,m", [("tensor", 64), ("row", 100),
                                    ("block", 102)])
def test_fp8_matmul_few_rows(mode, m):
    # at M <= SWAP_M fp8_matmul times the tuned fp8 kernel against the
    # float8 swap-AB candidates and keeps the faster: either is right
    n, k = 2112, 1024
    a, b = fp8_data(m, k, E4, 54), fp8_data(n, k, E4, 55)
    if mode == "tensor":
        sa, sb = torch.tensor(2.0, device=dev), torch.tensor(0.5, device=dev)
        ref = a.float() @ b.float().t()
    elif mode == "row":
        sa, sb = uniform((m, 1), 0.5, 2, 56), uniform((1, n), 0.5, 2, 57)
        ref = (a.float() * sa) @ (b.float() * sb.t()).t()
    else:
        # row-major scale_a (M = 102: copied into (KB, 104))
        sa, sb = uniform((m, 8), 0.5, 2, 56), uniform((17, 8), 0.5, 2, 57)
        ref = (a.float() * expand_blocks(sa, m, k, 1)) @ \
            (b.float() * expand_blocks(sb, n, k, 128)).t()
    for _ in range(2):  # the tuned call, then the remembered choice
        d = fp8.fp8_matmul(a, b, sa, sb)
        torch.cuda.synchronize()
        assert d.shape == (m, n) and rel_err(d, ref) < REL
