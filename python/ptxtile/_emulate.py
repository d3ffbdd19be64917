"""kernel(*args, device="emulator"): a launch in the PTX emulator
(docs/emulator.md) on host arrays, with no GPU or driver.

Tensor arguments are numpy arrays (any layout; a copy in C order goes to
the emulator and the result is written back into the array unless it is
read-only); a
bfloat16 / float8 parameter takes an array of the same-width unsigned
integers holding its bits.  The runtime's launch planner checks the
arguments exactly as a GPU launch does (ptrt_plan_launch) and computes
the parameters and tensor maps; libptxtile's emulator (ptem_*) runs the
PTX.  An emulator error (E95xx: what failed, where) is an EmulatorError.
"""
import ctypes

from . import _args, _lib
from ._errors import LaunchError

P = ctypes.POINTER
c_int, c_size_t, c_char_p, c_void_p, c_uint64 = (
    ctypes.c_int, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_void_p,
    ctypes.c_uint64)

LATE_COMPLETION, CHECK_RACES, CHECK_ORDER = 1, 2, 4


class EmulatorError(LaunchError):
    """The kernel failed in the emulator (or its PTX cannot be emulated);
    .code is the E95xx status."""


@_lib.c_struct("ptrt_plan_tma")
class _PlanTma(ctypes.Structure):
    _fields_ = [("format", c_int), ("rank", c_int), ("addr", c_uint64),
                ("dims", c_uint64 * 5), ("strides", c_uint64 * 4),
                ("box", ctypes.c_uint32 * 5),
                ("elem_strides", ctypes.c_uint32 * 5),
                ("interleave", c_int), ("swizzle", c_int),
                ("oob_fill", c_int)]


@_lib.c_struct("ptrt_plan_param")
class _PlanParam(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("is_tma", c_int),
                ("bytes", ctypes.c_uint8 * 128), ("tma", _PlanTma)]


@_lib.c_struct("ptrt_plan")
class _Plan(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3),
                ("cluster", ctypes.c_uint32 * 3), ("smem", ctypes.c_uint32),
                ("nparams", ctypes.c_uint32), ("params", P(_PlanParam))]


@_lib.c_struct("ptem_launch")
class _Launch(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("cluster", ctypes.c_uint * 3), ("dynamic_smem", ctypes.c_uint),
                ("flags", ctypes.c_uint), ("max_steps", c_uint64)]


@_lib.c_struct("ptem_arg")
class _Arg(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("size", c_size_t)]


# ptem_tma_desc has the fields of _PlanTma in the same order and types
_TmaDesc = _lib.c_struct("ptem_tma_desc")(_PlanTma)

_PROTOS = {
    "ptem_new": (c_void_p, []),
    "ptem_free": (None, [c_void_p]),
    "ptem_load": (c_int, [c_void_p, c_char_p, c_size_t]),
    "ptem_alloc": (c_int, [c_void_p, c_size_t, P(c_uint64)]),
    "ptem_host": (c_void_p, [c_void_p, c_uint64, c_size_t]),
    "ptem_run": (c_int, [c_void_p, c_char_p, P(_Launch), P(_Arg), c_size_t]),
    "ptem_errmsg": (c_char_p, [c_void_p]),
    "ptem_steps": (c_uint64, [c_void_p]),
    "ptem_tensormap_encode": (c_int, [P(_TmaDesc), c_void_p]),
    "ptem_group_new": (c_void_p, [ctypes.c_uint]),
    "ptem_group_free": (None, [c_void_p]),
    "ptem_group_device": (c_void_p, [c_void_p, ctypes.c_uint]),
    "ptem_group_run": (c_int, [c_void_p, c_void_p, c_size_t]),
    "ptem_group_errmsg": (c_char_p, [c_void_p]),
}
_RT_PROTOS = {
    "ptrt_plan_launch": (c_int, [c_char_p, c_size_t, c_char_p, c_void_p,
                                 c_size_t, P(_Plan), c_char_p, c_size_t]),
}

_RAW = _args.RAW_BITS


def _libs():
    lib = _lib.compiler()
    rt = _lib.runtime()
    if not getattr(lib, "_ptem_protos", False):
        for name, (res, args) in list(_PROTOS.items()):
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        for name, (res, args) in _RT_PROTOS.items():
            f = getattr(rt, name)
            f.restype, f.argtypes = res, args
        lib._ptem_protos = True
    return lib, rt


