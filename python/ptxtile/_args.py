"""Turning Python launch arguments into the ptrt_arg array of
include/ptxtile_rt.h.

Tensor arguments are torch tensors or any object with
__cuda_array_interface__ or __dlpack__; scalars are Python numbers (or
anything with __index__ / __float__) converted to the declared type;
tensor-map arguments are 128 bytes.  What Python can tell (not a tensor,
not on a CUDA device, a dtype ptxtile lacks, a value out of range) is
reported here; dtype, shape, symbolic sizes, strides and alignment are
checked by the runtime against the metadata (ptrt_launch, or
ptrt_check_launch without a GPU), so both paths give the same message.
"""
import ctypes
import operator
import struct
import sys

from . import _lib
from ._errors import ArgumentCountError, LaunchError

# ptrt_arg: kind and dtype (ints), then a union at offset 8: the tensor
# (u64 ptr, int ndim, int64 shape[8], int64 strides[8] in bytes), a scalar,
# or a tensor map pointer.  Little-endian x86-64 / aarch64 layout.
MAX_DIMS = 8
_TENSOR = struct.Struct("=iiQi4x8q8q")
ARG_SIZE = _TENSOR.size  # 152; checked against the C struct in the tests
ARG_TENSOR, ARG_SCALAR, ARG_TENSORMAP = 0, 1, 2
_SCALAR = {"int32": struct.Struct("=iii"), "uint32": struct.Struct("=iiI"),
           "int64": struct.Struct("=iiq"), "uint64": struct.Struct("=iiQ"),
           "float32": struct.Struct("=iif"), "float64": struct.Struct("=iid")}
_RANGE = {"int32": (-2 ** 31, 2 ** 31 - 1), "uint32": (0, 2 ** 32 - 1),
          "int64": (-2 ** 63, 2 ** 63 - 1), "uint64": (0, 2 ** 64 - 1)}
_MAP = struct.Struct("=iiQ")

_dtype_enum = {}


def dtype_enum(name):
    """The ptrt_dtype of a dtype name, read from the runtime library
    (ptrt_dtype_name) so the numbering has one source."""
    if not _dtype_enum:
        rt = _lib.runtime()
        i = 1
        while True:
            n = rt.ptrt_dtype_name(i)
            if not n:
                break
            _dtype_enum[n.decode()] = i
            i += 1
    return _dtype_enum.get(name, 0)


# __cuda_array_interface__ typestr (without byte order) -> dtype name
_TYPESTR = {"b1": "bool", "i1": "int8", "i2": "int16", "i4": "int32",
            "i8": "int64", "u1": "uint8", "u2": "uint16", "u4": "uint32",
            "u8": "uint64", "f2": "float16", "f4": "float32",
            "f8": "float64"}
# DLPack (type code, bits) -> dtype name (dlpack.h DLDataTypeCode)
_DLPACK = {(0, 8): "int8", (0, 16): "int16", (0, 32): "int32",
           (0, 64): "int64", (1, 8): "uint8", (1, 16): "uint16",
           (1, 32): "uint32", (1, 64): "uint64", (2, 16): "float16",
           (2, 32): "float32", (2, 64): "float64", (4, 16): "bfloat16",
           (6, 8): "bool", (10, 8): "float8_e4m3fn", (12, 8): "float8_e5m2"}
_KDL_CUDA, _KDL_CUDA_MANAGED = 2, 13
_DEVICE_NAMES = {1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl",
                 7: "vulkan", 8: "metal", 9: "vpi", 10: "rocm", 13:
                 "cuda_managed", 14: "oneapi"}

def check_count(name, user, args):
    """The one argument-count check of a launch (GPU and emulator): user
    is the kernel's user parameters (ptxtile.Kernel._user)."""
    if len(args) != len(user):
        raise ArgumentCountError(
            'kernel "%s" takes %d arguments (%s), got %d'
            % (name, len(user), ", ".join(p.name for p in user), len(args)))


_torch_dtypes = {}


def _torch_dtype_name(torch, dt):
    if not _torch_dtypes:
        # the library's dtypes that torch spells alike
        for name, _, _ in _lib.table("dtype"):
            t = getattr(torch, name, None)
            if t is not None:
                _torch_dtypes[t] = name
    return _torch_dtypes.get(dt)


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class TensorView(object):
    """What a launch needs of a tensor argument."""

    __slots__ = ("ptr", "dtype", "shape", "strides", "device", "keep")

    def __init__(self, ptr, dtype, shape, strides, device, keep=None):
        self.ptr = ptr          # device address of element 0
        self.dtype = dtype      # dtype name, or a description when unknown
        self.shape = shape      # tuple, outermost first
        self.strides = strides  # tuple of byte strides
        self.device = device    # CUDA ordinal, or None when not known
        self.keep = keep        # what must live until the launch is made


