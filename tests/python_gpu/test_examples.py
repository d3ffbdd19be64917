"""Every example of examples/ compiled with ptxtile.compile (target=None:
the device's target) and launched with torch tensors on torch's current
stream; results compared with torch computations on the inputs.  The
sm_100a examples are compile-only on an older device."""
import math

import pytest
import torch

import ptxtile
from conftest import capability, example

dev = "cuda"


def compiled(name):
    k = ptxtile.compile(example(name))
    assert k.target == ptxtile.target_for_capability(*capability())
    return k


def rand(*shape, lo=-4.0, hi=4.0, seed=0, dtype=torch.float32):
    g = torch.Generator(device=dev).manual_seed(seed)
    return (torch.rand(*shape, generator=g, device=dev) * (hi - lo) +
            lo).to(dtype)


def test_saxpy_relu():
    k = compiled("saxpy_relu.py")
    n = 1000003  # odd: the guard and the grid-stride loop
    x, y = rand(n, seed=1), rand(n, seed=2)
    want = torch.relu(2.5 * x.double() + y.double()).float()
    k(x, y, 2.5)
    torch.cuda.synchronize()
    torch.testing.assert_close(y, want, rtol=2e-7, atol=1e-6)


def test_ewise_silu():
    k = compiled("ewise_silu.py")
    n = 100003
    x = rand(n, lo=-25, hi=12, seed=3)
    x[7] = -40.0  # the flush-to-zero branch
    y = torch.full_like(x, float("nan"))
    k(x, y, 1.5)
    v = 1.5 * x.double()
    want = torch.where(v < -30, torch.zeros_like(v), v * torch.sigmoid(v))
    torch.cuda.synchronize()
    torch.testing.assert_close(y.double(), want, rtol=1e-5, atol=1e-6)
    assert y[7].item() == 0.0


def test_cluster_copy_reference_usage():
    # the reference's own usage: compile(cluster_copy)(a, b), assert_close
    k = compiled("cluster_copy.py")
    a = torch.randn(64, device=dev)
    b = torch.zeros(64, device=dev)
    k(a, b)
    torch.cuda.synchronize()
    torch.testing.assert_close(b, a, rtol=0, atol=0)


def test_cp_async_zero_fill():
    k = compiled("cp_async_zero_fill.py")
    g = torch.Generator(device=dev).manual_seed(4)
    a = torch.randint(1, 256, (32, 16), generator=g, device=dev,
                      dtype=torch.uint8)
    for valid in (0, 20, 32):
        b = torch.full_like(a, 0xAB)
        k(a, b, valid)
        want = a.clone()
        want[valid:] = 0
        torch.cuda.synchronize()
        assert torch.equal(b, want), valid


def test_ld_st():
    k = compiled("ld_st.py")
    a = torch.randn(2, 32, 3, 4, device=dev)
    b = torch.zeros_like(a)
    k(a, b)
    # thread t writes the 12 values of thread t+1 (mod 64)
    want = torch.roll(a.reshape(64, 12), shifts=-1, dims=0).reshape(a.shape)
    torch.cuda.synchronize()
    assert torch.equal(b, want)


def f16_bits(t):
    return t.half().view(torch.int16).to(torch.int64) & 0xFFFF