def _host_array(i, p, a):
    """A C-order copy of numpy array a and the dtype name to declare."""
    np = _numpy(i, p)
    if not isinstance(a, np.ndarray):
        raise _args._bad(i, p, "expected a numpy array for the emulator, "
                         "got %s" % type(a).__name__, _lib.code("RT_ARG_KIND"))
    name = a.dtype.name
    if p.dtype != name and p.dtype in _RAW.get(name, ()):
        name = p.dtype  # raw bits of a type numpy lacks
    return np.ascontiguousarray(a), name


def _numpy(i, p):
    try:
        import numpy
    except ImportError:
        raise _args._bad(i, p, "device=\"emulator\" takes numpy arrays, "
                         "and numpy is not installed", _lib.code("RT_ARG_KIND"))
    return numpy


def launch(kernel, args, late=False, check_races=False, max_steps=0):
    """Runs kernel (a ptxtile.Kernel) on args in the emulator; tensor
    arguments are updated in place."""
    lib, rt = _libs()
    _args.check_count(kernel.name, kernel._user, args)
    e = lib.ptem_new()
    if not e:
        raise MemoryError("ptem_new")
    try:
        return _run(lib, rt, e, kernel, args, late, check_races, max_steps)
    finally:
        lib.ptem_free(e)


def _fail(lib, e, what, rc):
    msg = lib.ptem_errmsg(e).decode(errors="replace")
    return EmulatorError("%s: error[%s]: %s" % (what, _lib.code_name(rc), msg),
                         rc)


def _check_like_gpu(kernel, args):
    """The launch checks of a GPU launch (Kernel.check: layout, strides,
    alignment, ...) on the arrays as given, before they are copied into
    the emulator, so what a GPU refuses the emulator refuses too."""
    for i, p in enumerate(kernel._user):
        if p.kind == "tensor":
            np = _numpy(i, p)
            if not isinstance(args[i], np.ndarray):
                raise _args._bad(i, p, "expected a numpy array for the "
                                 "emulator, got %s" % type(args[i]).__name__,
                                 _lib.code("RT_ARG_KIND"))
    kernel.check(*args)


def _run(lib, rt, e, kernel, args, late, check_races, max_steps):
    _check_like_gpu(kernel, args)
    ptx = kernel.ptx.encode()
    rc = lib.ptem_load(e, ptx, len(ptx))
    if rc:
        raise _fail(lib, e, "the PTX of %s" % kernel.name, rc)
    buf = kernel._new_buffer()
    copies = []  # (original array, C-order copy, emulated address)
    keep = []
    for i, p in enumerate(kernel._user):
        a = args[i]
        if p.kind == "tensor":
            host, dtype = _host_array(i, p, a)
            addr = c_uint64()
            if lib.ptem_alloc(e, max(host.nbytes, 1), ctypes.byref(addr)):
                raise _fail(lib, e, "allocating %s" % p.name, 1)
            if host.nbytes:
                ctypes.memmove(lib.ptem_host(e, addr.value, host.nbytes),
                               host.ctypes.data, host.nbytes)
            copies.append((a, host, addr.value))
            _args.pack_tensor(buf, i, p, _args.TensorView(
                addr.value, dtype, tuple(host.shape), tuple(host.strides),
                None))
        elif p.kind == "scalar":
            _args.pack_scalar(buf, i, p, a)
        else:
            raise _args._bad(i, p, "a user-encoded tensor map: the "
                             "emulator reads its own encoding, not the "
                             "driver's", _lib.code("RT_ARG_KIND"))
    l, argv, n = _plan(lib, rt, kernel, buf, len(args), keep)
    l.flags = (LATE_COMPLETION if late else 0) | \
        (CHECK_RACES if check_races else 0)
    l.max_steps = max_steps
    rc = lib.ptem_run(e, kernel.name.encode(), ctypes.byref(l), argv, n)
    if rc:
        raise _fail(lib, e, kernel.name, rc)
    for orig, host, addr in copies:
        if not orig.flags.writeable:
            continue  # an input the caller cannot get back anyway
        if host is orig and not host.flags.c_contiguous:
            continue
        if host.nbytes:
            ctypes.memmove(host.ctypes.data,
                           lib.ptem_host(e, addr, host.nbytes), host.nbytes)
        if host is not orig:
            orig[...] = host
    return lib.ptem_steps(e)


