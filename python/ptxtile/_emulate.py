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

LATE_COMPLETION, CHECK_RACES = 1, 2


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
    params = (_PlanParam * max(1, len(kernel._params)))()
    plan = _Plan(nparams=len(params), params=params)
    msg = ctypes.create_string_buffer(4096)
    meta = kernel.meta_json.encode()
    rc = rt.ptrt_plan_launch(meta, len(meta), kernel.name.encode(),
                             ctypes.addressof(buf), len(args),
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
    l = _Launch()
    for d in range(3):
        l.grid[d], l.block[d] = plan.grid[d], plan.block[d]
        l.cluster[d] = plan.cluster[d]
    l.dynamic_smem = plan.smem
    l.flags = (LATE_COMPLETION if late else 0) | \
        (CHECK_RACES if check_races else 0)
    l.max_steps = max_steps
    rc = lib.ptem_run(e, kernel.name.encode(), ctypes.byref(l), argv,
                      plan.nparams)
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
