"""The FP8 GEMM scripts (examples/gemm_fp8*.py) in the PTX emulator at
small sizes, against products computed here from the float8 bytes
decoded by the e4m3 / e5m2 definitions (OCP FP8: sign, 4 or 5 exponent
bits with bias 7 or 15, 3 or 2 mantissa bits, subnormals at exponent 0;
e4m3 has no infinities and one NaN mantissa (S.1111.111), e5m2 is IEEE
like).  The inputs avoid NaN/Inf; the kernels' sums are float32 in some
order, so results are compared to the float64 host product after the
same final bf16 rounding within a tolerance stated per test."""
import os

import pytest

import ptxtile
from conftest import ROOT

np = pytest.importorskip("numpy")


def decode_fp8(bits, kind):
    """float64 values of uint8 float8 bit patterns (kind 'e4m3' / 'e5m2')."""
    b = np.asarray(bits, dtype=np.uint8).astype(np.int64)
    ebits, mbits, bias = (4, 3, 7) if kind == "e4m3" else (5, 2, 15)
    sign = np.where(b >> 7, -1.0, 1.0)
    e = (b >> mbits) & ((1 << ebits) - 1)
    m = b & ((1 << mbits) - 1)
    frac = m / float(1 << mbits)
    normal = sign * np.ldexp(1.0 + frac, (e - bias).astype(np.int32))
    sub = sign * np.ldexp(frac, 1 - bias)
    v = np.where(e == 0, sub, normal)
    if kind == "e4m3":
        v = np.where((e == 15) & (m == 7), np.nan, v)
    else:
        v = np.where(e == 31, np.where(m == 0, sign * np.inf, np.nan), v)
    return v


def test_decoder_against_the_definition():
    # spot values from the OCP FP8 definition (independent of the kernels)
    e4 = decode_fp8([0x00, 0x01, 0x08, 0x38, 0x7e, 0xfe, 0x40, 0x07], "e4m3")
    assert list(e4) == [0.0, 2.0 ** -9, 2.0 ** -6, 1.0, 448.0, -448.0, 2.0,
                        7 * 2.0 ** -9]
    assert np.isnan(decode_fp8([0x7f], "e4m3")[0])
    e5 = decode_fp8([0x01, 0x3c, 0x7b, 0x7c, 0x04], "e5m2")
    assert list(e5) == [2.0 ** -16, 1.0, 57344.0, np.inf, 2.0 ** -14]


def random_fp8(rng, shape, kind):
    """Random finite float8 bytes: every bit pattern but NaN/Inf and
    magnitudes kept to at most 2^3 so sums stay well inside bf16."""
    b = rng.integers(0, 256, size=shape, dtype=np.int64)
    if kind == "e4m3":  # exponent field <= 10: |x| < 2^4
        b = (b & 0x87) | (rng.integers(0, 11, size=shape) << 3)
    else:               # exponent field <= 18
        b = (b & 0x83) | (rng.integers(0, 19, size=shape) << 2)
    return b.astype(np.uint8)


def bf16_bits(x):
    """bf16 bit patterns of float64 values, round to nearest even
    (through float32: the host product is rounded to float32 first, a
    double rounding the comparison tolerance covers)."""
    f = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = (f + 0x7FFF + ((f >> 16) & 1)) >> 16
    return r.astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def compiled(name, **kw):
    return ptxtile.compile(os.path.join(ROOT, "examples", name),
                           target="sm_90a", cache=False, **kw)


def close_bf16(got_bits, want, rel=2.0 ** -7):
    """got (bf16 bits) within rel of want (float64) or within rel of the
    tensor's largest value (sums of mixed signs cancel)."""
    got = bf16_value(got_bits)
    tol = rel * (np.abs(want) + 2.0 ** -6 * np.max(np.abs(want)))
    bad = np.abs(got - want) > tol
    return int(bad.sum())


@pytest.mark.parametrize("m,n,k,sms,late", [(128, 256, 256, 132, False),
                                           (130, 264, 144, 132, True),
                                           (300, 520, 144, 1, False)])
