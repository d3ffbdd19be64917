"""kernel.emulate(): kernels run in the PTX emulator on numpy arrays with
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
    steps = k.emulate(x, y, 1.5)
    assert steps > n
    assert np.array_equal(y, want)


def test_strided_arrays_get_the_gpu_launch_checks():
    # saxpy_relu declares dense tensors: a GPU launch refuses a view with
    # stride 2, and so does the emulator, with the same message
    k = compiled("saxpy_relu.py")
    base = np.full((2, 500), 7.0, dtype=np.float32)
    y = base[0, ::2]                      # 250 elements, stride 2
    x = np.arange(250, dtype=np.float32)
    with pytest.raises(ptxtile.LaunchError) as e:
        k.emulate(x, y, -1.0)
    assert e.value.code == 5015
    assert 'argument 2 ("Y"): dim 0 has stride 8 bytes' in str(e.value)
    with pytest.raises(ptxtile.LaunchError) as c:
        k.check(x, y, -1.0)
    assert str(c.value) == str(e.value)
    assert np.all(base == 7)              # nothing ran
    # a start 4 bytes into an array, for a parameter declared align=16,
    # is refused alike (kernel_module.scale2)
    import kernel_module
    k2 = ptxtile.compile(kernel_module.scale2, target="sm_90a", cache=False)
    a = np.zeros(128 * 4 + 1, dtype=np.float32)[1:].reshape(128, 4)
    b = np.zeros((128, 4), dtype=np.float32)
    with pytest.raises(ptxtile.LaunchError) as e:
        k2.emulate(a, b)
    assert e.value.code == 5014 and 'argument 1 ("A")' in str(e.value)
    aligned = np.arange(512, dtype=np.float32).reshape(128, 4)
    k2.emulate(aligned, b)
    assert np.array_equal(b, 2 * aligned)


def test_device_emulator_still_works_with_a_deprecation_warning():
    k = compiled("saxpy_relu.py")
    x = np.ones(8, dtype=np.float32)
    y = np.ones(8, dtype=np.float32)
    with pytest.warns(DeprecationWarning, match="kernel.emulate"):
        k(x, y, 1.0, device="emulator")
    assert np.array_equal(y, np.full(8, 2.0, np.float32))
    with pytest.raises(TypeError, match="emulate"):
        k(x, y, 1.0, late=True)


def test_read_only_input_is_not_written():
    k = compiled("saxpy_relu.py")
    x = np.arange(64, dtype=np.float32)
    x.flags.writeable = False
    y = np.ones(64, dtype=np.float32)
    k.emulate(x, y, 2.0)
    assert np.array_equal(y, np.maximum(2 * np.arange(64) + 1, 0))


def test_tma_store_through_the_planned_tensor_map():
    # examples/tma_store.py: CTA b writes rows 32 b .. 32 b + 31 of C with
    # value 1000 b + 64 r + c (r the tile row, c the column), via TMA
    k = compiled("tma_store.py")
    c = np.full((96, 64), -1.0, dtype=np.float32)
    k.emulate(c, late=True, check_races=True)
    r, col = np.meshgrid(np.arange(96), np.arange(64), indexing="ij")
    want = 1000 * (r // 32) + 64 * (r % 32) + col
    assert np.array_equal(c, want.astype(np.float32))


def test_argument_errors_are_the_launch_checks():
    k = compiled("saxpy_relu.py")
    x = np.zeros(8, dtype=np.float32)
    with pytest.raises(ptxtile.LaunchError) as e:
        k.emulate(x, [0.0] * 8, 1.0)
    assert "numpy array" in str(e.value)
    with pytest.raises(ptxtile.LaunchError) as e:
        k.emulate(x, np.zeros(8, dtype=np.float64), 1.0)
    assert "float64" in str(e.value)       # the planner's dtype check
    with pytest.raises(ptxtile.LaunchError) as e:
        k.emulate(x, np.zeros(9, dtype=np.float32), 1.0)
    assert "n" in str(e.value)             # n bound to 8 and to 9
    with pytest.raises(ptxtile.LaunchError):
        k.emulate(x, x)         # two arguments of three


def test_emulator_errors_carry_the_status():
    k = compiled("saxpy_relu.py")
    x = np.zeros(4096, dtype=np.float32)
    with pytest.raises(ptxtile.EmulatorError) as e:
        k.emulate(x, x.copy(), 1.0, max_steps=100)
    assert e.value.code == 9507 and "E9507" in str(e.value)


def test_option_spelling():
    k = compiled("saxpy_relu.py")
    x = np.zeros(4, dtype=np.float32)
    with pytest.raises(TypeError):
        k.emulate(x, x, 1.0, lates=True)
    with pytest.raises(TypeError):
        k(x, x, 1.0, late=True)            # an emulator option on the GPU
    with pytest.raises(TypeError):
        k(x, x, 1.0, device="gpu")