class DevicePointer(object):
    """A tensor argument given as a raw device address: shape (outermost
    first), dtype (a ptxtile dtype name: "float32", "bfloat16", ...),
    strides in elements (None: dense row-major) and the CUDA device it
    is declared on (None: not known).  For memory no tensor object
    describes - a peer's buffer mapped into this process, an address from
    another library.  The runtime checks before the launch that the
    launch device reaches the address (ptxtile.PeerAccessError when not);
    the launch goes to `device` when it is the first tensor argument and
    kernel(..., device=) does not say otherwise."""

    __slots__ = ("ptr", "shape", "dtype", "strides", "device")

    def __init__(self, ptr, shape, dtype, device=None, strides=None):
        self.ptr = operator.index(ptr)
        if not 0 <= self.ptr < 2 ** 64:
            raise ValueError("DevicePointer: address %d is not a 64-bit "
                             "address" % self.ptr)
        self.shape = tuple(operator.index(d) for d in shape)
        self.dtype = str(dtype).replace("torch.", "")
        self.strides = (None if strides is None else
                        tuple(operator.index(s) for s in strides))
        if self.strides is not None and len(self.strides) != len(self.shape):
            raise ValueError("DevicePointer: %d strides for %d dims"
                             % (len(self.strides), len(self.shape)))
        self.device = None if device is None else device_ordinal(device)

    def __repr__(self):
        return "DevicePointer(0x%x, %s, %r, device=%s)" % (
            self.ptr, self.shape, self.dtype, self.device)


def device_ordinal(device):
    """The CUDA ordinal of 1, "cuda:1" or torch.device("cuda", 1)."""
    if isinstance(device, int) and not isinstance(device, bool):
        if device < 0:
            raise ValueError("device %d: a CUDA ordinal is >= 0" % device)
        return device
    text = str(device)
    if text.startswith("cuda:") and text[5:].isdigit():
        return int(text[5:])
    index = getattr(device, "index", None)
    if getattr(device, "type", None) == "cuda" and index is not None:
        return int(index)
    raise ValueError("device %r: expected a CUDA ordinal (int), \"cuda:N\" "
                     "or a torch.device of type cuda with an index"
                     % (device,))


def _from_pointer(obj, i, p):
    itemsize = _ITEMSIZE.get(obj.dtype)
    if itemsize is None or dtype_enum(obj.dtype) == 0:
        raise _bad(i, p, "DevicePointer dtype %r is no ptxtile dtype of "
                   "whole bytes; the kernel needs %s" % (obj.dtype, p.dtype),
                   _lib.code("RT_ARG_DTYPE"))
    strides = (_dense_strides(obj.shape, itemsize) if obj.strides is None
               else tuple(s * itemsize for s in obj.strides))
    return TensorView(obj.ptr, obj.dtype, obj.shape, strides, obj.device)


_ITEMSIZE = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2,
             "float16": 2, "bfloat16": 2, "int32": 4, "uint32": 4,
             "float32": 4, "tf32": 4, "int64": 8, "uint64": 8, "float64": 8,
             "float8_e4m3fn": 1, "float8_e5m2": 1}


def _dense_strides(shape, itemsize):
    out, s = [], itemsize
    for d in reversed(shape):
        out.append(s)
        s *= max(d, 1)
    return tuple(reversed(out))


def _bad(i, p, what, code=0):
    return LaunchError('argument %d ("%s"): %s' % (i + 1, p.name, what),
                       code, i)


def _from_torch(t, i, p):
    if not t.is_cuda:
        raise _bad(i, p, "a tensor on %s; the kernel reads device memory "
                   "(move it with .cuda())" % t.device)
    name = _torch_dtype_name(sys.modules["torch"], t.dtype)
    if name is None:
        raise _bad(i, p, "tensor of %s, which ptxtile has no dtype for; "
                   "the kernel needs %s" % (t.dtype, p.dtype), _lib.code("RT_ARG_DTYPE"))
    es = t.element_size()
    return TensorView(t.data_ptr(), name, tuple(t.shape),
                      tuple(s * es for s in t.stride()), t.get_device())