def test_register_ops():
    k = compiled("register_ops.py")
    n = 1024
    x = rand(n, seed=5)
    y = rand(n, lo=0.5, hi=4.0, seed=6) * torch.where(
        rand(n, seed=7) < 0, -1.0, 1.0)  # |y| in [0.5, 4): div, rcp, lg2
    f = torch.full((n, 16), float("nan"), device=dev)
    u = torch.zeros((n, 4), device=dev, dtype=torch.int32).view(torch.uint32)
    k(x, y, f, u)
    torch.cuda.synchronize()
    xd, yd = x.double(), y.double()
    s = (x + y)
    exact = {0: x + y, 1: 1.0 - x, 2: x * y, 4: x / y, 7: x.abs(), 8: -x,
             11: torch.minimum(x, y), 12: torch.maximum(x, y),
             13: (y.half() * 2).float(), 14: (x.half() * 2).float(), 15: x}
    for col, want in exact.items():
        assert torch.equal(f[:, col], want), col
    # fma: one rounding of x*y + s (x*y is exact in float64)
    torch.testing.assert_close(f[:, 3], (xd * yd + s.double()).float(),
                               rtol=1.2e-7, atol=0)
    torch.testing.assert_close(f[:, 6], torch.sqrt(x.abs()), rtol=1.2e-7,
                               atol=0)
    # approximate forms within their documented error
    torch.testing.assert_close(f[:, 5].double(), 1.0 / yd, rtol=2e-7,
                               atol=0)
    torch.testing.assert_close(f[:, 9].double(), torch.exp2(xd),
                               rtol=2 ** -21, atol=0)
    torch.testing.assert_close(f[:, 10].double(), torch.log2(yd.abs()),
                               rtol=2 ** -21, atol=2 ** -21)
    ui = u.view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    h = (f16_bits(x) << 16) | f16_bits(y)
    h2 = (f16_bits(x.half() * 2) << 16) | f16_bits(y.half() * 2)
    assert torch.equal(ui[:, 0], h)
    assert torch.equal(ui[:, 1], h2)
    assert torch.equal(ui[:, 2], torch.zeros_like(h))
    assert torch.equal(ui[:, 3], h)  # low word of {h, h2}


def test_tma_load_3d_steps():
    k = compiled("tma_load_3d_steps.py")
    x = torch.randn(8, 64, 32, device=dev)
    y = torch.zeros_like(x)
    k(x, y)
    torch.cuda.synchronize()
    assert torch.equal(y, x)