def test_per_tensor(m, n, k, sms, late):
    # examples/gemm_fp8.py: C = sa sb A B^T; (130, 264, 144) is ragged in
    # every dimension (TMA zero fill past M, N and K, clipped stores)
    rng = np.random.default_rng(m + n + k)
    a = random_fp8(rng, (m, k), "e4m3")
    b = random_fp8(rng, (n, k), "e4m3")
    sa = np.array([0.75], dtype=np.float32)
    sb = np.array([2.0 ** -3], dtype=np.float32)
    c = np.full((m, n), 0xFFFF, dtype=np.uint16)
    kern = compiled("gemm_fp8.py")
    kern.emulate(a, b, c, sa, sb, sms, late=late, check_races=late)
    want = 0.75 * 2.0 ** -3 * (decode_fp8(a, "e4m3") @ decode_fp8(b, "e4m3").T)
    assert close_bf16(c, want) == 0


@pytest.mark.parametrize("m,n,k,sms,late", [(128, 256, 256, 132, False),
                                           (130, 264, 144, 132, True)])
def test_rowwise(m, n, k, sms, late):
    # examples/gemm_fp8_rowwise.py: C[i, j] = sa[i] sb[j] (A B^T)[i, j],
    # scales that differ per row and column (powers of two and not)
    rng = np.random.default_rng(7 * m + n + k)
    a = random_fp8(rng, (m, k), "e4m3")
    b = random_fp8(rng, (n, k), "e4m3")
    sa = rng.uniform(0.25, 2.0, size=m).astype(np.float32)
    sb = rng.uniform(0.01, 0.1, size=n).astype(np.float32)
    c = np.full((m, n), 0xFFFF, dtype=np.uint16)
    kern = compiled("gemm_fp8_rowwise.py")
    kern.emulate(a, b, c, sa, sb, sms, late=late, check_races=late)
    prod = decode_fp8(a, "e4m3") @ decode_fp8(b, "e4m3").T
    want = sa.astype(np.float64)[:, None] * sb.astype(np.float64)[None, :] * prod
    assert close_bf16(c, want) == 0
    # the scales matter: the per-tensor product of their means is wrong
    assert close_bf16(c, prod * sa.mean() * sb.mean()) > m * n // 2