def _from_cai(obj, i, p):
    cai = obj.__cuda_array_interface__
    typestr = cai.get("typestr", "")
    name = _TYPESTR.get(typestr[1:]) if typestr[:1] in "<|=" else None
    if name is None:
        raise _bad(i, p, "__cuda_array_interface__ typestr %r has no "
                   "ptxtile dtype; the kernel needs %s" % (typestr, p.dtype),
                   _lib.code("RT_ARG_DTYPE"))
    shape = tuple(int(d) for d in cai["shape"])
    itemsize = int(typestr[2:])
    strides = cai.get("strides")
    strides = (tuple(int(s) for s in strides) if strides is not None
               else _dense_strides(shape, itemsize))
    return TensorView(int(cai["data"][0]), name, shape, strides, None)


def _from_dlpack(obj, i, p, stream):
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is not None:
        kind, ordinal = dev()
        if kind not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
            raise _bad(i, p, "a tensor on %s (DLPack device type %d); the "
                       "kernel reads CUDA device memory"
                       % (_DEVICE_NAMES.get(kind, "?"), kind))
        try:  # the consumer's stream; 1 is the legacy default stream
            cap = obj.__dlpack__(stream=stream or 1)
        except TypeError:
            cap = obj.__dlpack__()
    else:
        cap = obj.__dlpack__()
    addr = _capsule_pointer(cap, b"dltensor")
    if not addr:
        raise _bad(i, p, "__dlpack__ gave no DLTensor")
    dl = _DLTensor.from_address(addr)  # DLManagedTensor starts with it
    if dl.device_type not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        raise _bad(i, p, "a tensor on %s (DLPack device type %d); the kernel "
                   "reads CUDA device memory"
                   % (_DEVICE_NAMES.get(dl.device_type, "?"),
                      dl.device_type))
    name = _DLPACK.get((dl.code, dl.bits)) if dl.lanes == 1 else None
    if name is None:
        raise _bad(i, p, "DLPack dtype (code %d, %d bits, %d lanes) has no "
                   "ptxtile dtype; the kernel needs %s"
                   % (dl.code, dl.bits, dl.lanes, p.dtype), _lib.code("RT_ARG_DTYPE"))
    if not 0 <= dl.ndim <= 64:
        raise _bad(i, p, "DLPack rank %d" % dl.ndim, _lib.code("RT_ARG_SHAPE"))
    shape = tuple(dl.shape[d] for d in range(dl.ndim))
    itemsize = dl.bits // 8
    strides = (tuple(dl.strides[d] * itemsize for d in range(dl.ndim))
               if dl.strides else _dense_strides(shape, itemsize))
    return TensorView((dl.data or 0) + dl.byte_offset, name, shape, strides,
                      dl.device_id, cap)