def test_tma_load_swizzle():
    k = compiled("tma_load_swizzle.py")
    m = 256
    a = torch.randn(m, 64, device=dev).half()
    b = torch.zeros_like(a)
    raw = torch.zeros_like(a)
    k(a, b, raw)
    torch.cuda.synchronize()
    assert torch.equal(b, a)
    # 128-byte swizzle: storage byte S holds the logical byte
    # S ^ (((S >> 7) & 7) << 4) of each 8 KiB tile (64 rows of 128 bytes)
    p = torch.arange(64 * 64, device=dev)
    logical = (2 * p) ^ ((((2 * p) >> 7) & 7) << 4)
    tiles = a.reshape(m // 64, 64 * 64)
    assert torch.equal(raw.reshape(m // 64, 64 * 64), tiles[:, logical // 2])
    assert not torch.equal(raw, a)  # the image really is swizzled


def test_tma_multicast():
    k = compiled("tma_multicast.py")
    m = 128
    a = torch.randn(m, 64, device=dev)
    b = torch.zeros(2 * m, 64, device=dev)
    k(a, b)
    torch.cuda.synchronize()
    want = a.reshape(m // 32, 1, 32, 64).expand(m // 32, 2, 32, 64)
    assert torch.equal(b.reshape(m // 32, 2, 32, 64), want)


def test_tma_reduce_add():
    k = compiled("tma_reduce_add.py")
    x = torch.randn(128, 64, device=dev)
    d = torch.randn(128, 64, device=dev)
    want = d + x
    k(x, d)
    torch.cuda.synchronize()
    assert torch.equal(d, want)


def test_tma_store():
    k = compiled("tma_store.py")
    m = 128
    c = torch.zeros(m, 64, device=dev)
    k(c)
    b = torch.arange(m, device=dev).reshape(m, 1) // 32
    r = torch.arange(m, device=dev).reshape(m, 1) % 32
    col = torch.arange(64, device=dev).reshape(1, 64)
    torch.cuda.synchronize()
    assert torch.equal(c, (1000 * b + 64 * r + col).float())


def test_gemm_bf16():
    k = compiled("gemm_bf16.py")
    g = torch.Generator(device=dev).manual_seed(8)
    a = torch.randn(4096, 4096, generator=g, device=dev).bfloat16()
    b = torch.randn(4096, 4096, generator=g, device=dev).bfloat16()
    c = torch.zeros(4096, 4096, device=dev, dtype=torch.bfloat16)
    k(a, b, c)
    ref = a.float() @ b.float().t()  # float32, no TF32 (torch's default)
    torch.cuda.synchronize()
    d = c.float() - ref
    assert (d.norm() / ref.norm()).item() < 1e-2
    # bf16 output: within one bf16 rounding of the float32 result
    assert (d.abs() <= ref.abs() * 2 ** -8 + 1e-3).all()


@pytest.mark.parametrize("n", [1, 127, 1000, 4099])
def test_vcopy_dynamic(n):
    # a runtime size, ragged against the 128-thread block; the row past
    # the end (a sentinel) must stay untouched
    k = compiled("vcopy_dynamic.py")
    a = rand(n + 1, 4, seed=n)
    b = torch.full((n + 1, 4), -7.0, device=dev)
    k(a[:n], b[:n])
    torch.cuda.synchronize()
    assert torch.equal(b[:n], a[:n])
    assert torch.equal(b[n], torch.full((4,), -7.0, device=dev))


def sm_count():
    return torch.cuda.get_device_properties(0).multi_processor_count


@pytest.mark.parametrize("script,m,n,k", [
    ("gemm_wgmma.py", 1, 8, 8), ("gemm_wgmma.py", 129, 264, 72),
    ("gemm_wgmma.py", 1000, 1000, 1000), ("gemm_wgmma.py", 300, 520, 136),
    ("gemm_wgmma.py", 4096, 4096, 4096),
    ("gemm_wgmma_direct.py", 1, 8, 8), ("gemm_wgmma_direct.py", 129, 257, 72),
    ("gemm_wgmma_direct.py", 1000, 1000, 1000),
    ("gemm_wgmma_direct.py", 300, 520, 136),
    ("gemm_wgmma_direct.py", 4096, 4096, 4096)])
def test_gemm_wgmma(script, m, n, k):
    # runtime sizes, ragged against the 128 x 256 x 64 tiles (zero fill
    # past M, N, K; TMA stores clipped at M, N, or masked direct stores,
    # b16 halves for odd N); the grid is min(SM count, tiles), and a
    # sentinel row past C stays untouched
    if capability()[0] != 9:
        pytest.skip("wgmma is sm_90a only")
    k_wg = compiled(script)
    g = torch.Generator(device=dev).manual_seed(9)
    a = torch.randn(m, k, generator=g, device=dev).bfloat16()
    b = torch.randn(n, k, generator=g, device=dev).bfloat16()
    cc = torch.full((m + 1, n), float("nan"), device=dev,
                    dtype=torch.bfloat16)
    c = cc[:m]
    k_wg(a, b, c, sm_count())
    ref = a.float() @ b.float().t()  # float32, no TF32 (torch's default)
    torch.cuda.synchronize()
    d = c.float() - ref
    # bf16 output: within one bf16 rounding (2^-8 relative) of the
    # float32 product, plus 1e-3 for the different summation order
    assert (d.abs() <= ref.abs() * 2 ** -8 + 1e-3).all()
    assert torch.isnan(cc[m].float()).all()


def test_attention_fwd():
    # the model attention kernel as written (d128 bf16, non-causal),
    # ragged seq_q != seq_k, GQA; float32 torch reference
    # (tests/python_gpu/test_attention.py covers the variants)
    if capability() != (9, 0):
        pytest.skip("wgmma is sm_90a only")
    kern = compiled("attention_fwd.py")
    g = torch.Generator(device=dev).manual_seed(4)
    q = torch.randn(2, 300, 4, 128, generator=g, device=dev).bfloat16()
    k = torch.randn(2, 700, 2, 128, generator=g, device=dev).bfloat16()
    v = torch.randn(2, 700, 2, 128, generator=g, device=dev).bfloat16()
    o = torch.full_like(q, float("nan"))
    lse = torch.empty(2, 4, 300, device=dev)
    kern(q, k, v, o, lse, 128 ** -0.5 * math.log2(math.e))
    s = torch.einsum("bqhd,bkhd->bhqk", q.float(),
                     k.float().repeat_interleave(2, dim=2)) * 128 ** -0.5
    want = torch.einsum("bhqk,bkhd->bqhd", torch.softmax(s, -1),
                        v.float().repeat_interleave(2, dim=2))
    torch.cuda.synchronize()
    assert (o.float() - want).abs().max().item() < 2e-2
    assert (lse - torch.logsumexp(s, -1)).abs().max().item() < 1e-3


@pytest.mark.parametrize("script", ["gemm_wgmma.py", "gemm_wgmma_direct.py"])
def test_gemm_wgmma_one_cta_many_tiles(script):
    # sms = 1: one 2-CTA cluster walks all four 256 x 256 blocks, its
    # ring continuing (M = 300: the second row of blocks' rank-1 CTA is
    # all zero fill); N = 504 for the TMA store (N % 8 == 0)
    if capability()[0] != 9:
        pytest.skip("wgmma is sm_90a only")
    k_wg = compiled(script)
    g = torch.Generator(device=dev).manual_seed(10)
    a = torch.randn(300, 200, generator=g, device=dev).bfloat16()
    b = torch.randn(504, 200, generator=g, device=dev).bfloat16()
    c = torch.full((300, 504), float("nan"), device=dev,
                   dtype=torch.bfloat16)
    k_wg(a, b, c, 1)
    ref = a.float() @ b.float().t()
    torch.cuda.synchronize()
    assert ((c.float() - ref).abs() <= ref.abs() * 2 ** -8 + 1e-3).all()


@pytest.mark.parametrize("m,n,k,msg", [
    # TMA row strides are multiples of 16 bytes: K % 8 == 0 (A, B) ...
    (128, 256, 12, "multiple of 16"),
    # ... and N % 8 == 0 for the TMA store's map of C (odd N is
    # gemm_wgmma_direct.py's)
    (128, 257, 64, "C_tmap")])
def test_gemm_wgmma_refuses_strides(m, n, k, msg):
    if capability()[0] != 9:
        pytest.skip("wgmma is sm_90a only")
    k_wg = compiled("gemm_wgmma.py")
    a = torch.zeros(m, k, device=dev, dtype=torch.bfloat16)
    b = torch.zeros(n, k, device=dev, dtype=torch.bfloat16)
    c = torch.zeros(m, n, device=dev, dtype=torch.bfloat16)
    with pytest.raises(ptxtile.LaunchError) as e:
        k_wg(a, b, c, sm_count())
    assert e.value.code == 5015
    assert msg in str(e.value)


SM100 = ["register_ops_sm100.py", "tcgen05_ld_16x32bx2.py",
         "tma_gather4.py", "gemm_mxf8_sm100.py", "tcgen05_gemm.py",
         "gemm_nvf4_sm100.py", "gemm_fp4_f8f6f4_sm100.py"]


@pytest.mark.parametrize("name", SM100)
def test_sm100_examples(name):
    if capability()[0] != 10:
        k = ptxtile.compile(example(name), target="sm_100a")
        assert ".target sm_100a" in k.ptx
        pytest.skip("sm_100a kernel; this device is sm_%d%d (compiled only)"
                    % capability())
    pytest.skip("no torch reference written for %s yet" % name)


def test_every_example_is_covered():
    import glob
    import os
    names = {os.path.basename(p) for p in glob.glob(example("*.py"))}
    tested = {n[5:] + ".py" for n in globals() if n.startswith("test_")}
    tested |= set(SM100) | {"cluster_copy.py"}
    # run by test_gemm_wgmma's parametrisation beside gemm_wgmma.py
    tested |= {"gemm_wgmma_direct.py"}
    # the FP8 GEMMs are tested in test_fp8.py
    tested |= {"gemm_fp8.py", "gemm_fp8_rowwise.py", "gemm_fp8_block.py"}
    # the multi-GPU examples: test_collectives_gpu.py on one GPU (a world
    # of 1), tests/unit/test_emu_mgpu.c on 2 and 4 emulated devices
    tested |= {"allreduce_oneshot.py", "allgather_gemm.py"}
    assert names <= tested, names - tested


def test_python_program_cluster_copy():
    import os
    import subprocess
    import sys
    from conftest import ROOT
    r = subprocess.run([sys.executable, os.path.join(
        ROOT, "examples", "python", "cluster_copy.py")],
        capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "B == A" in r.stdout
