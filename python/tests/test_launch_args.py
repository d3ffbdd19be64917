"""Launch arguments without a GPU: tensor-like stand-ins (objects with
__cuda_array_interface__ or __dlpack__ describing device memory that does
not exist) go through the same conversion and the runtime's checks
(ptrt_check_launch) as a launch; every error names the argument and what
the kernel expects.  Nothing here reaches a driver: Kernel.check() never
launches, and __call__ is used only with arguments the checks reject."""
import ctypes
import os

import pytest

import ptxtile
from ptxtile import _args, _lib, _runtime
from conftest import example


class CAI(object):
    """A stand-in CUDA array: __cuda_array_interface__ version 3."""

    def __init__(self, shape, typestr="<f4", ptr=0x7f0000010000,
                 strides=None):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr,
            "data": (ptr, False), "strides": strides, "version": 3}


class _DLTensor(ctypes.Structure):
    _fields_ = _args._DLTensor._fields_


class _DLManaged(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class DLPack(object):
    """A stand-in DLPack producer (dlpack.h DLManagedTensor, no deleter)
    on CUDA device `device`."""

    def __init__(self, shape, code=2, bits=32, device=0, ptr=0x7f0000020000,
                 strides=None, device_type=2):
        n = len(shape)
        self._shape = (ctypes.c_int64 * max(n, 1))(*shape)
        self._strides = (ctypes.c_int64 * max(n, 1))(*(strides or []))
        self._m = _DLManaged()
        t = self._m.dl_tensor
        t.data, t.device_type, t.device_id, t.ndim = ptr, device_type, \
            device, n
        t.code, t.bits, t.lanes = code, bits, 1
        t.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = (ctypes.cast(self._strides,
                                 ctypes.POINTER(ctypes.c_int64))
                     if strides else None)
        self.device = (device_type, device)
        self.streams = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return _capsule_new(ctypes.addressof(self._m), b"dltensor", None)


def has_driver():
    try:
        _runtime.get(0)
        return True
    except ptxtile.LaunchError:
        return False


@pytest.fixture
def add_one():
    import kernel_module as km
    return ptxtile.compile(km.add_one, target="sm_90a")


@pytest.fixture
def scale2():
    import kernel_module as km
    return ptxtile.compile(km.scale2, target="sm_90a")


def launch_error(fn, *args):
    with pytest.raises(ptxtile.LaunchError) as e:
        fn(*args)
    return e.value


# ---- the ptrt_arg layout ----

class _TensorPart(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_uint64), ("ndim", ctypes.c_int),
                ("shape", ctypes.c_int64 * 8),
                ("strides", ctypes.c_int64 * 8)]


class _Value(ctypes.Union):
    _fields_ = [("tensor", _TensorPart), ("i64", ctypes.c_int64),
                ("map", ctypes.c_void_p)]


class CArg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("dtype", ctypes.c_int),
                ("v", _Value)]


def c_arg(fn, argtypes, *args):
    f = getattr(_lib.runtime(), fn)
    f.restype, f.argtypes = CArg, argtypes
    return bytes(f(*args))


def test_arg_layout_is_the_c_struct():
    assert ctypes.sizeof(CArg) == _args.ARG_SIZE
    P = ctypes.POINTER(ctypes.c_int64)
    shape = (ctypes.c_int64 * 3)(5, 6, 7)
    strides = (ctypes.c_int64 * 3)(336, 56, 8)
    want = c_arg("ptrt_arg_tensor", [ctypes.c_uint64, ctypes.c_int,
                                     ctypes.c_int, P, P],
                 0x123456789a0, _args.dtype_enum("float64"), 3, shape,
                 strides)
    buf = ctypes.create_string_buffer(_args.ARG_SIZE)
    view = _args.TensorView(0x123456789a0, "float64", (5, 6, 7),
                            (336, 56, 8), 0)
    _args.pack_tensor(buf, 0, None, view)
    assert buf.raw == want
    for fn, ctype, dtype, value in (
            ("ptrt_arg_i32", ctypes.c_int32, "int32", -7),
            ("ptrt_arg_u32", ctypes.c_uint32, "uint32", 2 ** 32 - 1),
            ("ptrt_arg_i64", ctypes.c_int64, "int64", -2 ** 40),
            ("ptrt_arg_u64", ctypes.c_uint64, "uint64", 2 ** 64 - 1),
            ("ptrt_arg_f32", ctypes.c_float, "float32", 1.5),
            ("ptrt_arg_f64", ctypes.c_double, "float64", -2.25)):
        want = c_arg(fn, [ctype], value)
        buf = ctypes.create_string_buffer(_args.ARG_SIZE)
        p = type("P", (), {"dtype": dtype, "name": "s"})()
        _args.pack_scalar(buf, 0, p, value)
        assert buf.raw == want, fn