def tensor_view(obj, i, p, stream=None):
    """The TensorView of argument i (param p); LaunchError when obj is no
    tensor Python can read, or not in CUDA memory."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return _from_torch(obj, i, p)
    if isinstance(obj, DevicePointer):
        return _from_pointer(obj, i, p)
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cai(obj, i, p)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, i, p, stream)
    raise _bad(i, p, "expected a tensor (a torch.Tensor or an object with "
               "__cuda_array_interface__ or __dlpack__), got %s"
               % type(obj).__name__, _lib.code("RT_ARG_KIND"))


# numpy dtype name -> ptxtile dtype names it may hold (same width: the raw
# bits of the types numpy lacks)
RAW_BITS = {"uint16": ("bfloat16",), "uint8": ("float8_e4m3fn",
                                               "float8_e5m2")}


def host_view(obj, i, p):
    """The TensorView of a host array (numpy, or anything with
    __array_interface__; a CPU torch tensor) at its host address, for the
    checks of Kernel.check and the emulator; None when obj is neither."""
    torch = sys.modules.get("torch")
    if isinstance(obj, DevicePointer):
        return None  # a device address, checked as given
    if torch is not None and isinstance(obj, torch.Tensor):
        if obj.is_cuda:
            return None
        name = _torch_dtype_name(torch, obj.dtype)
        if name is None:
            raise _bad(i, p, "tensor of %s, which ptxtile has no dtype "
                       "for; the kernel needs %s" % (obj.dtype, p.dtype),
                       _lib.code("RT_ARG_DTYPE"))
        es = obj.element_size()
        return TensorView(obj.data_ptr(), name, tuple(obj.shape),
                          tuple(s * es for s in obj.stride()), None)
    ai = getattr(obj, "__array_interface__", None)
    if ai is None:
        return None
    typestr = ai.get("typestr", "")
    name = _TYPESTR.get(typestr[1:]) if typestr[:1] in "<|=" else None
    if name is None:
        raise _bad(i, p, "array typestr %r has no ptxtile dtype; the "
                   "kernel needs %s" % (typestr, p.dtype), _lib.code("RT_ARG_DTYPE"))
    if p.dtype != name and p.dtype in RAW_BITS.get(name, ()):
        name = p.dtype  # raw bits of a type numpy lacks
    shape = tuple(int(d) for d in ai["shape"])
    strides = ai.get("strides")
    strides = (tuple(int(s) for s in strides) if strides is not None
               else _dense_strides(shape, int(typestr[2:])))
    return TensorView(int(ai["data"][0]), name, shape, strides, None)


# the tensor part for each rank n: shape[n], the unused shape entries
# skipped, strides[n] (the entries past ndim are never read)
_TENSOR_N = [struct.Struct("=iiQi4x%dq%dx%dq" % (n, 8 * (MAX_DIMS - n), n))
             for n in range(MAX_DIMS + 1)]


def _rank_error(i, p, n):
    return _bad(i, p, "rank %d; the kernel needs rank %d"
                % (n, len(p.shape or ())), _lib.code("RT_ARG_SHAPE"))


def pack_tensor(buf, i, p, v):
    n = len(v.shape)
    if n > MAX_DIMS:
        raise _rank_error(i, p, n)
    _TENSOR_N[n].pack_into(buf, i * ARG_SIZE, ARG_TENSOR,
                           dtype_enum(v.dtype), v.ptr, n,
                           *(v.shape + v.strides))


_torch_enum = {}


def pack_torch(buf, i, p, t):
    """The fast path for a torch tensor (the common case): packs it and
    returns its CUDA device ordinal."""
    if not t.is_cuda:
        raise _bad(i, p, "a tensor on %s; the kernel reads device memory "
                   "(move it with .cuda())" % t.device)
    dt = _torch_enum.get(t.dtype)
    if dt is None:
        name = _torch_dtype_name(sys.modules["torch"], t.dtype)
        if name is None:
            raise _bad(i, p, "tensor of %s, which ptxtile has no dtype for; "
                       "the kernel needs %s" % (t.dtype, p.dtype), _lib.code("RT_ARG_DTYPE"))
        dt = _torch_enum[t.dtype] = dtype_enum(name)
    shape = t.shape
    n = len(shape)
    if n > MAX_DIMS:
        raise _rank_error(i, p, n)
    es = t.element_size()
    _TENSOR_N[n].pack_into(buf, i * ARG_SIZE, ARG_TENSOR, dt, t.data_ptr(),
                           n, *shape, *[s * es for s in t.stride()])
    return t.get_device()


def pack_scalar(buf, i, p, value):
    if isinstance(value, (str, bytes)) or (
            hasattr(value, "shape") and getattr(value, "ndim", 0)):
        raise _bad(i, p, "expected a %s scalar, got %s"
                   % (p.dtype, type(value).__name__), _lib.code("RT_ARG_KIND"))
    rng = _RANGE.get(p.dtype)
    try:
        v = operator.index(value) if rng else float(value)
    except (TypeError, ValueError):
        raise _bad(i, p, "expected a %s scalar, got %s"
                   % (p.dtype, type(value).__name__), _lib.code("RT_ARG_DTYPE"))
    if rng and not rng[0] <= v <= rng[1]:
        raise _bad(i, p, "%d does not fit %s" % (v, p.dtype), _lib.code("RT_ARG_DTYPE"))
    _SCALAR[p.dtype].pack_into(buf, i * ARG_SIZE, ARG_SCALAR,
                               dtype_enum(p.dtype), v)


def pack_tensormap(buf, i, p, value, keep):
    try:
        data = memoryview(value).cast("B")
    except TypeError:
        raise _bad(i, p, "expected a 128-byte CUtensorMap (bytes-like), "
                   "got %s" % type(value).__name__, _lib.code("RT_ARG_KIND"))
    if data.nbytes != 128:
        raise _bad(i, p, "a tensor map is 128 bytes, got %d" % data.nbytes,
                   _lib.code("RT_ARG_KIND"))
    box = ctypes.create_string_buffer(128 + 64)
    addr = (ctypes.addressof(box) + 63) & ~63
    ctypes.memmove(addr, bytes(data), 128)
    keep.append(box)
    _MAP.pack_into(buf, i * ARG_SIZE, ARG_TENSORMAP, 0, addr)
