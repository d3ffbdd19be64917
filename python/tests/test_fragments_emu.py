"""tests/golden/mma_fragments.py (one mma.sync.m16n8k16 fed by ldmatrix,
every fragment a named layout) in the emulator: D must be A @ B.T computed
by numpy in float64 from the same float16 inputs."""

import os

import pytest

import ptxtile
from conftest import ROOT

np = pytest.importorskip("numpy")


def test_mma_fragments_match_numpy():
    k = ptxtile.compile(os.path.join(ROOT, "tests", "golden",
                                     "mma_fragments.py"),
                        target="sm_90a", cache=False, name="mma16816")
    rng = np.random.default_rng(7)
    # multiples of 1/8 in [-4, 4): products and 16-term sums are exact
    a = (rng.integers(-32, 32, (16, 16)) / 8).astype(np.float16)
    b = (rng.integers(-32, 32, (8, 16)) / 8).astype(np.float16)
    d = np.full((16, 8), np.nan, dtype=np.float32)
    k(a, b, d, device="emulator")
    want = a.astype(np.float64) @ b.astype(np.float64).T
    assert np.array_equal(d, want.astype(np.float32))


def test_mma_fragments_trans_b_match_numpy():
    # mma16816_kn: B given (k, n), loaded with ldmatrix.x2.trans
    k = ptxtile.compile(os.path.join(ROOT, "tests", "golden",
                                     "mma_fragments.py"),
                        target="sm_90a", cache=False, name="mma16816_kn")
    rng = np.random.default_rng(11)
    a = (rng.integers(-32, 32, (16, 16)) / 8).astype(np.float16)
    b = (rng.integers(-32, 32, (16, 8)) / 8).astype(np.float16)
    d = np.full((16, 8), np.nan, dtype=np.float32)
    k(a, b, d, device="emulator")
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.array_equal(d, want.astype(np.float32))