# ---- accepted arguments ----

def test_check_accepts_matching_stand_ins(add_one, scale2):
    add_one.check(CAI((1000,)), CAI((1000,)), 3)
    add_one.check(DLPack((1000,)), CAI((1000,)), True)
    scale2.check(CAI((128, 4)), DLPack((128, 4)))
    # a dimension of size 1 may have any stride
    scale2.check(CAI((128, 4)), CAI((128, 4), strides=(16, 4)))


def test_dlpack_gets_the_launch_stream(add_one):
    x = DLPack((8,))
    add_one.check(x, CAI((8,)), 1)
    assert x.streams == [1]  # no stream given: the legacy default stream


# ---- argument errors, each naming the argument ----

def test_wrong_argument_count(add_one):
    e = launch_error(add_one.check, CAI((8,)), CAI((8,)))
    assert e.code == 5008 and e.code_name == "E5008"
    assert isinstance(e, TypeError)  # as for any Python callable
    assert str(e) == 'kernel "add_one" takes 3 arguments (X, Y, k), got 2'


def test_wrong_dtype(add_one):
    e = launch_error(add_one.check, CAI((8,), "<f2"), CAI((8,)), 1)
    assert e.code == 5010
    assert str(e) == ('argument 1 ("X"): tensor of float16, the kernel '
                      'needs float32')
    e = launch_error(add_one.check, CAI((8,)), DLPack((8,), code=0), 1)
    assert str(e) == ('argument 2 ("Y"): tensor of int32, the kernel '
                      'needs float32')


def test_dtype_ptxtile_lacks(add_one):
    e = launch_error(add_one.check, CAI((8,), "<c8"), CAI((8,)), 1)
    assert e.code == 5010 and e.argument == 0
    assert "typestr '<c8' has no ptxtile dtype" in str(e)
    assert "the kernel needs float32" in str(e)


def test_fixed_shape(scale2):
    e = launch_error(scale2.check, CAI((64, 4)), CAI((128, 4)))
    assert e.code == 5012
    assert str(e) == ('argument 1 ("A"): dim 0 is 64, the kernel needs '
                      '128')
    e = launch_error(scale2.check, CAI((128, 4)), CAI((512,)))
    assert str(e) == ('argument 2 ("B"): rank 1, the kernel needs rank 2')


def test_symbolic_sizes_must_agree(add_one):
    e = launch_error(add_one.check, CAI((1000,)), CAI((999,)), 1)
    assert e.code == 5013
    assert str(e) == ('symbolic size "n" is 1000 from argument 1 dim 0 but '
                      '999 from argument 2 ("Y") dim 0')


def test_strides(scale2, add_one):
    e = launch_error(scale2.check, CAI((128, 4)),
                     CAI((128, 4), strides=(32, 4)))
    assert e.code == 5015
    assert str(e).startswith('argument 2 ("B"): dim 0 has stride 32 bytes; '
                             'the kernel needs a dense row-major tensor')
    e = launch_error(add_one.check, DLPack((8,), strides=[2]), CAI((8,)), 1)
    assert e.code == 5015 and "stride 8 bytes" in str(e)


def test_alignment(scale2):
    e = launch_error(scale2.check, CAI((128, 4), ptr=0x7f0000010004),
                     CAI((128, 4)))
    assert e.code == 5014
    assert str(e) == ('argument 1 ("A"): address 0x7f0000010004 is not '
                      '16-byte aligned')


def test_null_pointer(scale2):
    e = launch_error(scale2.check, CAI((128, 4), ptr=0), CAI((128, 4)))
    assert e.code == 5011


def test_not_a_tensor(add_one):
    e = launch_error(add_one.check, [1.0, 2.0], CAI((2,)), 1)
    assert e.code == 5009 and e.argument == 0
    assert 'argument 1 ("X"): expected a tensor' in str(e)
    assert "got list" in str(e)


def test_host_memory_is_refused(add_one):
    e = launch_error(add_one.check, CAI((8,)), DLPack((8,), device_type=1),
                     1)
    assert 'argument 2 ("Y"): a tensor on cpu' in str(e)
    np = pytest.importorskip("numpy")
    # a launch reads device memory: numpy arrays are refused
    e = launch_error(add_one, np.zeros(8, np.float32), CAI((8,)), 1)
    assert 'argument 1 ("X"): a tensor on cpu' in str(e)


def test_check_validates_host_arrays(add_one):
    # Kernel.check needs no GPU: numpy arrays are checked against the
    # signature at their host addresses
    np = pytest.importorskip("numpy")
    x, y = np.zeros(8, np.float32), np.zeros(8, np.float32)
    add_one.check(x, y, 1)
    e = launch_error(add_one.check, x, np.zeros(9, np.float32), 1)
    assert e.code == 5013 and "n" in str(e)
    e = launch_error(add_one.check, x, np.zeros(8, np.float64), 1)
    assert e.code == 5010 and "float64" in str(e)
    e = launch_error(add_one.check, x, np.zeros((8, 2), np.float32)[:, 0], 1)
    assert e.code == 5015 and "stride 8" in str(e)


