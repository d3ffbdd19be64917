"""The GEMM kernel scripts of python/ptxtile/kernels/scripts in the PTX
emulator, one small configuration of each variant (swap-AB, split-K,
MN-major weights, fused epilogue), against products computed here in
float64 with numpy from the inputs (never from the emulator or the
lowering).  Inputs are multiples of 1/4 in [-1, 1], so every product and
partial sum is exact in float32 and a float32 output must equal the host
sum exactly; 16-bit outputs are compared after the host rounds them."""
import os

import pytest

import ptxtile
from conftest import ROOT

np = pytest.importorskip("numpy")

SCRIPTS = os.path.join(ROOT, "python", "ptxtile", "kernels", "scripts")


def compiled(name, **consts):
    """The script compiled with its module constants overridden
    (ptxtile.compile(..., constants=)); BT implies the wgmma form."""
    if "BT" in consts:
        consts.setdefault("WGMMA", "wgmma.mma_async.sync.aligned.m64n%dk16"
                          ".f32.bf16.bf16" % consts["BT"])
    return ptxtile.compile(os.path.join(SCRIPTS, name), target="sm_90a",
                           cache=False, constants=consts)


def to_bf16(a):
    """float32 values (exact in bf16 here) as bf16 bit patterns."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    return (a.view(np.uint32) >> 16).astype(np.uint16)


def from_bf16(u):
    return (u.astype(np.uint32) << 16).view(np.float32)


def round_bf16(a):
    """float64 -> nearest-even bf16 value, as float64."""
    f = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    f = (f + 0x7FFF + ((f >> 16) & 1)) >> 16 << 16
    return f.astype(np.uint32).view(np.float32).astype(np.float64)


def fp8_quarters(a, kind):
    """Float8 bit patterns of multiples of 1/4 in [-1, 1] (exact in both
    formats: e4m3 bias 7, 3 mantissa bits; e5m2 bias 15, 2 bits)."""
    e4 = {0.0: 0x00, 0.25: 0x28, 0.5: 0x30, 0.75: 0x34, 1.0: 0x38}
    e5 = {0.0: 0x00, 0.25: 0x34, 0.5: 0x38, 0.75: 0x3A, 1.0: 0x3C}
    t = e4 if kind == "e4m3" else e5
    a = np.asarray(a, dtype=np.float64)
    mag = np.vectorize(lambda v: t[abs(float(v))])(a).astype(np.uint8)
    return mag | np.where(a < 0, 0x80, 0).astype(np.uint8)


FP8 = {"float8_e4m3fn": ("e4m3", lambda a: fp8_quarters(a, "e4m3")),
       "float8_e5m2": ("e5m2", lambda a: fp8_quarters(a, "e5m2"))}


def quarters(rng, shape):
    return rng.integers(-4, 5, shape).astype(np.float32) / 4


def run_swapab(m, n, k, *, w_kmajor=True, alpha=1.0, beta=0.0, bias=None,
               resid=None, out="float32", launches=1, fp8=None, sx=None,
               sw=None, **consts):
    """Runs gemm_swapab.py (W_KMAJOR = 0: W stored (K, N)) on random
    quarter-valued inputs; returns (C, X, W, CNT) with X (m, k) and W
    (n, k) as float64."""
    consts.update(OUT=out, BIAS=int(bias is not None),
                  RESID=int(resid is not None), W_KMAJOR=int(w_kmajor))
    if fp8:  # (X type, W type): float8 operands, k32 wgmma
        consts.update(XT=fp8[0], WT=fp8[1], EB=1, WGMMA=(
            "wgmma.mma_async.sync.aligned.m64n%dk32.f32.%s.%s"
            % (consts["BT"], FP8[fp8[1]][0], FP8[fp8[0]][0])))  # A is W
    kern = compiled("gemm_swapab.py", **consts)
    rng = np.random.default_rng(m * 131 + n * 7 + k)
    x, w = quarters(rng, (m, k)), quarters(rng, (n, k))
    enc = (lambda a, t: FP8[t][1](a)) if fp8 else (lambda a, t: to_bf16(a))
    xt, wt_ = fp8 if fp8 else (None, None)
    npdt = {"float32": np.float32, "bfloat16": np.uint16,
            "float16": np.float16}[out]
    c = np.zeros((m, n), dtype=npdt)
    split = consts.get("SPLIT", 1)
    ws = np.zeros((split, m, n), dtype=np.float32)
    cnt = np.zeros((m, n), dtype=np.uint32)
    b = np.zeros(n, np.float32) if bias is None else bias
    r = np.zeros((m, n), dtype=npdt) if resid is None else resid
    wt = enc(w, wt_) if w_kmajor else to_bf16(w.T.copy())
    one = np.ones(1, np.float32)
    for _ in range(launches):
        c[...] = np.nan if out != "bfloat16" else 0x7FC0
        kern.emulate(enc(x, xt), wt, c, b, r, ws, cnt,
                     one if sx is None else sx, one if sw is None else sw,
                     alpha, beta, check_races=True)
    got = from_bf16(c) if out == "bfloat16" else c.astype(np.float64)
    return got, x.astype(np.float64), w.astype(np.float64), cnt


def test_swapab_ragged_two_warpgroups_bf16_out():
    # 13 tokens in a BT = 16 tile, 136 weight rows over three CTAs of
    # BW = 128 (the last ragged), K = 200 over four k-tiles (the last
    # ragged, zero-filled by the map); bf16 output
    got, x, w, _ = run_swapab(13, 136, 200, BT=16, WG=2, STAGES=2,
                              out="bfloat16")
    assert np.array_equal(got, round_bf16(x @ w.T))


def test_swapab_three_warpgroups_split():
    # WG = 3: BW = 192 weight rows per CTA (a TMA box of 192 rows), N =
    # 200 over two CTAs (the second 8 rows), SPLIT = 2 over 3 k-tiles
    got, x, w, cnt = run_swapab(9, 200, 136, BT=16, WG=3, STAGES=2,
                                SPLIT=2)
    assert np.array_equal(got, x @ w.T)
    assert not cnt.any()


def test_swapab_token_tiles_and_bt8():
    # BT = 8 (m64n8k16) and M = 20: three token tiles along grid.z
    got, x, w, _ = run_swapab(20, 64, 64, BT=8, WG=1, STAGES=2)
    assert np.array_equal(got, x @ w.T)


def test_split_k_last_cta_sums_and_resets_the_counters():
    # SPLIT = 3 over 9 k-tiles (K = 520: 3 each, the last ragged); two
    # launches: the counters left at zero by the first let the second
    # reduce again; a counter never reset would leave the output NaN
    # (MINB = 2: .minnctapersm 2, the register cap of two CTAs per SM)
    got, x, w, cnt = run_swapab(5, 70, 520, BT=8, WG=1, STAGES=2, SPLIT=3,
                                launches=2, MINB=2)
    assert np.array_equal(got, x @ w.T)
    assert not cnt.any()


def test_split_k_summed_in_one_cluster():
    # CRED = 1: the three K splits of a tile are one cluster (grid y);
    # CTAs 1 and 2 store their partials into CTA 0's shared memory
    # (mapa + st.shared::cluster between two cluster barriers), CTA 0
    # adds them in split order and stores C.  7 tokens, 70 weight rows
    # (two CTAs along x, the second ragged), K = 520 over 9 k-tiles;
    # WS and CNT are not touched
    got, x, w, cnt = run_swapab(7, 70, 520, BT=8, WG=1, STAGES=2, SPLIT=3,
                                CRED=1, launches=2)
    assert np.array_equal(got, x @ w.T)
    assert not cnt.any()


def test_split_k_in_one_cluster_two_warpgroups_bias_bf16_out():
    # CRED = 1 with BW = 128 (256 consumer threads, each with its own
    # column of the partial buffer), 2 splits over 5 k-tiles (the second
    # split ragged), 20 tokens in a 24-token tile, bias and bf16 output
    rng = np.random.default_rng(7)
    bias = quarters(rng, (136,))
    got, x, w, _ = run_swapab(20, 136, 296, BT=24, WG=2, STAGES=2,
                              SPLIT=2, CRED=1, bias=bias, out="bfloat16")
    assert np.array_equal(got, round_bf16(x @ w.T + bias))


def test_split_k_more_splits_than_k_tiles():
    # 4 splits of 2 k-tiles: splits 1..3 hold 1, 0, 0 k-tiles; an empty
    # split contributes zeros and still counts
    got, x, w, cnt = run_swapab(3, 64, 72, BT=8, WG=1, STAGES=2, SPLIT=4)
    assert np.array_equal(got, x @ w.T)
    assert not cnt.any()


def test_ring_of_three_stages_wraps_with_split():
    # STAGES = 3 (not a power of two: the ring index is unsigned
    # arithmetic) over 11 k-tiles (K = 680), the ring wrapping three
    # times in the first split; SPLIT = 2 starts the second split's ring
    # at stage 0 again
    got, x, w, cnt = run_swapab(6, 64, 680, BT=8, WG=1, STAGES=3, SPLIT=2)
    assert np.array_equal(got, x @ w.T)
    assert not cnt.any()


def test_fp8_row_scaled_split_ring_of_three():
    # float8 e4m3 X and W (k32 wgmma, 128 k per 128-byte row): K = 320
    # over three k-tiles (the last half zero-filled), SPLIT = 2, STAGES =
    # 3; row-wise scales SX[m] SW[n] (powers of two: the scaled float32
    # sums stay exact)
    m, n, k = 6, 70, 320
    rng = np.random.default_rng(5)
    sx = np.ldexp(1.0, rng.integers(-3, 4, m)).astype(np.float32)
    sw = np.ldexp(1.0, rng.integers(-3, 4, n)).astype(np.float32)
    got, x, w, cnt = run_swapab(m, n, k, BT=8, WG=1, STAGES=3, SPLIT=2,
                                SCALE=2, fp8=("float8_e4m3fn",
                                              "float8_e4m3fn"),
                                sx=sx, sw=sw)
    assert np.array_equal(got, (x @ w.T) * sx[:, None] * sw[None, :])
    assert not cnt.any()


def test_fp8_tensor_scaled_e5m2_weights_bf16_out():
    # e4m3 X, e5m2 W, tensor-wise SX[0] SW[0] = 0.5 * 4 with alpha 0.25,
    # two warpgroups, bf16 C
    m, n, k = 9, 136, 256
    got, x, w, _ = run_swapab(m, n, k, BT=16, WG=2, STAGES=2, SCALE=1,
                              fp8=("float8_e4m3fn", "float8_e5m2"),
                              sx=np.array([0.5], np.float32),
                              sw=np.array([4.0], np.float32), alpha=0.25,
                              out="bfloat16")
    assert np.array_equal(got, round_bf16(0.5 * (x @ w.T)))


def block_scales(rng, m, n, k):
    """Block-wise scales as fp8.scale_args passes them to gemm_swapab.py
    (SCALE 3): SX (KB, MS) flattened, MS = m rounded up to 4 (the columns
    past m stay 0), SW (NB, KB) flattened; powers of two, different per
    K block, token and 128-row weight block, so that the float32 sums
    stay exact and a scale applied to the wrong block changes them."""
    kb, nbk, ms = -(-k // 128), -(-n // 128), -(-m // 4) * 4
    sx = np.zeros((kb, ms), np.float32)
    sx[:, :m] = np.ldexp(1.0, rng.integers(-3, 4, (kb, m)))
    sw = np.ldexp(1.0, rng.integers(-3, 4, (nbk, kb))).astype(np.float32)
    return sx, sw


def block_scaled_product(x, w, sx, sw):
    """sum over K blocks kb of (X W^T restricted to kb) SX[kb, m] SW[n /
    128, kb], in float64 (the definition, not the kernel's order)."""
    m, n = x.shape[0], w.shape[0]
    out = np.zeros((m, n))
    for kb in range(sx.shape[0]):
        part = x[:, 128 * kb:128 * kb + 128] @ w[:, 128 * kb:128 * kb + 128].T
        out += part * sx[kb, :m, None] * np.repeat(sw[:, kb], 128)[None, :n]
    return out


@pytest.mark.parametrize("consts,out", [
    # one warpgroup, 8 tokens, no split: weight rows 0-127 and 128-199
    # (CTAs 0, 1 and 2, 3) in two scale blocks, K = 320 three K blocks
    # (the last one 64 wide), a ring of two stages that wraps
    ({"BT": 8, "WG": 1, "STAGES": 2, "SPLIT": 1}, "float32"),
    # two warpgroups (one 128-row block per CTA), 16 tokens, split 2
    # summed in one cluster, bf16 C
    ({"BT": 16, "WG": 2, "STAGES": 3, "SPLIT": 2, "CRED": 1}, "bfloat16"),
])
def test_fp8_block_scaled_two_level(consts, out):
    m, n, k = 6, 200, 320
    sx, sw = block_scales(np.random.default_rng(11), m, n, k)
    got, x, w, _ = run_swapab(m, n, k, SCALE=3, out=out,
                              fp8=("float8_e4m3fn", "float8_e4m3fn"),
                              sx=sx.reshape(-1), sw=sw.reshape(-1),
                              **consts)
    want = block_scaled_product(x, w, sx, sw)
    if out == "bfloat16":
        want = round_bf16(want)
    assert np.array_equal(got, want)
    # the scales matter per block: the product scaled by their means is
    # not the result
    mean = (x @ w.T) * sx[:, :m].mean() * sw.mean()
    assert not np.allclose(got, mean)


def gelu_tanh(v):
    u = 0.7978845608028654 * (v + 0.044715 * v ** 3)
    return 0.5 * v * (1 + np.tanh(u))


@pytest.mark.parametrize("act,fn", [
    (1, lambda v: np.maximum(v, 0)),
    (2, gelu_tanh),
    (3, lambda v: np.where(v < -30, 0, v / (1 + np.exp(-v)))),
])
def test_fused_epilogue_alpha_bias_activation_residual(act, fn):
    # y = act(alpha acc + bias[n]) + beta R[m, n], float32 out; the
    # activation is evaluated in float32 on the device (tanh.approx and
    # ex2.approx), hence the tolerance
    m, n, k = 9, 72, 128
    rng = np.random.default_rng(act)
    bias = quarters(rng, (n,))
    resid = quarters(rng, (m, n))
    got, x, w, _ = run_swapab(m, n, k, BT=16, WG=1, STAGES=3, ACT=act,
                              alpha=0.5, beta=2.0, bias=bias, resid=resid,
                              SPLIT=2)
    want = fn(0.5 * (x @ w.T) + bias) + 2.0 * resid
    assert np.allclose(got, want, rtol=2e-3, atol=2e-3)
    # not the plain product: the epilogue did something
    assert not np.allclose(got, x @ w.T, atol=0.5)


def test_fused_epilogue_float16_out():
    m, n, k = 4, 64, 64
    rng = np.random.default_rng(5)
    bias = quarters(rng, (n,))
    got, x, w, _ = run_swapab(m, n, k, BT=8, WG=1, STAGES=2, bias=bias,
                              out="float16")
    want = (x @ w.T + bias).astype(np.float16).astype(np.float64)
    assert np.array_equal(got, want)


def test_mn_major_weights_two_warpgroups_split():
    # W stored (K, N) (torch.matmul(x, w)): per warpgroup one 64 x 64
    # box of k rows, an MN-major A descriptor; ragged N = 136 (a multiple
    # of 8, the map's row stride) and K = 200, two splits
    got, x, w, cnt = run_swapab(11, 136, 200, w_kmajor=False, BT=16, WG=2,
                                STAGES=2, SPLIT=2)
    assert np.array_equal(got, x @ w.T)
    assert not cnt.any()


def test_mn_major_weights_bf16_out():
    got, x, w, _ = run_swapab(8, 64, 128, w_kmajor=False, BT=8, WG=1,
                              STAGES=2, out="bfloat16")
    assert np.array_equal(got, round_bf16(x @ w.T))


def sm90_consts(bn, dt="bfloat16", out="bfloat16"):
    short = {"bfloat16": "bf16", "float16": "f16"}
    return dict(BN=bn, OUT=out, DT=dt,
                WGMMA="wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s"
                % (bn, short[dt], short[dt]),
                CVT="cvt.rn.%sx2.f32" % short[out])


def run_sm90(m, n, k, *, b_kmajor=True, bn=256, dt="bfloat16",
             out="bfloat16", alpha=1.0, beta=0.0, bias=None, resid=None,
             sms=132, **consts):
    """Runs gemm_sm90.py on quarter-valued inputs; returns (C as float64,
    A, B (n, k) as float64)."""
    consts.update(sm90_consts(bn, dt, out), B_KMAJOR=int(b_kmajor),
                  RESID=int(resid is not None))
    consts.setdefault("BIAS", int(bias is not None))
    kern = compiled("gemm_sm90.py", **consts)
    rng = np.random.default_rng(m * 131 + n * 7 + k)
    a, b = quarters(rng, (m, k)), quarters(rng, (n, k))
    enc = to_bf16 if dt == "bfloat16" else (lambda v: v.astype(np.float16))
    cdt = np.uint16 if out == "bfloat16" else np.float16
    c = np.zeros((m, n), dtype=cdt)
    c[...] = 0x7FC0 if out == "bfloat16" else np.nan
    bv = np.zeros(1, np.float32) if bias is None else bias
    r = np.zeros((m, n), dtype=cdt) if resid is None else resid
    bt = enc(b) if b_kmajor else enc(b.T.copy())
    kern.emulate(enc(a), bt, c, bv, r, alpha, beta, sms, check_races=True)
    got = from_bf16(c) if out == "bfloat16" else c.astype(np.float64)
    return got, a.astype(np.float64), b.astype(np.float64)


def test_sm90_k_major_ragged_bn128():
    # BN = 128: two 256 x 128 blocks along N (the second ragged at 136),
    # M = 200 (rank 1 of the cluster partly zero fill), K = 136
    got, a, b = run_sm90(200, 136, 136, bn=128, STAGES=3)
    assert np.array_equal(got, round_bf16(a @ b.T))


def test_sm90_bn64_ragged():
    # BN = 64: each CTA multicasts a 32-row half of B; three column blocks
    # (the last ragged at 136), M = 130 over one cluster row
    got, a, b = run_sm90(130, 136, 128, bn=64, STAGES=3, sms=4)
    assert np.array_equal(got, round_bf16(a @ b.T))


def test_sm90_grouped_tile_order():
    # GM = 2: the 3 x 3 cluster tiles of 600 x 136 (256 x 64 each) in
    # groups of two cluster rows, column by column (the last group one
    # row high), walked by two clusters (sms 4); C starts as NaN, so a
    # tile missed or stored from a wrong place fails
    got, a, b = run_sm90(600, 136, 64, bn=64, STAGES=3, sms=4, GM=2)
    assert np.array_equal(got, round_bf16(a @ b.T))


def test_sm90_mn_major_b_both_tiles():
    # B stored (K, N): MN-major B descriptors, 64-column chunks (BN =
    # 256: each CTA multicasts two 64 x 64 boxes per stage); sms = 2: one
    # cluster walks both blocks
    got, a, b = run_sm90(130, 264, 128, b_kmajor=False, bn=256, sms=2)
    assert np.array_equal(got, round_bf16(a @ b.T))


def test_sm90_mn_major_b_bn128_fp16():
    got, a, b = run_sm90(64, 128, 192, b_kmajor=False, bn=128, STAGES=2,
                         dt="float16", out="float16")
    assert np.array_equal(got, (a @ b.T).astype(np.float16))


@pytest.mark.parametrize("bias_kind", [1, 2])
def test_sm90_fused_bias_gelu_residual(bias_kind):
    # y = gelu(alpha acc + bias) + beta R, bias per column (1) or per
    # row (2), bf16 out: within one bf16 rounding of the float64 value
    # (gelu in float32 with tanh.approx on the device)
    m, n, k = 72, 128, 64
    rng = np.random.default_rng(bias_kind)
    bias = quarters(rng, (n if bias_kind == 1 else m,))
    resid = quarters(rng, (m, n))
    got, a, b = run_sm90(m, n, k, bn=128, STAGES=2, BIAS=bias_kind, ACT=2,
                         alpha=0.5, beta=-1.0, bias=bias,
                         resid=to_bf16(resid))
    badd = bias[None, :] if bias_kind == 1 else bias[:, None]
    want = gelu_tanh(0.5 * (a @ b.T) + badd) - resid
    assert np.all(np.abs(got - want) <= np.abs(want) * 2 ** -8 + 4e-3)
    assert not np.allclose(got, a @ b.T, atol=0.5)


def suite_shapes():
    """bench/gemm/suite.py's rows: (m, n, k, dict of configs() keywords)."""
    out = []
    for n, k in [(4096, 4096), (14336, 4096), (4096, 14336)]:
        for m in (1, 16, 64, 128, 8192):
            out.append((m, n, k, {}))
    for s in (1024, 2048, 4096, 8192):
        out.append((s, s, s, {}))
    out += [(4096, 4096, 4096, {"b_kmajor": 0}),
            (16, 4096, 4096, {"b_kmajor": 0}),
            (4096, 4096, 4096, {"dt": "float16", "out": "float16"}),
            (8192, 14336, 4096, {"bias": 1, "act": 2}),
            (16, 14336, 4096, {"bias": 1, "act": 2}),
            (16, 4096, 4096, {"out": "float32"})]
    return out


def test_every_suite_configuration_compiles_and_fits():
    # what the GPU run will compile: every candidate of every suite shape
    # is a valid script (ptxtile compile; ptxas when present), at most 56
    # per shape (the tuning budget: 49 at 64 decode rows, about 0.25 s of
    # timing on the H200), within sm_90's shared memory
    from ptxtile.kernels import _gemm
    ptxas = ptxtile.find_ptxas() if hasattr(ptxtile, "find_ptxas") else None
    seen = {}
    for m, n, k, kw in suite_shapes():
        cands = _gemm.configs(m, n, k, sms=132, **kw)
        assert 1 <= len(cands) <= 56, (m, n, k, kw)
        for script, c in cands:
            smem = (_gemm.swapab_smem(c) if script == "gemm_swapab.py"
                    else _gemm.sm90_smem(c))
            assert smem <= _gemm.SMEM_MAX, c
            key = (script, tuple(sorted(c.items())))
            if key not in seen:
                seen[key] = compiled(script, **c)
    assert len(seen) > 20
    if ptxas:
        for kern in list(seen.values())[::7]:
            assert kern.cubin  # ptxas accepts the PTX


def test_fp8_block_swapab_candidates_fit_without_spills():
    # the block-wise swap-AB candidates of the FP8 suite's few-row shapes
    # (bench/fp8: M 64 and 128 by six (N, K)): each compiles, fits in
    # shared memory, and where ptxas is present assembles, with no spill
    # where the sum stays on chip (no split, or CRED: the extra registers
    # of the promotion are what configs() budgets).  A global split-K sum
    # (SPLIT > 8) spills in its epilogue in every mode (ptxas hoists its
    # SPLIT x BT / 2 clamped loads; 72 bytes at row-wise BT 64 WG 2 SPLIT
    # 16, 104 block-wise), so it is only assembled
    import shutil
    import subprocess
    import tempfile
    from ptxtile.kernels import _gemm
    ptxas = shutil.which("ptxas") or (
        "/usr/local/cuda/bin/ptxas"
        if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
    e4 = "float8_e4m3fn"
    seen = {}
    for m in (64, 128):
        for n, k in ((2112, 7168), (24576, 1536), (32768, 512),
                     (7168, 16384), (4096, 7168), (7168, 2048)):
            cands = _gemm.configs(m, n, k, fp8=(e4, e4, 3))
            assert cands, (m, n, k)
            for script, c in cands:
                assert c["SCALE"] == 3 and _gemm.swapab_smem(c) <= \
                    _gemm.SMEM_MAX, c
                seen.setdefault(tuple(sorted(c.items())), c)
    if not ptxas:
        return
    with tempfile.TemporaryDirectory() as d:
        for c in seen.values():
            path = os.path.join(d, "k.ptx")
            with open(path, "w") as f:
                f.write(compiled("gemm_swapab.py", **c).ptx)
            r = subprocess.run([ptxas, "-arch=sm_90a", "-v", path, "-o",
                                os.path.join(d, "k.cubin")],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            if c["SPLIT"] <= 8:
                assert "0 bytes spill stores" in r.stderr, (c, r.stderr)


def test_config_constants_are_checked():
    from ptxtile.kernels import _gemm
    with pytest.raises(ptxtile.CompileError) as e:
        compiled("gemm_swapab.py", NOPE=1)       # no such constant
    assert "E2050" in str(e.value)
    with pytest.raises(ptxtile.CompileError):
        # a token tile that is not the wgmma form's N
        compiled("gemm_swapab.py", BT=24, WGMMA="wgmma.mma_async.sync."
                 "aligned.m64n16k16.f32.bf16.bf16")
    with pytest.raises(ValueError):
        _gemm.swapab_consts(12, 1, 2, 1)   # BT not a multiple of 8
    with pytest.raises(ValueError):
        _gemm.sm90_consts(64, 4, b_kmajor=0)  # BN 64 needs B (N, K)
    with pytest.raises(ValueError):
        _gemm.sm90_consts(32, 4)
    for gm in (0, -2, 2.0, True):
        with pytest.raises(ValueError, match="GM"):
            _gemm.sm90_consts(256, 4, gm=gm)


def test_sm90_tile_group_where_b_outweighs_the_l2():
    # groups of 8 cluster rows where B (N x K, 16-bit) is over 48 MiB
    # and 8 cluster rows (2048) exist; row by row otherwise
    from ptxtile.kernels import _gemm
    assert _gemm.sm90_group(8192, 8192, 8192) == 8
    assert _gemm.sm90_group(8192, 14336, 4096) == 8
    assert _gemm.sm90_group(2048, 14336, 4096) == 8
    assert _gemm.sm90_group(1024, 14336, 4096) == 1   # 4 cluster rows
    assert _gemm.sm90_group(4096, 4096, 4096) == 1    # B 32 MiB
    assert _gemm.sm90_group(8192, 4096, 4096) == 1
    sm90 = [c for s, c in _gemm.configs(8192, 8192, 8192) if s == "gemm_sm90.py"]
    assert sm90 and all(c["GM"] == 8 for c in sm90)
    assert "GM8" in _gemm.config_name("gemm_sm90.py", sm90[0])


def test_strided_views_read_through_tensor_maps():
    # kernels._gemm marks the operands read only through tensor maps
    # "contiguous": false, so column slices (K = 60 of 64-element rows,
    # 128-byte row strides) need no copy; C, written element by element,
    # must stay dense; a row stride TMA cannot encode (not a multiple of
    # 16 bytes) is still refused, naming the stride
    from ptxtile.kernels import _gemm
    c = _gemm.swapab_consts(16, 1, 2, 1, out="float32")
    kern = _gemm.GEMM.kernel("gemm_swapab.py", c)
    params = {p["name"]: p for p in kern.meta["kernels"][0]["params"]}
    assert params["X"]["contiguous"] is False
    assert params["W"]["contiguous"] is False
    assert params["C"].get("contiguous", True) is True
    xb, wb = np.zeros((16, 64), np.uint16), np.zeros((64, 64), np.uint16)
    out = np.full((16, 64), np.nan, dtype=np.float32)
    zeros = (np.zeros(64, np.float32), np.zeros((16, 64), np.float32),
             np.zeros((1, 16, 64), np.float32),
             np.zeros((16, 64), np.uint32), np.ones(1, np.float32),
             np.ones(1, np.float32))
    # the launch checks on the views as given (the emulator itself runs
    # on dense copies; the GPU test multiplies the views)
    kern.check(xb[:, :60], wb[:, :60], out, *zeros, 1.0, 0.0)
    wide = np.zeros((16, 128), np.float32)
    with pytest.raises(ptxtile.LaunchError, match="stride"):
        kern.check(xb, wb, wide[:, :64], *zeros, 1.0, 0.0)
    odd = np.zeros((16, 68), np.uint16)
    with pytest.raises(ptxtile.LaunchError, match="stride"):
        kern.check(odd[:, :64], wb, out, *zeros, 1.0, 0.0)