def _plan(lib, rt, kernel, buf, nargs, keep):
    """The emulator launch of the packed arguments buf: the runtime's
    plan (ptrt_plan_launch: the checks of a GPU launch), its parameters
    with the tensor maps in the emulator's encoding.  Returns (ptem
    launch, parameter array, parameter count); keep holds their bytes."""
    params = (_PlanParam * max(1, len(kernel._params)))()
    plan = _Plan(nparams=len(params), params=params)
    msg = ctypes.create_string_buffer(4096)
    meta = kernel.meta_json.encode()
    rc = rt.ptrt_plan_launch(meta, len(meta), kernel.name.encode(),
                             ctypes.addressof(buf), nargs,
                             ctypes.byref(plan), msg, len(msg))
    if rc:
        raise LaunchError(msg.value.decode(errors="replace"), rc)
    argv = (_Arg * max(1, plan.nparams))()
    for j in range(plan.nparams):
        q = params[j]
        data = ctypes.create_string_buffer(128)
        if q.is_tma:
            st = lib.ptem_tensormap_encode(ctypes.byref(q.tma), data)
            if st:
                raise EmulatorError("tensor map of parameter %d: error[%s]"
                                    % (j, _lib.code_name(st)), st)
        else:
            ctypes.memmove(data, q.bytes, q.size)
        keep.append(data)
        argv[j].data = ctypes.cast(data, c_void_p)
        argv[j].size = q.size
    keep.append(argv)
    l = _Launch()
    for d in range(3):
        l.grid[d], l.block[d] = plan.grid[d], plan.block[d]
        l.cluster[d] = plan.cluster[d]
    l.dynamic_smem = plan.smem
    return l, argv, plan.nparams


class _DeviceLaunch(ctypes.Structure):
    _fields_ = [("kernel", c_char_p), ("launch", _Launch),
                ("args", P(_Arg)), ("nargs", c_size_t)]