def test_tensors_on_two_devices(add_one):
    # a tensor on another device is a peer pointer: Python packs it, the
    # runtime checks at launch that the launch device reaches it
    # (test_multigpu_args.py; tests/unit/test_rt_driver.c rt_peer_*)
    add_one.check(DLPack((8,), device=0), DLPack((8,), device=1), 1)


def test_scalars_are_converted_and_range_checked(add_one):
    x, y = CAI((8,)), CAI((8,))
    e = launch_error(add_one.check, x, y, 1.5)
    assert str(e) == 'argument 3 ("k"): expected a int32 scalar, got float'
    e = launch_error(add_one.check, x, y, 2 ** 31)
    assert str(e) == 'argument 3 ("k"): 2147483648 does not fit int32'
    e = launch_error(add_one.check, x, y, "3")
    assert "got str" in str(e)
    e = launch_error(add_one.check, x, y, CAI((1,)))
    assert e.code in (5009, 5010)
    add_one.check(x, y, -2 ** 31)
    np = pytest.importorskip("numpy")
    add_one.check(x, y, np.int64(5))


def test_float_scalar_takes_ints():
    k = ptxtile.compile(example("saxpy_relu.py"), target="sm_90a")
    k.check(CAI((8,)), CAI((8,)), 2)
    k.check(CAI((8,)), CAI((8,)), 2.5)
    e = launch_error(k.check, CAI((8,)), CAI((8,)), None)
    assert 'argument 3 ("a"): expected a float32 scalar' in str(e)


def test_tma_parameters_are_checked_from_the_tensor():
    # the runtime encodes tmA from A: the TMA limits apply to A
    k = ptxtile.compile(example("tma_load_swizzle.py"), target="sm_90a")
    ok = [CAI((128, 64), "<f2"), CAI((128, 64), "<f2"), CAI((128, 64), "<f2")]
    k.check(*ok)
    e = launch_error(k.check, CAI((128, 64), "<f2", strides=(136, 2)),
                     *ok[1:])
    assert e.code in (5015, 5016)
    assert "stride" in str(e)


def test_user_tensor_map_is_128_bytes():
    src = ("from tvm_tirx.script import tirx as T\n"
           "@T.function\ndef k(A: T.Tensor((4,), 'float32'), "
           "m: T.TensorMap()):\n"
           "    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))\n"
           "    A[0] = T.float32(1.0)\n")
    k = ptxtile.compile(src, target="sm_90a")
    k.check(CAI((4,)), bytes(128))
    e = launch_error(k.check, CAI((4,)), bytes(127))
    assert str(e) == 'argument 2 ("m"): a tensor map is 128 bytes, got 127'
    e = launch_error(k.check, CAI((4,)), 3)
    assert "expected a 128-byte CUtensorMap" in str(e)


def test_call_reports_argument_errors_first(add_one):
    # without a GPU, a bad argument is reported as such (not as "no
    # driver"); with one, ptrt_launch refuses it before the driver
    e = launch_error(add_one, CAI((8,), "<i4"), CAI((8,)), 1)
    assert e.code == 5010 and 'argument 1 ("X")' in str(e)
    e = launch_error(add_one, CAI((8,)), CAI((9,)), 1)
    assert e.code == 5013


@pytest.mark.skipif(has_driver(), reason="a CUDA driver is present")
def test_call_without_driver_says_so(add_one):
    e = launch_error(add_one, CAI((8,)), CAI((8,)), 1)
    assert e.code in (5001, 5002, 5003)
    assert "no CUDA device 0 for ptxtile" in str(e)


def test_stream_argument_type(add_one):
    with pytest.raises(TypeError, match="stream="):
        add_one(CAI((8,)), CAI((8,)), 1, stream="fast")


def test_hostile_shapes_raise(add_one, scale2):
    e = launch_error(add_one.check, CAI((2 ** 70,)), CAI((8,)), 1)
    assert 'argument 1 ("X"): a value out of range' in str(e)
    e = launch_error(add_one.check, CAI((1,) * 9), CAI((8,)), 1)
    assert e.code == 5012 and "rank 9; the kernel needs rank 1" in str(e)
    e = launch_error(add_one.check, CAI((-4,)), CAI((-4,)), 1)
    assert e.code == 5012 and "negative size" in str(e)
    e = launch_error(scale2.check, CAI((128, 4), ptr=2 ** 64), CAI((128, 4)))
    assert "out of range" in str(e)
