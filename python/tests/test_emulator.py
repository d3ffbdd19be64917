"""device="emulator": kernels run in the PTX emulator on numpy arrays with
no GPU; results checked against values computed here from what each
script states (never from the emulator or the lowering)."""

import pytest

import ptxtile
from conftest import ROOT, example

np = pytest.importorskip("numpy")


def compiled(name, **kw):
    return ptxtile.compile(example(name), target="sm_90a", cache=False, **kw)


def test_saxpy_relu_in_place():
    # examples/saxpy_relu.py: Y[i] = max(a * X[i] + Y[i], 0) over n, a
    # grid-stride loop; multiples of 1/8 keep every value exact
    k = compiled("saxpy_relu.py")
    n = 3000
    x = ((np.arange(n) % 97) - 48).astype(np.float32) / 8
    y = ((np.arange(n) % 13) - 6).astype(np.float32) / 4
    want = np.maximum(1.5 * x.astype(np.float64) + y, 0).astype(np.float32)
    steps = k(x, y, 1.5, device="emulator")
    assert steps > n
    assert np.array_equal(y, want)


def test_strided_arrays_are_copied_and_written_back():
    # a non-contiguous output view is updated through its own strides;
    # the rest of its base array is untouched
    k = compiled("saxpy_relu.py")
    base = np.full((2, 500), 7.0, dtype=np.float32)
    y = base[0, ::2]                      # 250 elements, stride 2
    x = np.arange(250, dtype=np.float32)
    k(x, y, -1.0, device="emulator")      # max(-x + 7, 0)
    assert np.array_equal(base[0, ::2], np.maximum(7 - x, 0))
    assert np.all(base[0, 1::2] == 7) and np.all(base[1] == 7)


def test_tma_store_through_the_planned_tensor_map():
    # examples/tma_store.py: CTA b writes rows 32 b .. 32 b + 31 of C with
    # value 1000 b + 64 r + c (r the tile row, c the column), via TMA
    k = compiled("tma_store.py")
    c = np.full((96, 64), -1.0, dtype=np.float32)
    k(c, device="emulator", late=True, check_races=True)
    r, col = np.meshgrid(np.arange(96), np.arange(64), indexing="ij")
    want = 1000 * (r // 32) + 64 * (r % 32) + col
    assert np.array_equal(c, want.astype(np.float32))


def test_argument_errors_are_the_launch_checks():
    k = compiled("saxpy_relu.py")
    x = np.zeros(8, dtype=np.float32)
    with pytest.raises(ptxtile.LaunchError) as e:
        k(x, [0.0] * 8, 1.0, device="emulator")
    assert "numpy array" in str(e.value)
    with pytest.raises(ptxtile.LaunchError) as e:
        k(x, np.zeros(8, dtype=np.float64), 1.0, device="emulator")
    assert "float64" in str(e.value)       # the planner's dtype check
    with pytest.raises(ptxtile.LaunchError) as e:
        k(x, np.zeros(9, dtype=np.float32), 1.0, device="emulator")
    assert "n" in str(e.value)             # n bound to 8 and to 9
    with pytest.raises(ptxtile.LaunchError):
        k(x, x, device="emulator")         # two arguments of three


def test_emulator_errors_carry_the_status():
    k = compiled("saxpy_relu.py")
    x = np.zeros(4096, dtype=np.float32)
    with pytest.raises(ptxtile.EmulatorError) as e:
        k(x, x.copy(), 1.0, device="emulator", max_steps=100)
    assert e.value.code == 9507 and "E9507" in str(e.value)


def test_option_spelling():
    k = compiled("saxpy_relu.py")
    x = np.zeros(4, dtype=np.float32)
    with pytest.raises(TypeError):
        k(x, x, 1.0, device="emulator", lates=True)
    with pytest.raises(TypeError):
        k(x, x, 1.0, late=True)            # an emulator option on the GPU
    with pytest.raises(TypeError):
        k(x, x, 1.0, device="gpu")
