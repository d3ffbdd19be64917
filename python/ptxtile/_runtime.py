"""One libptxtile_rt context per CUDA device, opened on first use.

ptrt_open_device makes the device's primary context current: the context
the CUDA runtime, and so torch, uses on that device.  Memory, streams and
CUDA graphs of torch and launches of ptxtile therefore share one context.
Contexts stay open for the life of the process (loaded kernels may be
captured in CUDA graphs that outlive any Kernel object).
"""
import ctypes
import sys
import threading

from . import _lib
from ._errors import LaunchError, launch_error

_lock = threading.Lock()
_contexts = {}  # device ordinal -> Runtime, or the LaunchError it gave


class Runtime(object):
    """An open ptrt_ctx on one device.  .lock serialises its use: ctypes
    releases the GIL during calls, and a ptrt_ctx is one thread's at a
    time."""

    def __init__(self, device, handle):
        self.device = device
        self.handle = handle
        self.lock = threading.Lock()
        rt = _lib.runtime()
        ver, sm, name = ctypes.c_int(), ctypes.c_int(), ctypes.c_char_p()
        rt.ptrt_device_info(handle, ctypes.byref(ver), ctypes.byref(sm),
                            ctypes.byref(name))
        self.driver_version = ver.value
        self.sm = sm.value
        self.name = name.value.decode(errors="replace")

    def error(self, what=None):
        rt = _lib.runtime()
        msg = rt.ptrt_errmsg(self.handle).decode(errors="replace")
        return launch_error(("%s: %s" % (what, msg)) if what else msg,
                            rt.ptrt_status(self.handle))

    def reach(self, ptr, name):
        """Checks that this device reaches device address ptr (enabling
        peer access when it is another device's plain allocation), as a
        launch checks its pointer arguments; for addresses a kernel reads
        from a table.  PeerAccessError (naming `name`) when it cannot."""
        rt = _lib.runtime()
        with self.lock:
            if rt.ptrt_reach_pointer(self.handle, ptr, name.encode()):
                raise self.error()

    def encode_tensor_map(self, ptr, dtype, shape, strides, box, swizzle):
        """The 128 bytes of a tiled CUtensorMap of the tensor at device
        address ptr (dtype name, shape and byte strides outermost first;
        any device this one reaches) with box (outermost first) and
        swizzle (0 none .. 3 128B): ptrt_tensor_map_encode, after the
        TMA limit checks of a launch.  LaunchError when refused."""
        from . import _args  # here: _args imports nothing of this module
        buf = ctypes.create_string_buffer(_args.ARG_SIZE)
        _args.pack_tensor(buf, 0, None, _args.TensorView(
            ptr, dtype, tuple(shape), tuple(strides), None))
        m = ctypes.create_string_buffer(128 + 64)
        addr = (ctypes.addressof(m) + 63) & ~63
        b = (ctypes.c_uint32 * max(1, len(box)))(*box)
        rt = _lib.runtime()
        with self.lock:
            if rt.ptrt_tensor_map_encode(self.handle, ctypes.addressof(buf),
                                         b, swizzle, addr):
                raise self.error("encoding a tensor map")
        return ctypes.string_at(addr, 128)


def get(device):
    """The Runtime of device ordinal `device`; LaunchError when there is
    no driver or no such device (remembered: asked once per process)."""
    r = _contexts.get(device)
    if r is None:
        with _lock:
            r = _contexts.get(device)
            if r is None:
                r = _open(device)
                _contexts[device] = r
    if isinstance(r, LaunchError):
        raise r
    return r


def _open(device):
    rt = _lib.runtime()
    h = ctypes.c_void_p()
    rc = rt.ptrt_open_device(device, ctypes.byref(h))
    if rc != 0:
        msg = rt.ptrt_errmsg(h).decode(errors="replace")
        rt.ptrt_close(h)
        return LaunchError("no CUDA device %d for ptxtile: %s"
                           % (device, msg), rc)
    return Runtime(device, h)


def default_device():
    """torch's current device when torch is in use, else 0."""
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_initialized():
                return torch.cuda.current_device()
        except Exception:
            pass
    return 0