class EmulatedDevices(object):
    """`n` emulated devices (1..8; libptxtile's ptem_group) for multi-GPU
    kernels without GPUs: each device has its own global memory in its
    own address window, and reaches every other device's memory through
    the same addresses (a peer pointer is an address in another window,
    as with CUDA's unified addressing; docs/emulator.md).

        devs = ptxtile.EmulatedDevices(2)
        x = [devs.put(d, np.full(8, d, np.float32)) for d in range(2)]
        devs.run([(k, (x[0], x[1], 8)), (k, (x[1], x[0], 8))])
        devs.get(x[0])          # a numpy copy of device 0's buffer

    Tensor arguments are DevicePointers (from put / zeros, or built from
    addresses read out of them); run() launches one kernel per device,
    interleaved so that one device's spin on a flag another sets ends,
    after the checks of a GPU launch on each.  check_order=True (the
    default) reports a plain read racing another device's release write
    (E9561); a spin that cannot end is E9560."""

    def __init__(self, n, check_order=True):
        self._lib, self._rt = _libs()
        if not 1 <= n <= 8:
            raise ValueError("EmulatedDevices: 1 to 8 devices, not %d" % n)
        self._g = self._lib.ptem_group_new(n)
        if not self._g:
            raise MemoryError("ptem_group_new")
        self.n = n
        self.check_order = check_order
        self._loaded = [None] * n

    def close(self):
        if self._g:
            self._lib.ptem_group_free(self._g)
            self._g = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _dev(self, d):
        if not self._g:
            raise ValueError("EmulatedDevices: closed")
        if not (isinstance(d, int) and 0 <= d < self.n):
            raise ValueError("EmulatedDevices: no device %r (0..%d)"
                             % (d, self.n - 1))
        return self._lib.ptem_group_device(self._g, d)

    def zeros(self, device, shape, dtype):
        """A zeroed buffer on `device`: a DevicePointer of that shape and
        dtype (a ptxtile dtype name)."""
        nbytes = _args._ITEMSIZE[dtype]
        for s in shape:
            nbytes *= s
        e = self._dev(device)
        addr = c_uint64()
        if self._lib.ptem_alloc(e, max(nbytes, 1), ctypes.byref(addr)):
            raise EmulatorError("device %d: %s" % (device, self._lib.ptem_errmsg(
                e).decode(errors="replace")), 1)
        ctypes.memset(self._lib.ptem_host(e, addr.value, max(nbytes, 1)), 0,
                      max(nbytes, 1))
        return _args.DevicePointer(addr.value, tuple(shape), dtype,
                                   device=device)

    def put(self, device, array, dtype=None):
        """A copy of numpy array `array` on `device`; dtype names a type
        numpy lacks whose raw bits it holds ("bfloat16" for uint16)."""
        import numpy as np
        a = np.ascontiguousarray(array)
        name = dtype or a.dtype.name
        if dtype is not None and a.dtype.itemsize != _args._ITEMSIZE[dtype]:
            raise ValueError("put: %s elements are not %s raw bits"
                             % (a.dtype, dtype))
        ptr = self.zeros(device, a.shape, name)
        if a.nbytes:
            ctypes.memmove(self._host(ptr, a.nbytes), a.ctypes.data, a.nbytes)
        return ptr

    def write(self, ptr, array):
        """Writes numpy array `array`'s bytes at ptr (any device)."""
        import numpy as np
        a = np.ascontiguousarray(array)
        if a.nbytes:
            ctypes.memmove(self._host(ptr, a.nbytes), a.ctypes.data, a.nbytes)

    def get(self, ptr, numpy_dtype=None):
        """A numpy copy of the buffer at DevicePointer ptr (its shape;
        bfloat16 and float8 as their raw unsigned bits)."""
        import numpy as np
        name = {"bfloat16": "uint16", "float8_e4m3fn": "uint8",
                "float8_e5m2": "uint8"}.get(ptr.dtype, ptr.dtype)
        out = np.empty(ptr.shape, dtype=numpy_dtype or name)
        if out.nbytes:
            ctypes.memmove(out.ctypes.data, self._host(ptr, out.nbytes),
                           out.nbytes)
        return out

    def encode_tensor_map(self, desc):
        """The 128 bytes of a tensor map in the emulator's encoding from
        cuTensorMapEncodeTiled's arguments: desc is a dict of format,
        rank, addr, dims, strides, box, elem_strides (innermost first),
        interleave, swizzle, oob_fill (kernels/_mgpu.shard_map_desc)."""
        td = _TmaDesc(format=desc["format"], rank=desc["rank"],
                      addr=desc["addr"], interleave=desc["interleave"],
                      swizzle=desc["swizzle"], oob_fill=desc["oob_fill"])
        for i, v in enumerate(desc["dims"]):
            td.dims[i] = v
        for i, v in enumerate(desc["strides"]):
            td.strides[i] = v
        for i, v in enumerate(desc["box"]):
            td.box[i] = v
        for i, v in enumerate(desc["elem_strides"]):
            td.elem_strides[i] = v
        out = ctypes.create_string_buffer(128)
        st = self._lib.ptem_tensormap_encode(ctypes.byref(td), out)
        if st:
            raise EmulatorError("encoding a tensor map: error[%s]"
                                % _lib.code_name(st), st)
        return out.raw

    def _host(self, ptr, nbytes):
        addr = ptr.ptr if isinstance(ptr, _args.DevicePointer) else int(ptr)
        h = self._lib.ptem_host(self._dev(0), addr, nbytes)
        if not h:
            raise ValueError("EmulatedDevices: 0x%x (+%d bytes) is in no "
                             "device's memory" % (addr, nbytes))
        return h

    def run(self, launches, max_steps=0):
        """Launches launches[d] = (kernel, args) on device d, for every
        device, interleaved; args as for a GPU launch with DevicePointers
        for the tensors.  EmulatorError names the failing device."""
        if len(launches) != self.n:
            raise ValueError("run: %d launches for %d devices (one each)"
                             % (len(launches), self.n))
        keep = []
        ls = (_DeviceLaunch * self.n)()
        for d, (kernel, args) in enumerate(launches):
            kernel._need_entry()
            e = self._dev(d)
            if self._loaded[d] is not kernel.ptx:
                ptx = kernel.ptx.encode()
                rc = self._lib.ptem_load(e, ptx, len(ptx))
                if rc:
                    raise _fail(self._lib, e, "device %d: the PTX of %s"
                                % (d, kernel.name), rc)
                self._loaded[d] = kernel.ptx
            buf = kernel._new_buffer()
            for i, p in enumerate(kernel._user):
                if p.kind == "tensor" and not isinstance(
                        args[i] if i < len(args) else None,
                        _args.DevicePointer):
                    raise _args._bad(i, p, "expected a DevicePointer of "
                                     "EmulatedDevices, got %s"
                                     % type(args[i]).__name__,
                                     _lib.code("RT_ARG_KIND"))
            kernel._pack(tuple(args), None, buf)
            keep.append(buf)
            l, argv, n = _plan(self._lib, self._rt, kernel, buf, len(args),
                               keep)
            l.flags = CHECK_ORDER if self.check_order else 0
            l.max_steps = max_steps
            name = kernel.name.encode()
            keep.append(name)
            ls[d].kernel, ls[d].launch = name, l
            ls[d].args, ls[d].nargs = argv, n
        rc = self._lib.ptem_group_run(self._g, ls, self.n)
        if rc:
            msg = self._lib.ptem_group_errmsg(self._g).decode(
                errors="replace")
            raise EmulatorError("error[%s]: %s" % (_lib.code_name(rc), msg),
                                rc)