def block_reference(a, b, sa, sb, ka="e4m3", kb_="e4m3"):
    """sum over 128-wide K blocks kb of sa[kb, i] sb[j / 128, kb] times
    the block's exact product (float64)."""
    m, k = a.shape
    n = b.shape[0]
    da, db = decode_fp8(a, ka), decode_fp8(b, kb_)
    out = np.zeros((m, n))
    for kb in range((k + 127) // 128):
        part = da[:, 128 * kb:128 * kb + 128] @ db[:, 128 * kb:128 * kb + 128].T
        colscale = np.repeat(sb[:, kb].astype(np.float64), 128)[:n]
        out += part * sa[kb, :m].astype(np.float64)[:, None] * colscale[None, :]
    return out


@pytest.mark.parametrize("m,n,k,sms,late", [(128, 256, 256, 132, False),
                                           (130, 264, 272, 132, True),
                                           (300, 264, 784, 1, False)])
def test_block_scaled(m, n, k, sms, late):
    # examples/gemm_fp8_block.py: A per 1 x 128 (scale_a (KB, MS), MS =
    # M rounded up to 4), B per 128 x 128 (scale_b (NB, KB)); (130, 264,
    # 272) has a 16-wide last K block, a third partial B block and a
    # ragged M (one CTA of the cluster all zero fill)
    rng = np.random.default_rng(3 * m + n + k)
    kb, nb, ms = (k + 127) // 128, (n + 127) // 128, (m + 3) // 4 * 4
    a = random_fp8(rng, (m, k), "e4m3")
    b = random_fp8(rng, (n, k), "e4m3")
    sa = rng.uniform(0.25, 4.0, size=(kb, ms)).astype(np.float32)
    sb = rng.uniform(2.0 ** -8, 2.0 ** -4, size=(nb, kb)).astype(np.float32)
    c = np.full((m, n), 0xFFFF, dtype=np.uint16)
    kern = compiled("gemm_fp8_block.py")
    kern.emulate(a, b, c, sa, sb, sms, late=late, check_races=late)
    want = block_reference(a, b, sa, sb)
    assert close_bf16(c, want) == 0
    # the per-block scales matter: scaling once by their means is wrong
    dense = decode_fp8(a, "e4m3") @ decode_fp8(b, "e4m3").T
    assert close_bf16(c, dense * sa.mean() * sb.mean()) > m * n // 2


def variant(name, at="float8_e4m3fn", bt="float8_e4m3fn", out="bfloat16",
            BN=None, ST=None, PI=None, DB=None, GM=None):
    """The script compiled with the module constants
    ptxtile.kernels.fp8 gives a variant (AT / BT and the wgmma form's
    types and n, C's type, BN, ST)."""
    from ptxtile.kernels import fp8
    mode = {"gemm_fp8.py": "tensor", "gemm_fp8_rowwise.py": "row",
            "gemm_fp8_block.py": "block"}[name]
    return ptxtile.compile(os.path.join(ROOT, "examples", name),
                           target="sm_90a", cache=False,
                           constants=fp8.constants(mode, at, bt, out, BN, ST, PI, DB, GM))


@pytest.mark.parametrize("at,bt", [("float8_e5m2", "float8_e4m3fn"),
                                   ("float8_e4m3fn", "float8_e5m2"),
                                   ("float8_e5m2", "float8_e5m2")])
def test_e5m2_operands(at, bt):
    # the e5m2 option of either operand: per-tensor and block-scaled
    m, n, k = 128, 256, 256
    ka, kb_ = at[7:11], bt[7:11]
    rng = np.random.default_rng(11)
    a = random_fp8(rng, (m, k), ka)
    b = random_fp8(rng, (n, k), kb_)
    prod = decode_fp8(a, ka) @ decode_fp8(b, kb_).T
    sa1 = np.array([0.5], dtype=np.float32)
    sb1 = np.array([0.25], dtype=np.float32)
    c = np.full((m, n), 0xFFFF, dtype=np.uint16)
    kern = variant("gemm_fp8.py", at, bt)
    assert ".%s.%s" % (ka, kb_) in kern.ptx
    kern.emulate(a, b, c, sa1, sb1, 132)
    assert close_bf16(c, 0.125 * prod) == 0
    sa = rng.uniform(0.25, 4.0, size=(2, m)).astype(np.float32)
    sb = rng.uniform(2.0 ** -8, 2.0 ** -4, size=(2, 2)).astype(np.float32)
    c[:] = 0xFFFF
    variant("gemm_fp8_block.py", at, bt).emulate(a, b, c, sa, sb, 132)
    assert close_bf16(c, block_reference(a, b, sa, sb, ka, kb_)) == 0


def one_level_case(name, rng, a, b):
    """(scale_a, scale_b, the float64 result) for e4m3 a (M, K) and b
    (N, K) through a one-level script: gemm_fp8.py with the tensor-wise
    scales 0.5 and 0.25, gemm_fp8_rowwise.py with scales drawn from rng
    per row of a and of b."""
    prod = decode_fp8(a, "e4m3") @ decode_fp8(b, "e4m3").T
    if name == "gemm_fp8.py":
        return (np.array([0.5], np.float32), np.array([0.25], np.float32),
                0.125 * prod)
    sa = rng.uniform(0.25, 2.0, size=a.shape[0]).astype(np.float32)
    sb = rng.uniform(0.25, 2.0, size=b.shape[0]).astype(np.float32)
    return sa, sb, sa.astype(np.float64)[:, None] * sb.astype(np.float64)[None, :] * prod


@pytest.mark.parametrize("bn,st", [(192, 4), (128, 6), (64, 8)])
@pytest.mark.parametrize("name", ["gemm_fp8.py", "gemm_fp8_rowwise.py"])
def test_narrow_tiles(name, bn, st):
    # the BN / ST constants (ptxtile.kernels.fp8 tunes them per shape):
    # 256 x BN cluster tiles, m64nBNk32, BN / 64 C quarters alternating
    # between the two staging buffers across tiles; sms = 1 walks every
    # tile through one ring
    m, n, k = 300, 200, 400
    rng = np.random.default_rng(bn + st)
    a = random_fp8(rng, (m, k), "e4m3")
    b = random_fp8(rng, (n, k), "e4m3")
    kern = variant(name, BN=bn, ST=st)
    assert ".m64n%dk32.f32.e4m3.e4m3" % bn in kern.ptx
    sa, sb, want = one_level_case(name, rng, a, b)
    for sms, late in ((132, False), (1, True)):
        c = np.full((m, n), 0xFFFF, dtype=np.uint16)
        kern.emulate(a, b, c, sa, sb, sms, late=late, check_races=late)
        assert close_bf16(c, want) == 0


@pytest.mark.parametrize("bn,st", [(64, 7), (192, 4)])
def test_block_scaled_narrow_tiles(bn, st):
    # gemm_fp8_block.py at BN = 64 (ST 7): two tiles per 128-wide B
    # scale block (the scale row is cbn * 64 / 128), one C quarter per
    # tile; at BN = 192 (ST 4) every other tile straddles two B blocks
    # (128 + 64 or 64 + 128 columns); sms = 1 walks all tiles, late
    # completion + race check
    m, n, k = 200, 520, 400
    rng = np.random.default_rng(bn)
    kb, nb = (k + 127) // 128, (n + 127) // 128
    a = random_fp8(rng, (m, k), "e4m3")
    b = random_fp8(rng, (n, k), "e4m3")
    sa = rng.uniform(0.25, 4.0, size=(kb, m)).astype(np.float32)
    sb = rng.uniform(2.0 ** -8, 2.0 ** -4, size=(nb, kb)).astype(np.float32)
    kern = variant("gemm_fp8_block.py", BN=bn, ST=st)
    assert ".m64n%dk32.f32.e4m3.e4m3" % bn in kern.ptx
    want = block_reference(a, b, sa, sb)
    for sms, late in ((132, False), (1, True)):
        c = np.full((m, n), 0xFFFF, dtype=np.uint16)
        kern.emulate(a, b, c, sa, sb, sms, late=late, check_races=late)
        assert close_bf16(c, want) == 0


@pytest.mark.parametrize("bn,st", [(None, None), (64, 7)])
@pytest.mark.parametrize("name", ["gemm_fp8.py", "gemm_fp8_rowwise.py",
                                  "gemm_fp8_block.py"])
def test_float32_output(name, bn, st):
    # CT = float32: the sums (scaled, promoted) staged as float32 pairs in
    # the 128B-swizzled buffers (st.shared.v2.f32) and TMA-stored in
    # 64 x 32 boxes; ragged M, N, K; one cluster over all tiles (sms 1)
    # with late completion and the race check
    m, n, k = 130, 200, 272
    if bn is not None and name != "gemm_fp8_block.py":
        st = 8
    rng = np.random.default_rng(32)
    a = random_fp8(rng, (m, k), "e4m3")
    b = random_fp8(rng, (n, k), "e4m3")
    prod = decode_fp8(a, "e4m3") @ decode_fp8(b, "e4m3").T
    kern = variant(name, out="float32", BN=bn, ST=st)
    assert "st.shared.v2.f32" in kern.ptx and "cvt.rn.bf16x2" not in kern.ptx
    if name == "gemm_fp8.py":
        sa, sb = np.array([0.5], np.float32), np.array([0.25], np.float32)
        want = 0.125 * prod
    elif name == "gemm_fp8_rowwise.py":
        sa = rng.uniform(0.25, 2.0, size=m).astype(np.float32)
        sb = rng.uniform(0.25, 2.0, size=n).astype(np.float32)
        want = sa.astype(np.float64)[:, None] * sb.astype(np.float64)[None, :] * prod
    else:
        sa = rng.uniform(0.25, 4.0, size=(3, 132)).astype(np.float32)
        sb = rng.uniform(2.0 ** -8, 2.0 ** -4, size=(2, 3)).astype(np.float32)
        want = block_reference(a, b, sa, sb)
    for sms, late in ((132, False), (1, True)):
        c = np.full((m + 1, n), np.nan, dtype=np.float32)
        kern.emulate(a, b, c[:m], sa, sb, sms, late=late, check_races=late)
        # float32 sums of exact products in some order: within a few
        # float32 roundings of the float64 value
        tol = 2.0 ** -20 * (np.abs(want) + np.max(np.abs(want)))
        assert np.all(np.abs(c[:m] - want) <= tol)
        assert np.all(np.isnan(c[m]))


@pytest.mark.parametrize("pi", [2, 3])
def test_block_promotion_interval(pi):
    # PI K blocks per promotion (the wgmma accumulator sums PI * 128 of
    # K, then one FMA per element): exact for scales constant along K,
    # here a scale per row of A and per 128-row block of B; K = 400 has
    # four K blocks, so PI = 3 ends with an interval of one (K's last
    # block), PI = 2 with two
    m, n, k = 130, 264, 400
    rng = np.random.default_rng(pi)
    kb, nb = (k + 127) // 128, (n + 127) // 128
    a = random_fp8(rng, (m, k), "e4m3")
    b = random_fp8(rng, (n, k), "e4m3")
    sa = np.repeat(rng.uniform(0.25, 4.0, size=(1, 132)), kb, 0).astype(np.float32)
    sb = np.repeat(rng.uniform(2.0 ** -8, 2.0 ** -4, size=(nb, 1)), kb, 1).astype(np.float32)
    kern = variant("gemm_fp8_block.py", PI=pi)
    want = block_reference(a, b, sa, sb)
    for sms, late in ((132, False), (1, True)):
        c = np.full((m, n), 0xFFFF, dtype=np.uint16)
        kern.emulate(a, b, c, sa, sb, sms, late=late, check_races=late)
        assert close_bf16(c, want) == 0
    # with scales that change along K the interval's last scale is used
    # (documented): a K-varying scale_a gives a different result
    sa2 = sa * np.arange(1, kb + 1, dtype=np.float32)[:, None]
    c = np.full((m, n), 0xFFFF, dtype=np.uint16)
    kern.emulate(a, b, c, sa2, sb, 132)
    assert close_bf16(c, block_reference(a, b, sa2, sb)) > m * n // 4


@pytest.mark.parametrize("bn,st,k,db", [(128, 5, 400, 1), (128, 5, 272, 1),
                                        (64, 7, 400, 1), (128, 5, 400, 0)])
def test_block_double_accumulator(bn, st, k, db):
    # DB = 1 (the default): K blocks in pairs, 2kp into D and 2kp + 1
    # into D2; wait_group 1 frees 2kp's stage and promotes D while D2's
    # wgmmas run, wait_group 0 then D2.  K = 400 has four K blocks, 272
    # three (a 16-wide partial block, then a fourth wholly past K,
    # zero-filled: the pairs need an even count).  DB = 0: one block at
    # a time.  sms = 1 walks all tiles with one ring (the previous
    # tile's last stage and scales must not leak into the next), late
    # completion and the race check
    m, n = 200, 264
    rng = np.random.default_rng(k + bn)
    kb, nb = (k + 127) // 128, (n + 127) // 128
    a = random_fp8(rng, (m, k), "e4m3")
    b = random_fp8(rng, (n, k), "e4m3")
    sa = rng.uniform(0.25, 4.0, size=(kb, m)).astype(np.float32)
    sb = rng.uniform(2.0 ** -8, 2.0 ** -4, size=(nb, kb)).astype(np.float32)
    kern = variant("gemm_fp8_block.py", BN=bn, ST=st, DB=db)
    assert ("wgmma.wait_group.sync.aligned 1;" in kern.ptx) == bool(db)
    ptxas = "/usr/local/cuda/bin/ptxas"
    if os.path.exists(ptxas):
        # no wgmma under a branch (C7520), and no read of an accumulator
        # whose wgmma ptxas cannot place (C7514): either serializes
        # every wgmma of the kernel
        import subprocess
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
            f.write(kern.ptx)
            f.flush()
            r = subprocess.run([ptxas, "-arch=sm_90a", "-v", f.name, "-o",
                                os.devnull], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        for code in ("C7520", "C7514"):
            assert code not in r.stdout + r.stderr, r.stdout + r.stderr
    want = block_reference(a, b, sa, sb)
    for sms, late in ((132, False), (1, True)):
        c = np.full((m, n), 0xFFFF, dtype=np.uint16)
        kern.emulate(a, b, c, sa, sb, sms, late=late, check_races=late)
        assert close_bf16(c, want) == 0


@pytest.mark.parametrize("name", ["gemm_fp8.py", "gemm_fp8_rowwise.py",
                                  "gemm_fp8_block.py"])
def test_grouped_tile_order(name):
    # GM = 2: the 3 x 4 cluster tiles of 520 x 200 (256 x 64 each) in
    # groups of two cluster rows, column by column, the last group one
    # row high; one cluster walks all 12 tiles (sms 2), three clusters
    # take every third (sms 6).  C starts as NaN, so a tile that no
    # cluster stores, or one stored twice from a wrong tile, fails
    m, n, k = 520, 200, 256
    rng = np.random.default_rng(520)
    kb, nb = (k + 127) // 128, (n + 127) // 128
    a = random_fp8(rng, (m, k), "e4m3")
    b = random_fp8(rng, (n, k), "e4m3")
    if name == "gemm_fp8_block.py":
        kern = variant(name, BN=64, ST=7, GM=2)
        sa = rng.uniform(0.25, 4.0, size=(kb, m)).astype(np.float32)
        sb = rng.uniform(2.0 ** -8, 2.0 ** -4, size=(nb, kb)).astype(np.float32)
        want = block_reference(a, b, sa, sb)
    else:
        kern = variant(name, BN=64, ST=8, GM=2)
        sa, sb, want = one_level_case(name, rng, a, b)
    for sms in (2, 6):
        c = np.full((m, n), 0xFFFF, dtype=np.uint16)
        kern.emulate(a, b, c, sa, sb, sms)
        assert close_bf16(c, want) == 0


def test_fp8_tile_group_is_checked():
    from ptxtile.kernels import fp8
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="GM"):
            fp8.constants("block", GM=bad)


def test_block_pairs_only_where_they_fit():
    # DB 1 (the script's default) holds three BN / 2 register sets: a
    # wider tile or a promotion interval past one block is DB 0 unless
    # DB 1 is asked for, which is refused
    from ptxtile.kernels import fp8
    assert "DB" not in fp8.constants("block")
    assert fp8.constants("block", BN=192)["DB"] == 0
    assert fp8.constants("block", PI=4)["DB"] == 0
    for kw in ({"BN": 192, "DB": 1}, {"PI": 2, "DB": 1}, {"DB": 2}):
        with pytest.raises(ValueError, match="DB"):
            fp8.constants("block", **kw)
    with pytest.raises(ValueError, match="DB"):
        fp8.constants("tensor", DB=0)


def test_shipped_scripts_are_the_examples():
    # ptxtile.kernels.fp8 compiles the package-data copies
    # (python/ptxtile/kernels/scripts/): they must not drift from examples/
    from ptxtile.kernels import fp8
    for mode, name in (("tensor", "gemm_fp8.py"), ("row", "gemm_fp8_rowwise.py"),
                       ("block", "gemm_fp8_block.py")):
        p = fp8.script_path(mode)
        assert p.endswith(os.path.join("kernels", "scripts", name))
        with open(p, "rb") as f, open(os.path.join(ROOT, "examples", name), "rb") as g:
            assert f.read() == g.read(), name


def test_kernels_package_exposes_fp8_matmul():
    import ptxtile.kernels as K
    assert "fp8_matmul" in K.__all__
    try:
        import torch  # noqa: F401
    except ImportError:
        # without torch the name still resolves (the function then says
        # torch is missing when called)
        pass
    from ptxtile.kernels import fp8
    assert K.fp8_matmul is fp8.fp8_matmul
